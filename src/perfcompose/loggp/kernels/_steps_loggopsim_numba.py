"""LogGOPSim's main loop run directly on a program's steps (the Numba form of the C function
``perfcompose.loggp.kernels._cstep.loggopsim_steps``; the same algorithm, the same finish times).

It is the event loop of :mod:`._goal_numba` on the GOAL schedule that
:func:`~perfcompose.loggp.goal.schedule.program_to_goal` writes, with that schedule's structure used
instead of stored: per rank and step, the sends in send order and the receives in message order
become executable together when the zero-length ``calc`` that ends the rank's previous step
completes, are ordered as LogGOPSim's ``std::sort`` orders them (:mod:`.cxx_sort`) and queued as
one group of sends and one of receives; that ``calc`` is issued when the step's last operation
completes. A message's tag is its id, so a receive matches exactly one message: a flag per
message stands for LogGOPSim's posted-receive and unexpected-message queues. Every event gets the
creation stamp the GOAL loop gives it, so ties fall the same way. Only finish times are computed.
"""
from __future__ import annotations

import numpy as np

from perfcompose._heap import heap_push
from perfcompose._jit import njit
from perfcompose.loggp.kernels._event_turns import first_after, member_turn, pop_first
from perfcompose.loggp.kernels.cxx_sort import sort_like_cxx

__all__ = ["loggopsim_steps_kernel"]

_SEND, _RECV, _CALC, _BARRIER = 0, 1, 2, 3
_POSTED, _ARRIVED = 1, 2


@njit(cache=True)
def _next_step(h, k, P, kinds, comm_of, send_ptr, recv_ptr):  # pragma: no cover - compiled
    """The first step from ``k`` in which rank h has an operation (every computation step, and
    the communication steps it sends or receives in), or the number of steps."""
    nsteps = kinds.shape[0]
    while k < nsteps:
        if kinds[k] == 0:
            return k
        b = comm_of[k] * (P + 1) + h
        if send_ptr[b + 1] > send_ptr[b] or recv_ptr[b + 1] > recv_ptr[b]:
            return k
        k += 1
    return k


@njit(cache=True)
def _room(gt, gfree, nfree, hkey, htb, hid, need, P):  # pragma: no cover - compiled
    """The group table, its free list and the heap, grown (doubled) where fewer than ``need``
    groups are free."""
    if nfree >= need:
        return gt, gfree, nfree, hkey, htb, hid
    old = gt.shape[0]
    cap = 2 * old
    gt2 = np.empty((cap, 5), np.int64)
    gt2[:old] = gt
    gfree2 = np.empty(cap, np.int64)
    gfree2[:nfree] = gfree[:nfree]
    for j in range(old):
        gfree2[nfree + j] = cap - 1 - j
    hcap = cap + P + 1
    hkey2 = np.empty(hcap)
    htb2 = np.empty(hcap)
    hid2 = np.empty(hcap, np.int64)
    hkey2[:hkey.shape[0]] = hkey
    htb2[:htb.shape[0]] = htb
    hid2[:hid.shape[0]] = hid
    return gt2, gfree2, nfree + old, hkey2, htb2, hid2


@njit(cache=True)
def _new_group(gt, gfree, nfree, h, kind, lo, hi, base):  # pragma: no cover - compiled
    nfree -= 1
    gr = gfree[nfree]
    gt[gr, 0], gt[gr, 1], gt[gr, 2], gt[gr, 3], gt[gr, 4] = h, kind, lo, hi, base
    return gr, nfree


