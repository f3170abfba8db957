"""LogGOPSim's simulation semantics, compiled, on GOAL schedules (:mod:`.goal`).

LogGOPSim (Hoefler, Schneider, Lumsdaine, 2010) differs from paper 002's algorithm in three ways
that change predicted times: a host has separate send and receive gaps (``nextgs``, ``nextgr``)
next to its CPU overhead clock (``nexto``); a message's receive overhead is charged when the
message arrives (``o + (k-1)G`` from then on, whether or not the receive was posted); and events
are processed in time order with ties in creation order, so there is no priority of receives
over sends. A message is injected at ``t + o`` and its first byte arrives at ``t + o + L``.
``O`` is the overhead per byte and messages above ``S`` bytes use a rendezvous: the send
completes when the receiver matches it. ``S`` defaults to LogGOPSim's own default, 65,535 bytes.

:func:`simulate_goal` runs the event loop in one compiled kernel; :func:`reference_goal` is the
same loop written plainly in Python (LogGOPSim.cpp's main loop, without a network model or OS
noise), kept as the reference the kernel is tested against.
"""
from __future__ import annotations

import heapq
import math
from collections import deque
from pathlib import Path
from typing import Any, Iterable

import numpy as np
from numba import njit

from perfcompose.errors import InputError
from perfcompose.loggp.goal import (ANY, CALC, RECV, SEND, GoalOp, GoalRank, GoalSchedule, goal_text,  # noqa: F401
                                    parse_goal, program_to_goal, read_goal)
from perfcompose._heap import heap_pop, heap_push
from perfcompose.loggp.params import LogGP
from perfcompose.loggp.program import CompStep, Program
from perfcompose.loggp.results import GoalResult, Op, ProgramResult

__all__ = ["LOGGOPSIM_S", "GoalResult", "simulate_goal", "reference_goal", "simulate_program_loggopsim",
           "GoalSchedule", "parse_goal", "read_goal", "goal_text", "program_to_goal", "ANY"]

LOGGOPSIM_S = 65535.0  #: LogGOPSim's default eager/rendezvous threshold [bytes]


# ---------------------------------------------------------------------------------------------
# the compiled event loop


@njit(cache=True)
def _ready(i, need_req, need_ireq, issued, fresh, nfresh):  # pragma: no cover - compiled
    if need_req[i] == 0 and need_ireq[i] == 0 and not issued[i]:
        issued[i] = True
        fresh[nfresh] = i
        nfresh += 1
    return nfresh


@njit(cache=True)
def _mark_started(i, started, ireq_ptr, ireq_dep, need_req, need_ireq, issued, fresh, nfresh):  # pragma: no cover
    if not started[i]:
        started[i] = True
        for j in range(ireq_ptr[i], ireq_ptr[i + 1]):
            d = ireq_dep[j]
            need_ireq[d] -= 1
            nfresh = _ready(d, need_req, need_ireq, issued, fresh, nfresh)
    return nfresh


@njit(cache=True)
def _mark_done(i, started, done, req_ptr, req_dep, ireq_ptr, ireq_dep, need_req, need_ireq, issued, fresh,
               nfresh):  # pragma: no cover - compiled
    nfresh = _mark_started(i, started, ireq_ptr, ireq_dep, need_req, need_ireq, issued, fresh, nfresh)
    if not done[i]:
        done[i] = True
        for j in range(req_ptr[i], req_ptr[i + 1]):
            d = req_dep[j]
            need_req[d] -= 1
            nfresh = _ready(d, need_req, need_ireq, issued, fresh, nfresh)
    return nfresh


@njit(cache=True)
def _unlink(i, head, tail, nxt, prv, q):  # pragma: no cover - compiled
    """Remove entry ``i`` from the doubly linked list ``q``."""
    a, b = prv[i], nxt[i]
    if a >= 0:
        nxt[a] = b
    else:
        head[q] = b
    if b >= 0:
        prv[b] = a
    else:
        tail[q] = a


@njit(cache=True)
def _append(i, head, tail, nxt, prv, q):  # pragma: no cover - compiled
    prv[i] = tail[q]
    nxt[i] = -1
    if tail[q] >= 0:
        nxt[tail[q]] = i
    else:
        head[q] = i
    tail[q] = i


