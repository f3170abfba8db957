"""The step simulators compiled by Numba, the implementation used where the C extension
(``_cstep.c``, the same kernels line for line) is not built: Figure 2's kernel, section 4.2's, and
what they share: the gaps of section 3 (Figure 1) and the loop that drains a processor's arrived
messages in arrival order; the heap itself is :mod:`perfcompose._heap`. Imported only by
:mod:`.backend`, so that a process running the compiled extension never loads Numba."""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from perfcompose._heap import heap_pop, heap_push

__all__ = ["gaps_after_receive", "gaps_after_send", "receive_first", "drain", "standard_kernel", "worst_kernel"]


@njit(cache=True)
def gaps_after_receive(o, g, end_origin):  # pragma: no cover - compiled
    """How long after a receive starts the next send and the next receive may start (Figure 1)."""
    if end_origin:
        send = o + max(2.0 * o, g) - 2.0 * o
    else:
        send = max(o, max(2.0 * o, g) - 2.0 * o)
    return send, max(o, g)


@njit(cache=True)
def gaps_after_send(o, g, k1G, end_origin):  # pragma: no cover - compiled
    """How long after a send of k bytes starts (``k1G`` = (k-1)G) the next send and the next
    receive may start (Figure 1)."""
    send = max(o, g + k1G)
    return send, (o + k1G + g) if end_origin else send


@njit(cache=True)
def receive_first(p, tr, rkey, rtb, rid, rsize, base, next_send, recv_ready, finish, recv_start, recv_seq, seq, o,
                  send_gap_after_recv, recv_gap_after_recv):  # pragma: no cover - compiled
    """Processor p receives the first message of its arrival heap (at ``base``) at ``tr``;
    ``seq`` numbers the operations; returns the next number."""
    m = rid[base]
    rsize[p] = heap_pop(rkey, rtb, rid, base, rsize[p])
    recv_start[m] = tr
    recv_seq[m] = seq
    next_send[p] = tr + send_gap_after_recv
    recv_ready[p] = tr + recv_gap_after_recv
    finish[p] = tr + o
    return seq + 1


@njit(cache=True)
def drain(p, rkey, rtb, rid, rsize, recv_ptr, next_send, recv_ready, finish, recv_start, recv_seq, seq, o,
          send_gap_after_recv, recv_gap_after_recv):  # pragma: no cover - compiled
    """Processor p receives every message in its arrival heap, in arrival order, each as early as
    its gap allows; returns the next operation number."""
    base = recv_ptr[p]
    while rsize[p] > 0:
        seq = receive_first(p, max(recv_ready[p], rkey[base]), rkey, rtb, rid, rsize, base, next_send, recv_ready,
                            finish, recv_start, recv_seq, seq, o, send_gap_after_recv, recv_gap_after_recv)
    return seq


@njit(cache=True)
def standard_kernel(P, dst, nbytes, order, send_ptr, recv_ptr, t0, L, o, g, G, end_origin, random_ties,
                     seed, send_start, recv_start, send_seq, recv_seq, finish, next_send,
                     recv_ready):  # pragma: no cover - compiled
    M = dst.shape[0]
    pos = send_ptr[:P].copy()
    rsize = np.zeros(P, np.int64)
    rkey = np.empty(M, np.float64)
    rtb = np.empty(M, np.float64)
    rid = np.empty(M, np.int64)
    hkey = np.empty(P, np.float64)
    htb = np.empty(P, np.float64)
    hid = np.empty(P, np.int64)
    hn = 0
    if random_ties:
        np.random.seed(seed)
    for p in range(P):
        finish[p] = t0[p]
        next_send[p] = max(next_send[p], t0[p])
        recv_ready[p] = max(recv_ready[p], t0[p])
        if send_ptr[p + 1] > send_ptr[p]:
            tb = np.random.random() if random_ties else float(p)
            hn = heap_push(hkey, htb, hid, 0, hn, next_send[p], tb, p)
    send_gap_after_recv, recv_gap_after_recv = gaps_after_receive(o, g, end_origin)
    seq = 0
    arrivals = 0
    while hn > 0:
        p = hid[0]
        ts = hkey[0]
        hn = heap_pop(hkey, htb, hid, 0, hn)
        base = recv_ptr[p]
        tr = math.inf
        if rsize[p] > 0:
            tr = max(recv_ready[p], rkey[base])
        if ts < tr:  # SEND (a receive that could start as early wins)
            m = order[pos[p]]
            pos[p] += 1
            k1G = max(nbytes[m] - 1.0, 0.0) * G
            send_start[m] = ts
            send_seq[m] = seq
            seq += 1
            d = dst[m]
            rsize[d] = heap_push(rkey, rtb, rid, recv_ptr[d], rsize[d], ts + o + k1G + L, float(arrivals), m)
            arrivals += 1
            send_gap, recv_gap = gaps_after_send(o, g, k1G, end_origin)
            next_send[p] = ts + send_gap
            recv_ready[p] = ts + recv_gap
            finish[p] = ts + o
        else:  # RECEIVE
            seq = receive_first(p, tr, rkey, rtb, rid, rsize, base, next_send, recv_ready, finish, recv_start,
                                recv_seq, seq, o, send_gap_after_recv, recv_gap_after_recv)
        if pos[p] < send_ptr[p + 1]:
            tb = np.random.random() if random_ties else float(p)
            hn = heap_push(hkey, htb, hid, 0, hn, next_send[p], tb, p)
    for p in range(P):  # drain the remaining receives
        seq = drain(p, rkey, rtb, rid, rsize, recv_ptr, next_send, recv_ready, finish, recv_start, recv_seq, seq, o,
                    send_gap_after_recv, recv_gap_after_recv)
    return seq


@njit(cache=True)
def worst_kernel(P, dst, nbytes, order, send_ptr, recv_ptr, L, o, g, G, end_origin, forced,
                  sent, waiting, rkey, rtb, rid, rsize, next_send, recv_ready, finish,
                  send_start, recv_start, send_seq, recv_seq, counters, stack):  # pragma: no cover - compiled
    send_gap_after_recv, recv_gap_after_recv = gaps_after_receive(o, g, end_origin)
    sp = 0
    if forced >= 0:
        stack[sp] = forced
        sp += 1
    else:
        for p in range(P):
            if not sent[p] and waiting[p] == 0:
                stack[sp] = p
                sp += 1
    while sp > 0:
        sp -= 1
        p = stack[sp]
        counters[0] = drain(p, rkey, rtb, rid, rsize, recv_ptr, next_send, recv_ready, finish, recv_start, recv_seq,
                            counters[0], o, send_gap_after_recv, recv_gap_after_recv)
        if sent[p]:  # a forced processor whose last messages have now been sent to it
            continue
        sent[p] = True
        for i in range(send_ptr[p], send_ptr[p + 1]):
            m = order[i]
            ts = next_send[p]
            k1G = max(nbytes[m] - 1.0, 0.0) * G
            send_start[m] = ts
            send_seq[m] = counters[0]
            counters[0] += 1
            d = dst[m]
            rsize[d] = heap_push(rkey, rtb, rid, recv_ptr[d], rsize[d], ts + o + k1G + L, float(m), m)
            counters[1] += 1
            send_gap, recv_gap = gaps_after_send(o, g, k1G, end_origin)
            next_send[p] = ts + send_gap
            recv_ready[p] = ts + recv_gap
            finish[p] = ts + o
            waiting[d] -= 1
            if waiting[d] == 0:
                stack[sp] = d
                sp += 1
    remaining = 0
    for p in range(P):
        if not sent[p]:
            remaining += 1
    return remaining
