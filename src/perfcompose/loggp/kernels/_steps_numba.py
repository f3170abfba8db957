"""The step simulators compiled by Numba, the implementation used where the C extension
(``_cstep.c``, the same kernels line for line) is not built: Figure 2's kernel, section 4.2's, and
what they share: the gaps of section 3 (Figure 1), the loop that drains a processor's arrived
messages in arrival order, and the heaps. A heap keeps each (key, tie-break, id) entry together,
as the extension does: three float64 in a row (the id exact as a float below 2^53), so that a
comparison and a move touch one cache line where three arrays touched three. What runs once a
message is inlined where Numba compiles the kernel (no call, and no reference counting of the
arrays passed, per message), and what the next action reads is fetched ahead (:func:`prefetch`, the
cache hint of the extension's ``__builtin_prefetch``). Imported only by
:mod:`.backend`, so that a process running the compiled extension never loads Numba. Without Numba
(perfcompose's ``numba`` extra) the same functions run as plain Python (:mod:`perfcompose._jit`)."""
from __future__ import annotations

import math

import numpy as np

from perfcompose._jit import njit, prefetch

__all__ = ["prefetch", "heap_push", "heap_replace_top", "heap_pop", "gaps_after_receive", "gaps_after_send",
           "receive_first", "drain", "standard_kernel", "worst_kernel"]


@njit(cache=True, inline="always")
def _rise(h, base, i, key, tb, ident):  # pragma: no cover - compiled
    """Put (key, tb, ident) into the hole at entry ``i`` of the heap from entry ``base`` of ``h``,
    first moving down into the hole each parent that the entry comes before (smaller key, then
    smaller tie-break)."""
    while i > 0:
        parent = (i - 1) >> 1
        q = 3 * (base + parent)
        pk = h[q]
        if not (key < pk or (key == pk and tb < h[q + 1])):
            break
        j = 3 * (base + i)
        h[j] = pk
        h[j + 1] = h[q + 1]
        h[j + 2] = h[q + 2]
        i = parent
    j = 3 * (base + i)
    h[j] = key
    h[j + 1] = tb
    h[j + 2] = ident


@njit(cache=True, inline="always")
def heap_push(h, base, n, key, tb, ident):  # pragma: no cover - compiled
    """Add (key, tb, ident) to the heap of ``n`` entries from entry ``base`` of ``h`` (three float64
    an entry); smallest key first, then tie-break. Returns the new size."""
    _rise(h, base, n, key, tb, ident)
    return n + 1


@njit(cache=True, inline="always")
def heap_replace_top(h, base, n, key, tb, ident):  # pragma: no cover - compiled
    """Put (key, tb, ident) in place of the first entry of the heap of ``n`` entries from
    ``base``. Bottom-up: the hole goes down to a leaf along the smaller children (one comparison
    a level), and the new entry, which mostly belongs near the bottom, rises from there. The order
    the entries come out in is the same as with a sift-down from the root, since no two entries
    tie on both key and tie-break (arrival numbers, message ids and ranks are distinct, and random
    tie-breaks are 53-bit draws)."""
    i = 0
    c = 1
    while c < n:
        a = 3 * (base + c)
        if c + 1 < n and (h[a + 3] < h[a] or (h[a + 3] == h[a] and h[a + 4] < h[a + 1])):
            c += 1
            a += 3
        j = 3 * (base + i)
        h[j] = h[a]
        h[j + 1] = h[a + 1]
        h[j + 2] = h[a + 2]
        i = c
        c = 2 * i + 1
    _rise(h, base, i, key, tb, ident)


@njit(cache=True, inline="always")
def heap_pop(h, base, n):  # pragma: no cover - compiled
    """Remove the first entry of the heap of ``n`` entries from ``base`` (read it first): the last
    entry takes its place (:func:`heap_replace_top`). Returns the new size."""
    n -= 1
    if n > 0:
        q = 3 * (base + n)
        heap_replace_top(h, base, n, h[q], h[q + 1], h[q + 2])
    return n


@njit(cache=True, inline="always")
def gaps_after_receive(o, g, end_origin):  # pragma: no cover - compiled
    """How long after a receive starts the next send and the next receive may start (Figure 1)."""
    if end_origin:
        send = o + max(2.0 * o, g) - 2.0 * o
    else:
        send = max(o, max(2.0 * o, g) - 2.0 * o)
    return send, max(o, g)


@njit(cache=True, inline="always")
def gaps_after_send(o, g, k1G, end_origin):  # pragma: no cover - compiled
    """How long after a send of k bytes starts (``k1G`` = (k-1)G) the next send and the next
    receive may start (Figure 1)."""
    send = max(o, g + k1G)
    return send, (o + k1G + g) if end_origin else send