@njit(cache=True)
def _linear_insert(a, kind, last):  # pragma: no cover - compiled
    val = a[last]
    nxt = last - 1
    while kind[val] < kind[a[nxt]]:
        a[last] = a[nxt]
        last = nxt
        nxt -= 1
    a[last] = val


@njit(cache=True)
def _insertion_sort(a, kind, first, last):  # pragma: no cover - compiled
    if first == last:
        return
    for i in range(first + 1, last):
        if kind[a[i]] < kind[a[first]]:
            val = a[i]
            for j in range(i, first, -1):
                a[j] = a[j - 1]
            a[first] = val
        else:
            _linear_insert(a, kind, i)


@njit(cache=True)
def _swap(a, i, j):  # pragma: no cover - compiled
    a[i], a[j] = a[j], a[i]


@njit(cache=True)
def _sort_like_cxx(a, kind, first, last):  # pragma: no cover - compiled
    """Sort the operations a[first:last] by kind the way LogGOPSim's ``std::sort`` does with
    libstdc++ (introsort, median-of-three pivot, insertion sort below 17 elements): not stable,
    and the order it leaves among operations of one kind decides which is issued first."""
    n = last - first
    if n < 2:
        return
    if n <= 16:
        _insertion_sort(a, kind, first, last)
        return
    depth = 0
    while (1 << (depth + 1)) <= n:
        depth += 1
    stack = np.empty((2 * 64 + 2, 3), np.int64)
    sp = 0
    stack[0, 0], stack[0, 1], stack[0, 2] = first, last, 2 * depth
    sp = 1
    while sp > 0:
        sp -= 1
        lo, hi, lim = stack[sp, 0], stack[sp, 1], stack[sp, 2]
        while hi - lo > 16:
            if lim == 0:  # libstdc++ switches to heap sort here; a stable sort stands in for it
                keys = np.empty(hi - lo, np.int64)
                for j in range(lo, hi):
                    keys[j - lo] = np.int64(kind[a[j]]) * (1 << 40) + (j - lo)
                order = np.argsort(keys)
                tmp = a[lo:hi].copy()
                for j in range(hi - lo):
                    a[lo + j] = tmp[order[j]]
                break
            lim -= 1
            mid = lo + (hi - lo) // 2
            x, y, z = lo + 1, mid, hi - 1  # move the median of three to lo
            if kind[a[x]] < kind[a[y]]:
                if kind[a[y]] < kind[a[z]]:
                    _swap(a, lo, y)
                elif kind[a[x]] < kind[a[z]]:
                    _swap(a, lo, z)
                else:
                    _swap(a, lo, x)
            elif kind[a[x]] < kind[a[z]]:
                _swap(a, lo, x)
            elif kind[a[y]] < kind[a[z]]:
                _swap(a, lo, z)
            else:
                _swap(a, lo, y)
            pivot = kind[a[lo]]
            f, l_ = lo + 1, hi
            while True:
                while kind[a[f]] < pivot:
                    f += 1
                l_ -= 1
                while pivot < kind[a[l_]]:
                    l_ -= 1
                if not f < l_:
                    break
                _swap(a, f, l_)
                f += 1
            stack[sp, 0], stack[sp, 1], stack[sp, 2] = f, hi, lim
            sp += 1
            hi = f
    if n > 16:
        _insertion_sort(a, kind, first, first + 16)
        for i in range(first + 16, last):
            _linear_insert(a, kind, i)
    else:
        _insertion_sort(a, kind, first, last)


