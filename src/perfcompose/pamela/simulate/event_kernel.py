"""The discrete-event kernel of the PAMELA simulator (docs/pamela.md, "The simulator"), compiled with
Numba where the ``numba`` extra is installed (:mod:`perfcompose._jit`): threads with local clocks
run ahead through delays, loops and branches; a ``use`` waits in a heap keyed by arrival time and
takes the server free first, which is FCFS with ``m`` servers.
"""
from __future__ import annotations

import numpy as np

from perfcompose._heap import heap_push, heap_replace_root
from perfcompose._jit import njit

# instructions: [op, a, b, c, d]
OP_DELAY, OP_USE, OP_JUMP, OP_BRANCH, OP_LOOP_INIT, OP_LOOP_TEST, OP_LOOP_NEXT, OP_FORK2, OP_FORK_LOOP, OP_END = \
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10

# expression code: [op, arg]
(E_CONST, E_VAR, E_ADD, E_MUL, E_DIV, E_POW, E_MOD, E_FLOOR, E_CEIL, E_MAX, E_MIN, E_EQ, E_NE,
 E_LT, E_LE, E_GT, E_GE, E_AND, E_OR, E_NOT, E_SELECT, E_ABS, E_SQRT, E_LOG, E_EXP) = range(25)

# status codes
OK, ERR_KEY, ERR_MULT, ERR_MULT_CHANGED, ERR_TIME, ERR_PROB, ERR_THREADS, ERR_BOUND = range(8)

MAX_THREADS = 50_000_000
MAX_MULTIPLICITY = 1_000_000


@njit(cache=True, inline="always")
def _value(e, fixed, ecode, econst, estart, env, tid, stack):
    """Expression ``e`` for thread ``tid``; constants (most times and indices) without the interpreter."""
    v = fixed[e]
    if v == v:
        return v
    return _eval(e, ecode, econst, estart, env, tid, stack)


@njit(cache=True)
def _eval(e, ecode, econst, estart, env, tid, stack):
    sp = 0
    for k in range(estart[e], estart[e + 1]):
        op = ecode[k, 0]
        arg = ecode[k, 1]
        if op == E_CONST:
            stack[sp] = econst[arg]
            sp += 1
        elif op == E_VAR:
            stack[sp] = env[tid, arg]
            sp += 1
        elif op == E_FLOOR:
            stack[sp - 1] = np.floor(stack[sp - 1])
        elif op == E_CEIL:
            stack[sp - 1] = np.ceil(stack[sp - 1])
        elif op == E_NOT:
            stack[sp - 1] = 1.0 if stack[sp - 1] == 0.0 else 0.0
        elif op == E_ABS:
            stack[sp - 1] = abs(stack[sp - 1])
        elif op == E_SQRT:
            stack[sp - 1] = np.sqrt(stack[sp - 1])
        elif op == E_LOG:
            stack[sp - 1] = np.log(stack[sp - 1])
        elif op == E_EXP:
            stack[sp - 1] = np.exp(stack[sp - 1])
        elif op == E_SELECT:
            b = stack[sp - 1]
            a = stack[sp - 2]
            c = stack[sp - 3]
            sp -= 2
            stack[sp - 1] = a if c != 0.0 else b
        else:
            y = stack[sp - 1]
            x = stack[sp - 2]
            sp -= 1
            if op == E_ADD:
                r = x + y
            elif op == E_MUL:
                r = x * y
            elif op == E_DIV:
                r = x / y
            elif op == E_POW:
                r = x ** y
            elif op == E_MOD:
                r = x - y * np.floor(x / y)
            elif op == E_MAX:
                r = x if x >= y else y
            elif op == E_MIN:
                r = x if x <= y else y
            elif op == E_EQ:
                r = 1.0 if x == y else 0.0
            elif op == E_NE:
                r = 1.0 if x != y else 0.0
            elif op == E_LT:
                r = 1.0 if x < y else 0.0
            elif op == E_LE:
                r = 1.0 if x <= y else 0.0
            elif op == E_GT:
                r = 1.0 if x > y else 0.0
            elif op == E_GE:
                r = 1.0 if x >= y else 0.0
            elif op == E_AND:
                r = 1.0 if (x != 0.0 and y != 0.0) else 0.0
            else:  # E_OR
                r = 1.0 if (x != 0.0 or y != 0.0) else 0.0
            stack[sp - 1] = r
    return stack[0]