@njit(cache=True)
def _issue_step(h, initial, k, P, kinds, comm_of, send_ptr, recv_ptr, left, pool, pool_off, key, nexto, nextgs, gt,
                gfree, nfree, hkey, htb, hid, hn, ts):  # pragma: no cover - compiled
    """Queue rank h's operations of step k, which have just become executable: a computation
    step's calc, or the sends (one group) and the receives (another), in the order LogGOPSim's
    sort leaves them, with consecutive stamps. The caller makes room for two groups."""
    if kinds[k] == 0:
        left[h] = 1
        gr, nfree = _new_group(gt, gfree, nfree, h, _CALC, 0, 1, ts)
        hn = heap_push(hkey, htb, hid, 0, hn, 0.0 if initial else nexto[h], float(ts), gr)
        return hn, ts + 1, nfree
    b = comm_of[k] * (P + 1) + h
    ns = send_ptr[b + 1] - send_ptr[b]
    nr = recv_ptr[b + 1] - recv_ptr[b]
    cnt = ns + nr
    left[h] = cnt
    if cnt > 16:
        off = pool_off[h]
        for j in range(cnt):
            pool[off + j] = j
            key[j] = 0 if j < ns else 1
        sort_like_cxx(pool, key, off, off + cnt)
    if ns > 0:
        gr, nfree = _new_group(gt, gfree, nfree, h, _SEND, 0, ns, ts)
        hn = heap_push(hkey, htb, hid, 0, hn, 0.0 if initial else max(nexto[h], nextgs[h]), float(ts), gr)
        ts += ns
    if nr > 0:
        gr, nfree = _new_group(gt, gfree, nfree, h, _RECV, ns, cnt, ts - ns)
        hn = heap_push(hkey, htb, hid, 0, hn, 0.0 if initial else nexto[h], float(ts), gr)
        ts += nr
    return hn, ts, nfree