@njit(cache=True)
def _issue(fresh, lo, hi, kind, op_rank, initial, nexto, nextgs, cpu, nic, n_cpu, n_nic, hkey, htb, hid, hn, ts, mts,
           members, mpos, g_lo, g_hi, gfree, nfree):  # pragma: no cover - compiled
    """Push the new operations fresh[lo:hi] of one rank (in the order they became executable),
    sorted by kind as LogGOPSim sorts them. Each gets the next creation stamp; a run of
    operations of one kind, CPU and NIC (which LogGOPSim queues at one time with consecutive
    stamps) is pushed as one group, keyed by its first member."""
    _sort_like_cxx(fresh, kind, lo, hi)
    j = lo
    while j < hi:
        i = fresh[j]
        h = op_rank[i]
        if initial:
            t = 0.0
        elif kind[i] == 0:
            t = max(nexto[h * n_cpu + cpu[i]], nextgs[h * n_nic + nic[i]])
        else:
            t = nexto[h * n_cpu + cpu[i]]
        nfree -= 1
        grp = gfree[nfree]
        g_lo[grp] = mpos
        first_ts = ts
        while j < hi and kind[fresh[j]] == kind[i] and cpu[fresh[j]] == cpu[i] and nic[fresh[j]] == nic[i]:
            members[mpos] = fresh[j]
            mts[fresh[j]] = ts
            mpos += 1
            ts += 1
            j += 1
        g_hi[grp] = mpos
        hn = heap_push(hkey, htb, hid, 0, hn, t, float(first_ts), grp)
    return hn, ts, mpos, nfree


