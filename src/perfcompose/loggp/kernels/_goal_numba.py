"""LogGOPSim's main loop as one compiled kernel (see :mod:`perfcompose.loggp.goal.loggopsim` for the rules): events in
time order, ties in creation order; a run of new operations of one kind is queued as one group,
and a group blocked on its CPU or NIC moves as a whole when no other event comes between its
members, which keeps LogGOPSim's order exactly while saving most re-queueing.

Messages that wait for a busy receiver are queued per receiving (rank, NIC), in the order they
were sent, and only the first of each queue is in the heap. This gives LogGOPSim's times and
order exactly when every rank has one CPU (then no event is queued at a time before the one being
run, and the busy-until time ``F = max(nexto, nextgr)`` of a receiver only grows):

* a waiting message popped at ``k`` with ``F > k`` is re-queued at ``F`` and changes nothing
  else, so it is received at the first time ``T >= arrival`` at which ``F <= T`` when its turn
  (``T``, its stamp) comes; any key between its current one and that ``T`` leads to the same
  turn, as every re-queue lands at ``F <= T``;
* messages for one receiver arrive in stamp order (all travel ``o + L`` and are stamped when
  sent, in time order), and a later-stamped one can never be received first: at its turn the
  earlier one, already due with a smaller stamp, would have been received;
* so when a message is received, the next one of its queue is put in the heap at ``max(its
  arrival, F)``, which lies within those bounds.

With several CPUs per rank (new operations may then be queued at times before the current one)
each waiting message is re-queued by itself, as LogGOPSim does. ``_cgoal.c`` is this kernel in C
(the same order of operations, so the same times); this one runs where the extension is not
built."""
from __future__ import annotations

import numpy as np

from perfcompose._heap import heap_push
from perfcompose._jit import njit
from perfcompose.loggp.kernels._event_turns import first_after, member_turn, pop_first
from perfcompose.loggp.kernels.cxx_sort import sort_like_cxx

__all__ = ["goal_kernel"]


@njit(cache=True)
def _ready(i, need_req, need_ireq, issued, fresh, nfresh):  # pragma: no cover - compiled
    if need_req[i] == 0 and need_ireq[i] == 0 and not issued[i]:
        issued[i] = True
        fresh[nfresh] = i
        nfresh += 1
    return nfresh


@njit(cache=True)
def _release(i, flag, ptr, dep, need, need_req, need_ireq, issued, fresh, nfresh):  # pragma: no cover - compiled
    """Mark operation i (``flag``: started or done) and count it off its dependents' ``need``;
    the ones left with no requirement join ``fresh``."""
    if not flag[i]:
        flag[i] = True
        for j in range(ptr[i], ptr[i + 1]):
            d = dep[j]
            need[d] -= 1
            nfresh = _ready(d, need_req, need_ireq, issued, fresh, nfresh)
    return nfresh


@njit(cache=True)
def _mark_started(i, started, ireq_ptr, ireq_dep, need_req, need_ireq, issued, fresh, nfresh):  # pragma: no cover
    return _release(i, started, ireq_ptr, ireq_dep, need_ireq, need_req, need_ireq, issued, fresh, nfresh)


@njit(cache=True)
def _mark_done(i, started, done, req_ptr, req_dep, ireq_ptr, ireq_dep, need_req, need_ireq, issued, fresh,
               nfresh):  # pragma: no cover - compiled
    nfresh = _mark_started(i, started, ireq_ptr, ireq_dep, need_req, need_ireq, issued, fresh, nfresh)
    return _release(i, done, req_ptr, req_dep, need_req, need_req, need_ireq, issued, fresh, nfresh)