@njit(cache=True, inline="always")
def receive_first(p, tr, rheap, rsize, base, next_send, recv_ready, finish, recv_start, recv_seq, seq, o,
                  send_gap_after_recv, recv_gap_after_recv):  # pragma: no cover - compiled
    """Processor p receives the first message of its arrival heap (from entry ``base``) at ``tr``;
    ``seq`` numbers the operations; returns the next number."""
    m = int(rheap[3 * base + 2])
    rsize[p] = heap_pop(rheap, base, rsize[p])
    recv_start[m] = tr
    recv_seq[m] = seq
    next_send[p] = tr + send_gap_after_recv
    recv_ready[p] = tr + recv_gap_after_recv
    finish[p] = tr + o
    return seq + 1


@njit(cache=True)
def drain(p, rheap, rsize, recv_ptr, next_send, recv_ready, finish, recv_start, recv_seq, seq, o,
          send_gap_after_recv, recv_gap_after_recv):  # pragma: no cover - compiled
    """Processor p receives every message in its arrival heap, in arrival order, each as early as
    its gap allows; returns the next operation number. The heap, filled long before, is fetched
    as a whole first, and the messages that may come next (the root's children) have their
    output lines fetched while the root's are written."""
    base = recv_ptr[p]
    for j in range(3 * base, 3 * (base + rsize[p]), 8):
        prefetch(rheap, j)
    while rsize[p] > 0:
        if rsize[p] > 2:
            for c in (int(rheap[3 * base + 5]), int(rheap[3 * base + 8])):
                prefetch(recv_start, c)
                prefetch(recv_seq, c)
        seq = receive_first(p, max(recv_ready[p], rheap[3 * base]), rheap, rsize, base, next_send, recv_ready,
                            finish, recv_start, recv_seq, seq, o, send_gap_after_recv, recv_gap_after_recv)
    return seq


@njit(cache=True)
def standard_kernel(P, dst, nbytes, order, send_ptr, recv_ptr, t0, L, o, g, G, end_origin, random_ties,
                     seed, send_start, recv_start, send_seq, recv_seq, finish, next_send,
                     recv_ready):  # pragma: no cover - compiled
    M = dst.shape[0]
    pos = send_ptr[:P].copy()
    rsize = np.zeros(P, np.int64)
    rheap = np.empty(3 * M, np.float64)
    senders = np.empty(3 * P, np.float64)
    hn = 0
    if random_ties:
        np.random.seed(seed)
    for p in range(P):
        finish[p] = t0[p]
        next_send[p] = max(next_send[p], t0[p])
        recv_ready[p] = max(recv_ready[p], t0[p])
        if send_ptr[p + 1] > send_ptr[p]:
            tb = np.random.random() if random_ties else float(p)
            hn = heap_push(senders, 0, hn, next_send[p], tb, p)
    send_gap_after_recv, recv_gap_after_recv = gaps_after_receive(o, g, end_origin)
    seq = 0
    arrivals = 0
    while hn > 0:
        p = int(senders[2])  # stays first until its next send time is known (replaced, not popped and pushed)
        ts = senders[0]
        base = recv_ptr[p]
        tr = math.inf
        if rsize[p] > 0:
            tr = max(recv_ready[p], rheap[3 * base])
        if ts < tr:  # SEND (a receive that could start as early wins)
            m = order[pos[p]]
            pos[p] += 1
            k1G = max(nbytes[m] - 1.0, 0.0) * G
            send_start[m] = ts
            send_seq[m] = seq
            seq += 1
            d = dst[m]
            rsize[d] = heap_push(rheap, recv_ptr[d], rsize[d], ts + o + k1G + L, float(arrivals), m)
            arrivals += 1
            send_gap, recv_gap = gaps_after_send(o, g, k1G, end_origin)
            next_send[p] = ts + send_gap
            recv_ready[p] = ts + recv_gap
            finish[p] = ts + o
        else:  # RECEIVE
            seq = receive_first(p, tr, rheap, rsize, base, next_send, recv_ready, finish, recv_start, recv_seq, seq,
                                o, send_gap_after_recv, recv_gap_after_recv)
        if pos[p] < send_ptr[p + 1]:
            tb = np.random.random() if random_ties else float(p)
            heap_replace_top(senders, 0, hn, next_send[p], tb, p)
        else:
            hn = heap_pop(senders, 0, hn)
        if hn > 0:  # the next to act: its first arrival and its next message, fetched ahead
            pn = int(senders[2])
            prefetch(rheap, 3 * recv_ptr[pn])
            mn = order[pos[pn]]
            prefetch(nbytes, mn)
            prefetch(dst, mn)
    for p in range(P):  # drain the remaining receives
        seq = drain(p, rheap, rsize, recv_ptr, next_send, recv_ready, finish, recv_start, recv_seq, seq, o,
                    send_gap_after_recv, recv_gap_after_recv)
    return seq


@njit(cache=True)
def worst_kernel(P, dst, nbytes, order, send_ptr, recv_ptr, L, o, g, G, end_origin, forced,
                  sent, waiting, rheap, rsize, next_send, recv_ready, finish,
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
        counters[0] = drain(p, rheap, rsize, recv_ptr, next_send, recv_ready, finish, recv_start, recv_seq,
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
            rsize[d] = heap_push(rheap, recv_ptr[d], rsize[d], ts + o + k1G + L, float(m), m)
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