@njit(cache=True)
def _goal_kernel(P, op_ptr, op_rank, kind, size, peer, tag, cpu, nic, key, n_keys, req_ptr, req_dep, ireq_ptr,
                 ireq_dep, need_req, need_ireq, n_cpu, n_nic, L, o, g, G, O, S, start, end, done,
                 finish):  # pragma: no cover - compiled
    n = kind.shape[0]
    nexto = np.zeros(P * n_cpu)
    nextgs = np.zeros(P * n_nic)
    nextgr = np.zeros(P * n_nic)
    issued = np.zeros(n, np.bool_)
    started = np.zeros(n, np.bool_)
    fresh = np.empty(2 * n + 1, np.int32)
    # unexpected messages (entries: send ops) and posted receives (entries: recv ops), per rank in
    # insertion order and per matching key
    uq_head = np.full(P, -1, np.int32)
    uq_tail = np.full(P, -1, np.int32)
    uk_head = np.full(n_keys, -1, np.int32)
    uk_tail = np.full(n_keys, -1, np.int32)
    rq_head = np.full(P, -1, np.int32)
    rq_tail = np.full(P, -1, np.int32)
    rk_head = np.full(n_keys, -1, np.int32)
    rk_tail = np.full(n_keys, -1, np.int32)
    rq_wild = np.zeros(P, np.int64)
    h_next = np.full(n, -1, np.int32)
    h_prev = np.full(n, -1, np.int32)
    k_next = np.full(n, -1, np.int32)
    k_prev = np.full(n, -1, np.int32)
    u_t0 = np.zeros(n)
    u_t1 = np.zeros(n)
    hkey = np.empty(2 * n + 1)
    htb = np.empty(2 * n + 1)
    hid = np.empty(2 * n + 1, np.int32)
    hn = 0
    ts = 0
    # groups of queued operations (see _issue): members[g_lo[g]:g_hi[g]], ids below gmax;
    # a message event's id is gmax + its send operation
    gmax = n + 1
    mts = np.zeros(n, np.int32)
    members = np.empty(n, np.int32)
    mpos = 0
    g_lo = np.zeros(gmax, np.int32)
    g_hi = np.zeros(gmax, np.int32)
    gfree = np.arange(gmax - 1, -1, -1).astype(np.int32)
    nfree = gmax
    for h in range(P):
        nf = 0
        for i in range(op_ptr[h], op_ptr[h + 1]):
            nf = _ready(i, need_req, need_ireq, issued, fresh, nf)
        hn, ts, mpos, nfree = _issue(fresh, 0, nf, kind, op_rank, True, nexto, nextgs, cpu, nic, n_cpu, n_nic, hkey,
                                     htb, hid, hn, ts, mts, members, mpos, g_lo, g_hi, gfree, nfree)
    pops = 0
    msg_waits = 0
    carry = False  # the next member of the group just run is the next event (no heap round trip)
    t = 0.0
    its = 0.0
    grp = 0
    while hn > 0 or carry:
        if carry:
            carry = False
            its = float(mts[members[g_lo[grp]]])
        else:
            pops += 1
            t = hkey[0]
            its = htb[0]
            grp = hid[0]
            hn = heap_pop(hkey, htb, hid, 0, hn)
        if grp < gmax:  # the first member of a group of operations
            ev = members[g_lo[grp]]
        else:
            ev = n + grp - gmax
        ok = True  # whether the operation ran (else it waits for its CPU or NIC until t_wait)
        t_wait = 0.0
        nf = 0
        h1 = -1  # the ranks to issue new operations of (the event's, and a sender's)
        h2 = -1
        if ev < n and kind[ev] == 2:  # calc
            i = ev
            h = op_rank[i]
            c = h * n_cpu + cpu[i]
            if nexto[c] <= t:
                nexto[c] = t + size[i]
                start[i] = t
                end[i] = t + size[i]
                nf = _mark_done(i, started, done, req_ptr, req_dep, ireq_ptr, ireq_dep, need_req, need_ireq, issued,
                                fresh, nf)
                h1 = h
            else:
                ok = False
                t_wait = nexto[c]
        elif ev < n and kind[ev] == 0:  # send
            i = ev
            h = op_rank[i]
            c = h * n_cpu + cpu[i]
            q = h * n_nic + nic[i]
            if max(nexto[c], nextgs[q]) <= t:
                nf = _mark_started(i, started, ireq_ptr, ireq_dep, need_req, need_ireq, issued, fresh, nf)
                h1 = h
                k1 = max(size[i] - 1.0, 0.0)
                nexto[c] = t + o + k1 * O
                nextgs[q] = t + g + k1 * G
                start[i] = t
                end[i] = t + o + k1 * O
                hn = heap_push(hkey, htb, hid, 0, hn, t + o + L, float(ts), gmax + i)
                ts += 1
                if size[i] <= S:
                    nf = _mark_done(i, started, done, req_ptr, req_dep, ireq_ptr, ireq_dep, need_req, need_ireq,
                                    issued, fresh, nf)
            else:
                ok = False
                t_wait = max(nexto[c], nextgs[q])
        elif ev < n:  # a receive is posted
            i = ev
            h = op_rank[i]
            nf = _mark_started(i, started, ireq_ptr, ireq_dep, need_req, need_ireq, issued, fresh, nf)
            h1 = h
            found = -1
            if peer[i] != -1 and tag[i] != -1:
                found = uk_head[key[i]] if key[i] >= 0 else -1
            else:
                e = uq_head[h]
                while e >= 0:
                    if (peer[i] == -1 or op_rank[e] == peer[i]) and (tag[i] == -1 or tag[e] == tag[i]):
                        found = e
                        break
                    e = h_next[e]
            if found >= 0:
                _unlink(found, uq_head, uq_tail, h_next, h_prev, h)
                _unlink(found, uk_head, uk_tail, k_next, k_prev, key[found])
                src = op_rank[found]
                if size[i] > S:  # rendezvous: the sender's request completes now
                    nf = _mark_done(found, started, done, req_ptr, req_dep, ireq_ptr, ireq_dep, need_req, need_ireq,
                                    issued, fresh, nf)
                    h2 = src
                    c = src * n_cpu + cpu[i]
                    q = src * n_nic + nic[i]
                    nexto[c] = max(nexto[c], t)
                    nextgs[q] = max(nextgs[q], t)
                start[i] = u_t0[found]
                end[i] = u_t1[found]
                nf = _mark_done(i, started, done, req_ptr, req_dep, ireq_ptr, ireq_dep, need_req, need_ireq, issued,
                                fresh, nf)
            else:
                _append(i, rq_head, rq_tail, h_next, h_prev, h)
                if key[i] >= 0:
                    _append(i, rk_head, rk_tail, k_next, k_prev, key[i])
                else:
                    rq_wild[h] += 1
        else:  # the message of send op s arrives at rank h
            s = ev - n
            h = peer[s]
            src = op_rank[s]
            c = h * n_cpu + cpu[s]
            q = h * n_nic + nic[s]
            if max(nexto[c], nextgr[q]) <= t:
                k1 = max(size[s] - 1.0, 0.0)
                nexto[c] = t + o + max(k1 * O, k1 * G)
                nextgr[q] = t + g + k1 * G
                found = -1
                if rq_wild[h] == 0:
                    found = rk_head[key[s]]
                else:
                    e = rq_head[h]
                    while e >= 0:
                        if (peer[e] == -1 or peer[e] == src) and (tag[e] == -1 or tag[e] == tag[s]):
                            found = e
                            break
                        e = h_next[e]
                if found >= 0:
                    _unlink(found, rq_head, rq_tail, h_next, h_prev, h)
                    if key[found] >= 0:
                        _unlink(found, rk_head, rk_tail, k_next, k_prev, key[found])
                    else:
                        rq_wild[h] -= 1
                    if size[s] > S:
                        nf = _mark_done(s, started, done, req_ptr, req_dep, ireq_ptr, ireq_dep, need_req, need_ireq,
                                        issued, fresh, nf)
                        h2 = src
                        c2 = src * n_cpu + cpu[s]
                        q2 = src * n_nic + nic[s]
                        nexto[c2] = max(nexto[c2], t)
                        nextgs[q2] = max(nextgs[q2], t)
                    start[found] = t
                    end[found] = nexto[c]
                    nf = _mark_done(found, started, done, req_ptr, req_dep, ireq_ptr, ireq_dep, need_req, need_ireq,
                                    issued, fresh, nf)
                    h1 = h
                else:
                    _append(s, uq_head, uq_tail, h_next, h_prev, h)
                    _append(s, uk_head, uk_tail, k_next, k_prev, key[s])
                    u_t0[s] = t
                    u_t1[s] = nexto[c]
            else:
                msg_waits += 1
                hn = heap_push(hkey, htb, hid, 0, hn, max(nexto[c], nextgr[q]), its, grp)
        if grp < gmax:
            if ok:  # the next member's turn, at the same time
                g_lo[grp] += 1
                if g_lo[grp] < g_hi[grp]:
                    tsn = float(mts[members[g_lo[grp]]])
                    if hn == 0 or hkey[0] > t or (hkey[0] == t and htb[0] > tsn):
                        carry = True
                    else:
                        hn = heap_push(hkey, htb, hid, 0, hn, t, tsn, grp)
                else:
                    gfree[nfree] = grp
                    nfree += 1
            elif g_hi[grp] - g_lo[grp] == 1 or hn == 0 or hkey[0] > t or (
                    hkey[0] == t and htb[0] > mts[members[g_hi[grp] - 1]]):
                # the other members would be popped next, one after the other, and wait for the
                # same CPU or NIC until the same time: they move together
                hn = heap_push(hkey, htb, hid, 0, hn, t_wait, its, grp)
            else:  # another event comes between the members: the first one waits alone
                nfree -= 1
                g1 = gfree[nfree]
                g_lo[g1] = g_lo[grp]
                g_hi[g1] = g_lo[grp] + 1
                hn = heap_push(hkey, htb, hid, 0, hn, t_wait, its, g1)
                g_lo[grp] += 1
                hn = heap_push(hkey, htb, hid, 0, hn, t, float(mts[members[g_lo[grp]]]), grp)
        if nf > 0:  # issue the new operations, rank by rank in ascending order
            if h1 >= 0 and h2 >= 0 and h2 < h1:
                h1, h2 = h2, h1
            if h1 == h2:
                h2 = -1
            for hh in (h1, h2):
                if hh < 0:
                    continue
                lo = nf
                m = nf
                for j in range(nf):  # gather hh's new operations after the buffer's used part
                    if op_rank[fresh[j]] == hh:
                        fresh[m] = fresh[j]
                        m += 1
                hn, ts, mpos, nfree = _issue(fresh, lo, m, kind, op_rank, False, nexto, nextgs, cpu, nic, n_cpu,
                                             n_nic, hkey, htb, hid, hn, ts, mts, members, mpos, g_lo, g_hi, gfree,
                                             nfree)
    for h in range(P):
        f = 0.0
        for c in range(n_cpu):
            f = max(f, nexto[h * n_cpu + c])
        finish[h] = f
    return pops, msg_waits