@njit(cache=True)
def _rendezvous_done(s, c, q, t, nexto, nextgs, started, done, req_ptr, req_dep, ireq_ptr, ireq_dep, need_req,
                     need_ireq, issued, fresh, nfresh):  # pragma: no cover - compiled
    """A rendezvous send ``s`` completes when its receive matches it at ``t``: its sender's CPU
    ``c`` and NIC ``q`` are busy at least until then."""
    nfresh = _mark_done(s, started, done, req_ptr, req_dep, ireq_ptr, ireq_dep, need_req, need_ireq, issued, fresh,
                        nfresh)
    nexto[c] = max(nexto[c], t)
    nextgs[q] = max(nextgs[q], t)
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
def _issue(fresh, lo, hi, kind, op_rank, initial, nexto, nextgs, cpu, nic, n_cpu, n_nic, hkey, htb, hid, hn, ts, mts,
           members, mpos, g_lo, g_hi, gfree, nfree):  # pragma: no cover - compiled
    """Push the new operations fresh[lo:hi] of one rank (in the order they became executable),
    sorted by kind as LogGOPSim sorts them. Each gets the next creation stamp; a run of
    operations of one kind, CPU and NIC (which LogGOPSim queues at one time with consecutive
    stamps) is pushed as one group, keyed by its first member."""
    sort_like_cxx(fresh, kind, lo, hi)
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
def goal_kernel(P, op_ptr, op_rank, kind, size, peer, tag, cpu, nic, key, n_keys, req_ptr, req_dep, ireq_ptr,
                 ireq_dep, need_req, need_ireq, n_cpu, n_nic, L, o, g, G, O, S, start, end, done,
                 finish):  # pragma: no cover - compiled
    n = kind.shape[0]
    nexto = np.zeros(P * n_cpu)
    nextgs = np.zeros(P * n_nic)
    nextgr = np.zeros(P * n_nic)
    issued = np.zeros(n, np.bool_)
    started = np.zeros(n, np.bool_)
    most = 0  # the most operations of one rank: an event frees at most those of two ranks
    for h in range(P):
        most = max(most, op_ptr[h + 1] - op_ptr[h])
    fresh = np.empty(4 * most + 2, np.int32)
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
    # the operations' times are kept only where the caller asked for them (arrays of n, else of 1:
    # every write goes to index i * kp)
    kp = 1 if start.shape[0] == n else 0
    u_t0 = np.zeros(max(n * kp, 1))
    u_t1 = np.zeros(max(n * kp, 1))
    cap = n + 1  # queued: each operation in at most one group, and each send's message
    for i in range(n):
        if kind[i] == 0:
            cap += 1
    hkey = np.empty(cap)
    htb = np.empty(cap)
    hid = np.empty(cap, np.int32)
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
    # with one CPU per rank, messages that wait for the same receiving CPU and NIC are received in
    # the order they were sent (see the module's note): they queue per receiver, only the first in
    # the heap; with more CPUs (events can then be issued at times before the current one) each
    # waiting message is re-queued by itself, as LogGOPSim does
    fifo = n_cpu == 1
    n_res = P * n_cpu * n_nic if fifo else 1
    w_head = np.full(n_res, -1, np.int32)
    w_tail = np.full(n_res, -1, np.int32)
    w_next = np.full(n if fifo else 1, -1, np.int32)
    arrive = np.zeros(n if fifo else 1)
    pops = 0
    msg_waits = 0
    carry = False  # the next member of the group just run is the next event (no heap round trip)
    grp = 0  # the group whose next member is carried over
    while hn > 0 or carry:  # the first turn takes an event off the heap, setting t and its
        if carry:
            carry = False
            its = float(mts[members[g_lo[grp]]])
        else:
            pops += 1
            t, its, grp, hn = pop_first(hkey, htb, hid, hn)
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
                start[i * kp] = t
                end[i * kp] = t + size[i]
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
                start[i * kp] = t
                end[i * kp] = t + o + k1 * O
                if fifo:  # the message joins its receiver's queue; only the queue's head is in the heap
                    r = (peer[i] * n_cpu + cpu[i]) * n_nic + nic[i]
                    mts[i] = ts  # from here on the send's stamp is its message's
                    arrive[i] = t + o + L
                    w_next[i] = -1
                    if w_tail[r] >= 0:
                        w_next[w_tail[r]] = i
                    else:
                        w_head[r] = i
                        hn = heap_push(hkey, htb, hid, 0, hn, t + o + L, float(ts), gmax + i)
                    w_tail[r] = i
                else:
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
                    nf = _rendezvous_done(found, src * n_cpu + cpu[i], src * n_nic + nic[i], t, nexto, nextgs,
                                          started, done, req_ptr, req_dep, ireq_ptr, ireq_dep, need_req, need_ireq,
                                          issued, fresh, nf)
                    h2 = src
                start[i * kp] = u_t0[found * kp]
                end[i * kp] = u_t1[found * kp]
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
                        nf = _rendezvous_done(s, src * n_cpu + cpu[s], src * n_nic + nic[s], t, nexto, nextgs,
                                              started, done, req_ptr, req_dep, ireq_ptr, ireq_dep, need_req,
                                              need_ireq, issued, fresh, nf)
                        h2 = src
                    start[found * kp] = t
                    end[found * kp] = nexto[c]
                    nf = _mark_done(found, started, done, req_ptr, req_dep, ireq_ptr, ireq_dep, need_req, need_ireq,
                                    issued, fresh, nf)
                    h1 = h
                else:
                    _append(s, uq_head, uq_tail, h_next, h_prev, h)
                    _append(s, uk_head, uk_tail, k_next, k_prev, key[s])
                    u_t0[s * kp] = t
                    u_t1[s * kp] = nexto[c]
                if fifo:  # the next message waiting for this CPU and NIC, from when they are free
                    r = (h * n_cpu + cpu[s]) * n_nic + nic[s]
                    w = w_next[s]
                    w_head[r] = w
                    if w < 0:
                        w_tail[r] = -1
                    else:
                        hn = heap_push(hkey, htb, hid, 0, hn, max(arrive[w], max(nexto[c], nextgr[q])),
                                       float(mts[w]), gmax + w)
            else:
                msg_waits += 1
                hn = heap_push(hkey, htb, hid, 0, hn, max(nexto[c], nextgr[q]), its, grp)
        if grp < gmax:
            if ok:  # the next member's turn, at the same time
                g_lo[grp] += 1
                if g_lo[grp] < g_hi[grp]:
                    hn, carry = member_turn(hkey, htb, hid, hn, t, float(mts[members[g_lo[grp]]]), grp)
                else:
                    gfree[nfree] = grp
                    nfree += 1
            elif g_hi[grp] - g_lo[grp] == 1 or first_after(hkey, htb, hn, t, mts[members[g_hi[grp] - 1]]):
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