@njit(cache=True)
def loggopsim_steps_kernel(P, kinds, msg_ptr, src, dst, nbytes, order, durations, L, o, g, G, O, S,
                           finish):  # pragma: no cover - compiled
    """Finish times of every rank (written to ``finish``) under LogGOPSim's rules. ``kinds`` per
    step: 0 computation, 1 communication; a communication step k holds the messages
    ``msg_ptr[k]:msg_ptr[k+1]`` of ``src``, ``dst``, ``nbytes`` and ``order`` (each sender's
    messages in its send order, by their index within the step); computation step number c (in
    the order of the computation steps) takes ``durations[c*P:(c+1)*P]``. Returns the number of
    ranks left unfinished (0), or -1 where ``order`` does not list each message once under its
    sender, -2 where a rank is out of range."""
    nsteps = kinds.shape[0]
    comm_of = np.full(nsteps, -1, np.int64)  # a step's number among the communication (or computation) steps
    ncomm = 0
    ncomp = 0
    for k in range(nsteps):
        if kinds[k] == 1:
            comm_of[k] = ncomm
            ncomm += 1
        else:
            comm_of[k] = ncomp
            ncomp += 1
    M = src.shape[0]
    # per communication step: each rank's sends (CSR over ``order``) and receives (message order)
    send_ptr = np.zeros(ncomm * (P + 1), np.int32)
    recv_ptr = np.zeros(ncomm * (P + 1), np.int32)
    recv_list = np.empty(M, np.int32)
    fill = np.zeros(P, np.int32)
    seen = np.zeros(M, np.int8)
    need = np.zeros(P, np.int64)  # the most operations rank h has in one step, where over 16
    for k in range(nsteps):
        if kinds[k] != 1:
            continue
        b = comm_of[k] * (P + 1)
        lo, hi = msg_ptr[k], msg_ptr[k + 1]
        for m in range(lo, hi):
            if src[m] < 0 or src[m] >= P or dst[m] < 0 or dst[m] >= P:
                return -2
            send_ptr[b + src[m] + 1] += 1
            recv_ptr[b + dst[m] + 1] += 1
        for h in range(P):
            send_ptr[b + h + 1] += send_ptr[b + h]
            recv_ptr[b + h + 1] += recv_ptr[b + h]
            fill[h] = 0
        for m in range(lo, hi):
            d = dst[m]
            recv_list[lo + recv_ptr[b + d] + fill[d]] = m - lo
            fill[d] += 1
        for h in range(P):
            for j in range(send_ptr[b + h], send_ptr[b + h + 1]):
                e = order[lo + j]
                if e < 0 or e >= hi - lo or src[lo + e] != h or seen[lo + e] != 0:
                    return -1
                seen[lo + e] = 1
            cnt = send_ptr[b + h + 1] - send_ptr[b + h] + recv_ptr[b + h + 1] - recv_ptr[b + h]
            if cnt > 16 and cnt > need[h]:
                need[h] = cnt
    pool_off = np.zeros(P + 1, np.int64)  # each rank's room for the order its operations are issued in
    most = 1
    for h in range(P):
        pool_off[h + 1] = pool_off[h] + need[h]
        most = max(most, need[h])
    pool = np.empty(pool_off[P], np.int32)
    key = np.empty(most, np.int8)
    # the state of the run
    nexto = np.zeros(P)
    nextgs = np.zeros(P)
    nextgr = np.zeros(P)
    cur = np.zeros(P, np.int64)  # the step each rank is in (nsteps: finished)
    left = np.zeros(P, np.int64)  # its operations of that step not yet done
    pend = np.zeros(P, np.int8)  # what an event made executable: 1 the step's end, 2 the next step
    state = seen  # each message's receive posted, or its arrival unexpected
    state[:] = 0
    mts = np.zeros(M)  # a message's stamp and arrival, and the next one for its receiver
    arrive = np.zeros(M)
    w_next = np.full(M, -1, np.int32)
    w_tail = np.full(P, -1, np.int32)
    cap = 2 * P + 64
    gt = np.zeros((cap, 5), np.int64)  # groups: rank, kind, lo, hi, stamp base (member j's stamp: base + j)
    gfree = np.arange(cap - 1, -1, -1).astype(np.int64)
    nfree = cap
    hkey = np.empty(cap + P + 1)
    htb = np.empty(cap + P + 1)
    hid = np.empty(cap + P + 1, np.int64)  # a group's id, or -(m+1) for the message m
    hn = 0
    ts = 0
    unfinished = 0
    for h in range(P):  # the initial issue, rank by rank, at time 0
        k = _next_step(h, 0, P, kinds, comm_of, send_ptr, recv_ptr)
        cur[h] = k
        if k < nsteps:
            unfinished += 1
            gt, gfree, nfree, hkey, htb, hid = _room(gt, gfree, nfree, hkey, htb, hid, 2, P)
            hn, ts, nfree = _issue_step(h, True, k, P, kinds, comm_of, send_ptr, recv_ptr, left, pool, pool_off, key,
                                        nexto, nextgs, gt, gfree, nfree, hkey, htb, hid, hn, ts)
    carry = False
    grp = 0  # the group whose next member is carried over
    while hn > 0 or carry:  # the first turn takes an event off the heap, setting t and its
        if carry:
            carry = False
            its = float(gt[grp, 4] + gt[grp, 2])
        else:
            t, its, grp, hn = pop_first(hkey, htb, hid, hn)
        ok = True  # whether the operation ran (else it waits for its CPU or NIC until t_wait)
        t_wait = 0.0
        h1 = -1  # the ranks to issue new operations of (the event's, and a sender's)
        h2 = -1
        matched = False  # a receive met its message (m, at rank h)
        if grp >= 0:
            h = gt[grp, 0]
            gk = gt[grp, 1]
            k = cur[h]
            if gk == _CALC or gk == _BARRIER:
                if nexto[h] <= t:
                    nexto[h] = t + (durations[comm_of[k] * P + h] if gk == _CALC else 0.0)
                    h1 = h
                    if gk == _CALC:
                        pend[h] = 1
                    else:
                        nk = _next_step(h, k + 1, P, kinds, comm_of, send_ptr, recv_ptr)
                        cur[h] = nk
                        if nk < nsteps:
                            pend[h] = 2
                        else:
                            unfinished -= 1
                else:
                    ok = False
                    t_wait = nexto[h]
            else:
                b = comm_of[k] * (P + 1) + h
                lo = msg_ptr[k]
                ns = send_ptr[b + 1] - send_ptr[b]
                j = gt[grp, 2]
                if ns + recv_ptr[b + 1] - recv_ptr[b] > 16:
                    j = pool[pool_off[h] + j]
                if gk == _SEND:
                    m = lo + order[lo + send_ptr[b] + j]
                    if max(nexto[h], nextgs[h]) <= t:
                        h1 = h
                        k1 = max(nbytes[m] - 1.0, 0.0)
                        nexto[h] = t + o + k1 * O
                        nextgs[h] = t + g + k1 * G
                        r = dst[m]  # the message joins its receiver's queue; only the queue's head is in the heap
                        mts[m] = ts
                        arrive[m] = t + o + L
                        w_next[m] = -1
                        if w_tail[r] >= 0:
                            w_next[w_tail[r]] = m
                        else:
                            hn = heap_push(hkey, htb, hid, 0, hn, t + o + L, float(ts), -(m + 1))
                        w_tail[r] = m
                        ts += 1
                        if nbytes[m] <= S:
                            left[h] -= 1
                            if left[h] == 0:
                                pend[h] = 1
                    else:
                        ok = False
                        t_wait = max(nexto[h], nextgs[h])
                else:  # a receive is posted
                    m = lo + recv_list[lo + recv_ptr[b] + j - ns]
                    h1 = h
                    if state[m] == _ARRIVED:
                        matched = True
                    else:
                        state[m] = _POSTED
        else:  # the message m arrives at rank h
            m = -grp - 1
            h = dst[m]
            if max(nexto[h], nextgr[h]) <= t:
                k1 = max(nbytes[m] - 1.0, 0.0)
                nexto[h] = t + o + max(k1 * O, k1 * G)
                nextgr[h] = t + g + k1 * G
                if state[m] == _POSTED:
                    matched = True
                    h1 = h
                else:
                    state[m] = _ARRIVED
                w = w_next[m]  # the next message waiting for this receiver, from when it is free
                if w < 0:
                    w_tail[h] = -1
                else:
                    hn = heap_push(hkey, htb, hid, 0, hn, max(arrive[w], max(nexto[h], nextgr[h])), mts[w], -(w + 1))
            else:
                hn = heap_push(hkey, htb, hid, 0, hn, max(nexto[h], nextgr[h]), its, grp)
        if matched:  # the message m's send and receive (at rank h) meet at t
            if nbytes[m] > S:  # rendezvous: the sender's request completes now (its sender busy until then)
                h2 = src[m]
                left[h2] -= 1
                if left[h2] == 0:
                    pend[h2] = 1
                nexto[h2] = max(nexto[h2], t)
                nextgs[h2] = max(nextgs[h2], t)
            left[h] -= 1
            if left[h] == 0:
                pend[h] = 1
        if grp >= 0:
            if ok:  # the next member's turn, at the same time
                gt[grp, 2] += 1
                if gt[grp, 2] < gt[grp, 3]:
                    hn, carry = member_turn(hkey, htb, hid, hn, t, float(gt[grp, 4] + gt[grp, 2]), grp)
                else:
                    gfree[nfree] = grp
                    nfree += 1
            elif gt[grp, 3] - gt[grp, 2] == 1 or first_after(hkey, htb, hn, t, float(gt[grp, 4] + gt[grp, 3] - 1)):
                hn = heap_push(hkey, htb, hid, 0, hn, t_wait, its, grp)  # the group moves as a whole
            else:  # another event comes between the members: the first one waits alone
                gt, gfree, nfree, hkey, htb, hid = _room(gt, gfree, nfree, hkey, htb, hid, 1, P)
                lo = gt[grp, 2]
                g1, nfree = _new_group(gt, gfree, nfree, gt[grp, 0], gt[grp, 1], lo, lo + 1, gt[grp, 4])
                hn = heap_push(hkey, htb, hid, 0, hn, t_wait, its, g1)
                gt[grp, 2] += 1
                hn = heap_push(hkey, htb, hid, 0, hn, t, float(gt[grp, 4] + gt[grp, 2]), grp)
        # issue what became executable, rank by rank in ascending order
        if h1 >= 0 and h2 >= 0 and h2 < h1:
            h1, h2 = h2, h1
        for hh in (h1, h2):
            if hh < 0 or pend[hh] == 0:
                continue
            gt, gfree, nfree, hkey, htb, hid = _room(gt, gfree, nfree, hkey, htb, hid, 2, P)
            if pend[hh] == 1:  # the step's closing calc
                gr, nfree = _new_group(gt, gfree, nfree, hh, _BARRIER, 0, 1, ts)
                hn = heap_push(hkey, htb, hid, 0, hn, nexto[hh], float(ts), gr)
                ts += 1
            else:
                hn, ts, nfree = _issue_step(hh, False, cur[hh], P, kinds, comm_of, send_ptr, recv_ptr, left, pool,
                                            pool_off, key, nexto, nextgs, gt, gfree, nfree, hkey, htb, hid, hn, ts)
            pend[hh] = 0
    for h in range(P):
        finish[h] = nexto[h]
    return unfinished