def _csr(a: np.ndarray, b: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Dependents of every operation (``a`` depends on ``b``) as CSR, and each one's count."""
    order = np.argsort(b, kind="stable")
    ptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(b, minlength=n), out=ptr[1:])
    return ptr, a[order].astype(np.int64), np.bincount(a, minlength=n).astype(np.int64)


def _match_keys(s: GoalSchedule, rank_of: np.ndarray) -> tuple[np.ndarray, int]:
    """A compact key per send (destination, source, tag) and per exact receive (rank, source,
    tag): a message and a receive match exactly when their keys are equal; -1 for the rest."""
    n, P = s.num_ops, s.num_ranks
    is_send = s.kind == SEND
    exact_recv = (s.kind == RECV) & (s.peer != ANY) & (s.tag != ANY)
    use = is_send | exact_recv
    dst = np.where(is_send, s.peer, rank_of)[use]
    src = np.where(is_send, rank_of, s.peer)[use]
    tag = s.tag[use]
    key = np.full(n, -1, np.int64)
    if not use.any():
        return key, 0
    span = int(tag.max()) + 1
    if P * P * span < 2 ** 62:
        _, inv = np.unique((dst * P + src) * span + tag, return_inverse=True)
    else:
        _, inv = np.unique(np.stack([dst, src, tag], axis=1), axis=0, return_inverse=True)
    key[use] = inv.reshape(-1)
    return key, int(inv.max()) + 1