@njit(cache=True)
def _grow1(a, n):
    b = np.empty(n, a.dtype)
    b[:a.shape[0]] = a
    return b


@njit(cache=True)
def _grow2(a, n):
    b = np.zeros((n, a.shape[1]), a.dtype)
    b[:a.shape[0]] = a
    return b


@njit(cache=True)
def run(code, fixed, ecode, econst, estart, nslots, max_stack, randomness, seed):
    """Simulate; returns (status, pc, value, keys, mults, busy, uses): ``value``
    the completion time, or the offending value at ``pc``; ``randomness`` 0, 1 or 2 (exponential use, and delays)."""
    np.random.seed(seed)
    stack = np.zeros(max_stack + 1)
    cap = 1024
    t_pc = np.zeros(cap, np.int64)
    t_clock = np.zeros(cap)
    t_parent = np.zeros(cap, np.int64)
    t_pending = np.zeros(cap, np.int64)
    t_maxend = np.zeros(cap)
    env = np.zeros((cap, max(nslots, 1)))
    free = np.zeros(cap, np.int64)
    ready = np.zeros(cap, np.int64)
    nfree, nthreads, live, nready = 0, 1, 1, 1
    ht = np.zeros(cap)
    htb = np.zeros(cap)  # tie-breaks: all equal, so equal arrivals are served in heap order
    hi = np.zeros(cap, np.int64)
    nheap = 0
    # resources: an open-addressing table from index to resource number
    tcap = 64
    tkeys = np.zeros(tcap, np.int64)
    tvals = np.full(tcap, -1, np.int64)
    nres = 0
    r_key = np.zeros(16, np.int64)
    r_mult = np.zeros(16, np.int64)
    r_off = np.zeros(16, np.int64)
    r_busy = np.zeros(16)
    pool = np.zeros(64)
    npool, uses, finish = 0, 0, 0.0
    t_parent[0] = -1  # the root thread, ready at time 0
    while True:
        from_heap = False
        if nready > 0:
            nready -= 1
            tid = ready[nready]
            pc = t_pc[tid]
            clock = t_clock[tid]
        elif nheap > 0:
            # serve the earliest arrival at a resource; its heap entry stays until it blocks again
            from_heap = True
            now = ht[0]
            tid = hi[0]
            pc = t_pc[tid]
            key_f = _value(code[pc, 1], fixed, ecode, econst, estart, env, tid, stack)
            mult_f = _value(code[pc, 2], fixed, ecode, econst, estart, env, tid, stack)
            t = _value(code[pc, 3], fixed, ecode, econst, estart, env, tid, stack)
            if not (abs(key_f) < 1e15) or key_f != np.floor(key_f):
                return ERR_KEY, pc, key_f, r_key[:nres], r_mult[:nres], r_busy[:nres], uses
            if not (mult_f >= 1.0 and mult_f <= MAX_MULTIPLICITY) or mult_f != np.floor(mult_f):
                return ERR_MULT, pc, mult_f, r_key[:nres], r_mult[:nres], r_busy[:nres], uses
            if not (t >= 0.0):
                return ERR_TIME, pc, t, r_key[:nres], r_mult[:nres], r_busy[:nres], uses
            key = np.int64(key_f)
            mult = np.int64(mult_f)
            mask = tcap - 1
            h = (key * np.int64(0x9E3779B1)) & mask
            rid = -1
            while tvals[h] >= 0:
                if tkeys[h] == key:
                    rid = tvals[h]
                    break
                h = (h + 1) & mask
            if rid < 0:
                rid = nres
                nres += 1
                if rid >= r_key.shape[0]:
                    r_key = _grow1(r_key, 2 * r_key.shape[0])
                    r_mult = _grow1(r_mult, 2 * r_mult.shape[0])
                    r_off = _grow1(r_off, 2 * r_off.shape[0])
                    r_busy = _grow1(r_busy, 2 * r_busy.shape[0])
                r_key[rid], r_mult[rid], r_busy[rid] = key, mult, 0.0
                if npool + mult > pool.shape[0]:
                    pool = _grow1(pool, max(2 * pool.shape[0], npool + mult))
                pool[npool:npool + mult] = 0.0
                r_off[rid] = npool
                npool += mult
                tkeys[h], tvals[h] = key, rid
                if 2 * nres > tcap:
                    newt = 2 * tcap
                    nk = np.zeros(newt, np.int64)
                    nv = np.full(newt, -1, np.int64)
                    for q in range(tcap):
                        if tvals[q] >= 0:
                            h2 = (tkeys[q] * np.int64(0x9E3779B1)) & (newt - 1)
                            while nv[h2] >= 0:
                                h2 = (h2 + 1) & (newt - 1)
                            nk[h2] = tkeys[q]
                            nv[h2] = tvals[q]
                    tkeys, tvals, tcap = nk, nv, newt
            elif r_mult[rid] != mult:
                return ERR_MULT_CHANGED, pc, mult_f, r_key[:nres], r_mult[:nres], r_busy[:nres], uses
            if randomness >= 1 and t > 0.0:  # exponential service times
                t = np.random.exponential(t)
            off = r_off[rid]
            clock = max(now, pool[off]) + t  # served when it arrives or when a server is free
            if mult == 1:
                pool[off] = clock
            else:
                # the servers' free times as a heap of keys alone: the same array holds its tie-breaks and ids
                heap_replace_root(pool, pool, pool, off, mult, clock, clock, clock)
            r_busy[rid] += t
            uses += 1
            pc += 1
        else:
            break
        # run thread tid from pc at its clock until it waits (use), forks or ends
        while True:
            op = code[pc, 0]
            if op == OP_DELAY:
                t = _value(code[pc, 1], fixed, ecode, econst, estart, env, tid, stack)
                if not (t >= 0.0):
                    return ERR_TIME, pc, t, r_key[:nres], r_mult[:nres], r_busy[:nres], uses
                if randomness == 2 and t > 0.0:  # exponential delays too
                    t = np.random.exponential(t)
                clock += t
                pc += 1
            elif op == OP_USE:
                t_pc[tid], t_clock[tid] = pc, clock
                if from_heap:  # replace this thread's own entry at the root
                    heap_replace_root(ht, htb, hi, 0, nheap, clock, 0.0, tid)
                    from_heap = False
                else:
                    if nheap >= ht.shape[0]:
                        ht = _grow1(ht, 2 * ht.shape[0])
                        htb = _grow1(htb, 2 * htb.shape[0])
                        hi = _grow1(hi, 2 * hi.shape[0])
                    nheap = heap_push(ht, htb, hi, 0, nheap, clock, 0.0, tid)
                break
            elif op == OP_JUMP:
                pc = code[pc, 1]
            elif op == OP_BRANCH:
                c = _value(code[pc, 1], fixed, ecode, econst, estart, env, tid, stack)
                if c != c:
                    return ERR_PROB, pc, c, r_key[:nres], r_mult[:nres], r_busy[:nres], uses
                # 1 takes the branch and 0 the other; a probability in between is drawn
                pc = pc + 1 if c >= 1.0 or (c > 0.0 and np.random.random() < c) else code[pc, 2]
            elif op == OP_LOOP_INIT:
                lo = _value(code[pc, 2], fixed, ecode, econst, estart, env, tid, stack)
                hi_ = _value(code[pc, 3], fixed, ecode, econst, estart, env, tid, stack)
                if not (abs(lo) < 1e15 and abs(hi_) < 1e15):
                    return ERR_BOUND, pc, lo, r_key[:nres], r_mult[:nres], r_busy[:nres], uses
                env[tid, code[pc, 1]], env[tid, code[pc, 1] + 1] = np.ceil(lo - 1e-9), np.floor(hi_ + 1e-9)
                pc += 1
            elif op == OP_LOOP_TEST:
                s = code[pc, 1]
                pc = code[pc, 2] if env[tid, s] > env[tid, s + 1] else pc + 1
            elif op == OP_LOOP_NEXT:
                env[tid, code[pc, 1]] += 1.0
                pc = code[pc, 2]
            elif op == OP_FORK2 or op == OP_FORK_LOOP:
                if op == OP_FORK2:
                    n, first, slot, cont = 2, 0.0, -1, code[pc, 2]
                else:
                    slot = code[pc, 1]
                    lo = _value(code[pc, 2], fixed, ecode, econst, estart, env, tid, stack)
                    hi_ = _value(code[pc, 3], fixed, ecode, econst, estart, env, tid, stack)
                    if not (abs(lo) < 1e15 and abs(hi_) < 1e15):
                        return ERR_BOUND, pc, lo, r_key[:nres], r_mult[:nres], r_busy[:nres], uses
                    first = np.ceil(lo - 1e-9)
                    n = int(np.floor(hi_ + 1e-9) - first + 1)
                    cont = code[pc, 4]
                    if n <= 0:
                        pc = cont
                        continue
                if live + n > MAX_THREADS:
                    return ERR_THREADS, pc, float(live + n), r_key[:nres], r_mult[:nres], r_busy[:nres], uses
                t_pending[tid], t_maxend[tid], t_pc[tid], t_clock[tid] = n, clock, cont, clock
                if nready + n > ready.shape[0]:
                    ready = _grow1(ready, 2 * ready.shape[0] + n)
                for j in range(n):
                    if nfree > 0:
                        nfree -= 1
                        child = free[nfree]
                    else:
                        if nthreads >= t_pc.shape[0]:
                            newcap = 2 * t_pc.shape[0]
                            t_pc = _grow1(t_pc, newcap)
                            t_clock = _grow1(t_clock, newcap)
                            t_parent = _grow1(t_parent, newcap)
                            t_pending = _grow1(t_pending, newcap)
                            t_maxend = _grow1(t_maxend, newcap)
                            env = _grow2(env, newcap)
                        child = nthreads
                        nthreads += 1
                    env[child, :] = env[tid, :]
                    t_clock[child], t_parent[child] = clock, tid
                    if op == OP_FORK2:
                        t_pc[child] = pc + 1 if j == 0 else code[pc, 1]
                    else:
                        t_pc[child] = pc + 1
                        env[child, slot] = first + j
                    # the ready stack is LIFO: the first child goes on top, so it runs (and queues) first
                    ready[nready + n - 1 - j] = child
                nready += n
                live += n
                break
            elif op == OP_END:
                parent = t_parent[tid]
                live -= 1
                if parent < 0:
                    finish = clock
                    break
                if nfree >= free.shape[0]:
                    free = _grow1(free, 2 * free.shape[0])
                free[nfree] = tid
                nfree += 1
                t_maxend[parent] = max(t_maxend[parent], clock)
                t_pending[parent] -= 1
                if t_pending[parent] == 0:
                    t_clock[parent] = t_maxend[parent]
                    if nready >= ready.shape[0]:
                        ready = _grow1(ready, 2 * ready.shape[0])
                    ready[nready] = parent
                    nready += 1
                break
            else:
                break
        if from_heap:  # the served thread forked or ended: its entry leaves the heap
            nheap -= 1
            if nheap > 0:
                heap_replace_root(ht, htb, hi, 0, nheap, ht[nheap], htb[nheap], hi[nheap])
    return OK, -1, finish, r_key[:nres], r_mult[:nres], r_busy[:nres], uses