def simulate_goal(schedule: GoalSchedule, params: LogGP, *, O: float = 0.0, S: float = LOGGOPSIM_S,
                  path: str | Path | None = None) -> GoalResult:
    """Run a GOAL schedule with LogGOPSim's rules; times in the parameters' unit."""
    s = schedule
    n, P = s.num_ops, s.num_ranks
    rank_of = s.rank_of
    comm = s.kind != CALC
    if n and (s.peer[comm] >= P).any():
        i = int(np.flatnonzero(comm & (s.peer >= P))[0])
        raise InputError(f"rank {int(rank_of[i])} names rank {int(s.peer[i])}, but there are {P}", path=path,
                         line=int(s.lines[i]) if s.lines is not None else None)
    if 2 * n + 2 >= 2 ** 31:
        raise InputError(f"a schedule of {n:,} operations is too large for one simulation (at most about 10^9)",
                         path=path)
    key, n_keys = _match_keys(s, rank_of)
    req_ptr, req_dep, need_req = _csr(s.req_a, s.req_b, n)
    ireq_ptr, ireq_dep, need_ireq = _csr(s.ireq_a, s.ireq_b, n)
    n_cpu = 1 + int(s.cpu.max()) if n else 1
    n_nic = 1 + int(s.nic.max()) if n else 1
    start = np.full(n, np.nan)
    end = np.full(n, np.nan)
    done = np.zeros(n, np.bool_)
    finish = np.zeros(P)
    _goal_kernel(P, s.op_ptr, rank_of, s.kind, s.size, s.peer, s.tag, s.cpu, s.nic, key, max(n_keys, 1), req_ptr,
                 req_dep, ireq_ptr, ireq_dep, need_req, need_ireq, n_cpu, n_nic, float(params.L), float(params.o),
                 float(params.g), float(params.G), float(O), float(S), start, end, done, finish)
    if not done.all():
        i = int(np.flatnonzero(~done)[0])
        raise InputError(f"the schedule deadlocks: rank {int(rank_of[i])} never completes {s.describe(i)}",
                         path=path, line=int(s.lines[i]) if s.lines is not None else None,
                         hint="every receive needs a matching send, and dependencies must not form a cycle")
    return GoalResult(finish, start, end, s)


def simulate_program_loggopsim(program: Program, params: LogGP, *, O: float = 0.0, S: float = LOGGOPSIM_S,
                               timelines: bool = True) -> Any:
    """Simulate a program with LogGOPSim's rules (through its GOAL schedule)."""
    schedule = program_to_goal(program)
    res = simulate_goal(schedule, params, O=O, S=S)
    P = program.P
    comp = np.zeros(P)
    for st in program.steps:
        if isinstance(st, CompStep):
            comp += st.durations
    ops: list[list[Op]] = [[] for _ in range(P)]
    if timelines:
        msg = schedule.message if schedule.message is not None else np.full(schedule.num_ops, -1)
        keep = (schedule.kind != CALC) | (schedule.size > 0)
        rank_of = schedule.rank_of
        idx = np.flatnonzero(keep)
        idx = idx[np.lexsort((idx, res.op_start[idx], rank_of[idx]))]
        names = ("send", "recv", "comp")
        for i, h, k, m, a, b in zip(idx.tolist(), rank_of[idx].tolist(), schedule.kind[idx].tolist(),
                                    msg[idx].tolist(), res.op_start[idx].tolist(), res.op_end[idx].tolist()):
            ops[h].append(Op(names[k], None if k == CALC else m, a, b))
    return ProgramResult(P, res.finish, comp, res.finish - comp, ops)


# ---------------------------------------------------------------------------------------------
# the plain reading of LogGOPSim's main loop, kept as the reference of the kernel


class _MatchQueue:
    """LogGOPSim's posted-receive / unexpected-message queue: the first entry (in insertion order)
    whose source and tag match, with -1 matching anything on either side."""

    def __init__(self) -> None:
        self._entries: dict[int, tuple[int, int, Any]] = {}
        self._exact: dict[tuple[int, int], deque[int]] = {}
        self._wild = 0
        self._next = 0

    def push(self, src: int, tag: int, item: Any) -> None:
        key = self._next
        self._next += 1
        self._entries[key] = (src, tag, item)
        if src == ANY or tag == ANY:
            self._wild += 1
        else:
            self._exact.setdefault((src, tag), deque()).append(key)

    def _remove(self, key: int) -> Any:
        src, tag, item = self._entries.pop(key)
        if src == ANY or tag == ANY:
            self._wild -= 1
        else:
            q = self._exact[(src, tag)]
            q.remove(key) if q[0] != key else q.popleft()
        return item

    def match(self, src: int, tag: int) -> Any | None:
        if self._wild == 0 and src != ANY and tag != ANY:
            q = self._exact.get((src, tag))
            return self._remove(q[0]) if q else None
        for key, (s, t, _) in self._entries.items():
            if (src == ANY or s == ANY or s == src) and (tag == ANY or t == ANY or t == tag):
                return self._remove(key)
        return None

    def items(self) -> Iterable[tuple[int, int, Any]]:
        return self._entries.values()


_TYPE_ORDER = {"send": 1, "recv": 2, "calc": 3}


def reference_goal(schedule: GoalSchedule, params: LogGP, *, O: float = 0.0,
                   S: float = LOGGOPSIM_S) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray]]:
    """LogGOPSim's main loop in plain Python (slow, obviously right): finish, start, end per rank.
    New operations are ordered by the same emulation of its ``std::sort`` as the kernel's."""
    L, o, g, G = params.L, params.o, params.g, params.G
    ranks = schedule.ranks
    P = len(ranks)
    n_cpu = 1 + max((op.cpu for r in ranks for op in r.ops), default=0)
    n_nic = 1 + max((op.nic for r in ranks for op in r.ops), default=0)
    nexto = [[0.0] * n_cpu for _ in range(P)]
    nextgr = [[0.0] * n_nic for _ in range(P)]
    nextgs = [[0.0] * n_nic for _ in range(P)]
    need_req = [[0] * len(r.ops) for r in ranks]
    need_ireq = [[0] * len(r.ops) for r in ranks]
    dep_req: list[list[list[int]]] = [[[] for _ in r.ops] for r in ranks]
    dep_ireq: list[list[list[int]]] = [[[] for _ in r.ops] for r in ranks]
    for h, r in enumerate(ranks):
        for a, b in r.requires:
            need_req[h][a] += 1
            dep_req[h][b].append(a)
        for a, b in r.irequires:
            need_ireq[h][a] += 1
            dep_ireq[h][b].append(a)
    kinds = [np.array([_TYPE_ORDER[op.kind] for op in r.ops], dtype=np.int8) for r in ranks]
    issued = [[False] * len(r.ops) for r in ranks]
    started = [[False] * len(r.ops) for r in ranks]
    done = [[False] * len(r.ops) for r in ranks]
    start = [np.full(len(r.ops), np.nan) for r in ranks]
    end = [np.full(len(r.ops), np.nan) for r in ranks]
    rq = [_MatchQueue() for _ in range(P)]
    uq = [_MatchQueue() for _ in range(P)]
    fresh: list[list[int]] = [[] for _ in range(P)]
    aq: list[tuple[float, int, str, int, Any]] = []
    ts = 0

    def ready(h: int, i: int) -> None:
        if need_req[h][i] == 0 and need_ireq[h][i] == 0 and not issued[h][i]:
            issued[h][i] = True
            fresh[h].append(i)

    def mark_started(h: int, i: int) -> None:
        if not started[h][i]:
            started[h][i] = True
            for j in dep_ireq[h][i]:
                need_ireq[h][j] -= 1
                ready(h, j)

    def mark_done(h: int, i: int) -> None:
        mark_started(h, i)
        if not done[h][i]:
            done[h][i] = True
            for j in dep_req[h][i]:
                need_req[h][j] -= 1
                ready(h, j)

    def issue(h: int, initial: bool) -> None:
        nonlocal ts
        new = np.asarray(fresh[h], dtype=np.int64)
        _sort_like_cxx(new, kinds[h], 0, new.shape[0])
        fresh[h] = []
        for i in new.tolist():
            op = ranks[h].ops[i]
            if initial:
                t = 0.0
            elif op.kind == "send":
                t = max(nexto[h][op.cpu], nextgs[h][op.nic])
            else:
                t = nexto[h][op.cpu]
            heapq.heappush(aq, (t, ts, op.kind, h, i))
            ts += 1

    for h in range(P):
        for i in range(len(ranks[h].ops)):
            ready(h, i)
        issue(h, True)

    while aq:
        t, its, kind, h, payload = heapq.heappop(aq)
        check: set[int] = set()
        if kind == "calc":
            op = ranks[h].ops[payload]
            if nexto[h][op.cpu] <= t:
                nexto[h][op.cpu] = t + op.size
                start[h][payload], end[h][payload] = t, t + op.size
                mark_done(h, payload)
                check.add(h)
            else:
                heapq.heappush(aq, (nexto[h][op.cpu], its, kind, h, payload))
        elif kind == "send":
            op = ranks[h].ops[payload]
            if max(nexto[h][op.cpu], nextgs[h][op.nic]) <= t:
                mark_started(h, payload)
                check.add(h)
                k1 = max(op.size - 1.0, 0.0)
                nexto[h][op.cpu] = t + o + k1 * O
                nextgs[h][op.nic] = t + g + k1 * G
                start[h][payload], end[h][payload] = t, t + o + k1 * O
                msg = (h, op.peer, op.size, op.tag, payload, op.cpu, op.nic)
                heapq.heappush(aq, (t + o + L, ts, "msg", op.peer, msg))
                ts += 1
                if op.size <= S:
                    mark_done(h, payload)
            else:
                heapq.heappush(aq, (max(nexto[h][op.cpu], nextgs[h][op.nic]), its, kind, h, payload))
        elif kind == "recv":
            op = ranks[h].ops[payload]
            mark_started(h, payload)
            check.add(h)
            found = uq[h].match(op.peer, op.tag)
            if found is not None:
                src, send_idx, t_start, t_end = found
                if op.size > S:  # rendezvous: the sender's request completes now
                    mark_done(src, send_idx)
                    check.add(src)
                    nexto[src][op.cpu] = max(nexto[src][op.cpu], t)
                    nextgs[src][op.nic] = max(nextgs[src][op.nic], t)
                start[h][payload], end[h][payload] = t_start, t_end
                mark_done(h, payload)
            else:
                rq[h].push(op.peer, op.tag, payload)
        else:  # a message arriving at host h
            src, _, size, tag, send_idx, cpu, nic = payload
            if max(nexto[h][cpu], nextgr[h][nic]) <= t:
                k1 = max(size - 1.0, 0.0)
                nexto[h][cpu] = t + o + max(k1 * O, k1 * G)
                nextgr[h][nic] = t + g + k1 * G
                found = rq[h].match(src, tag)
                if found is not None:
                    if size > S:
                        mark_done(src, send_idx)
                        check.add(src)
                        nexto[src][cpu] = max(nexto[src][cpu], t)
                        nextgs[src][nic] = max(nextgs[src][nic], t)
                    start[h][found], end[h][found] = t, nexto[h][cpu]
                    mark_done(h, found)
                    check.add(h)
                else:
                    uq[h].push(src, tag, (src, send_idx, t, nexto[h][cpu]))
            else:
                heapq.heappush(aq, (max(nexto[h][cpu], nextgr[h][nic]), its, kind, h, payload))
        for host in sorted(check):
            issue(host, False)
    if not all(all(d) for d in done):
        raise InputError("the schedule deadlocks")
    return np.array([max(c) for c in nexto], dtype=np.float64), start, end
