"""The overestimation ("worst case") algorithm of paper 002, section 4.2.

Every processor first receives all the messages it expects (in arrival order), then sends all of
its own (in its send order), with the same LogGP rules and gaps as :mod:`.simulate`. A cycle of
processors waiting on one another is broken by forcing one of them to send early: it receives
what has already been sent to it, sends everything, then receives the rest. The forced processor
is drawn (seeded) from the cycles that nothing else still waits on; with a feeder edge into the
cycle the choice changes the result, so every forced send is reported. Messages that arrive at
the same time are received in the order of their ids.
"""
from __future__ import annotations

import random

import numpy as np
from numba import njit

from perfcompose.loggp.params import LogGP
from perfcompose.loggp.program import CommStep
from perfcompose.loggp.heap import heap_pop as _pop
from perfcompose.loggp.heap import heap_push as _push
from perfcompose.loggp.simulate import (ForcedSend, GapOrigin, StepResult, Ties, _check_options, _gaps_after_receive,
                                        _gaps_after_send, _initial_gaps, _start_times, recv_pointers)

__all__ = ["worst_case_step", "cycle_candidates"]


@njit(cache=True)
def _drain(p, rkey, rtb, rid, rsize, recv_ptr, next_send, recv_ready, finish, recv_start, recv_seq, counters,
           o, send_gap_after_recv, recv_gap_after_recv):  # pragma: no cover - compiled
    base = recv_ptr[p]
    while rsize[p] > 0:
        m = rid[base]
        tr = max(recv_ready[p], rkey[base])
        rsize[p] = _pop(rkey, rtb, rid, base, rsize[p])
        recv_start[m] = tr
        recv_seq[m] = counters[0]
        counters[0] += 1
        next_send[p] = tr + send_gap_after_recv
        recv_ready[p] = tr + recv_gap_after_recv
        finish[p] = tr + o


@njit(cache=True)
def _worst_kernel(P, dst, nbytes, order, send_ptr, recv_ptr, L, o, g, G, end_origin, forced,
                  sent, waiting, rkey, rtb, rid, rsize, next_send, recv_ready, finish,
                  send_start, recv_start, send_seq, recv_seq, counters, stack):  # pragma: no cover - compiled
    send_gap_after_recv, recv_gap_after_recv = _gaps_after_receive(o, g, end_origin)
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
        _drain(p, rkey, rtb, rid, rsize, recv_ptr, next_send, recv_ready, finish, recv_start, recv_seq, counters,
               o, send_gap_after_recv, recv_gap_after_recv)
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
            rsize[d] = _push(rkey, rtb, rid, recv_ptr[d], rsize[d], ts + o + k1G + L, float(m), m)
            counters[1] += 1
            send_gap, recv_gap = _gaps_after_send(o, g, k1G, end_origin)
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


@njit(cache=True)
def _candidates(P, ptr, adj, sent, ok):  # pragma: no cover - compiled
    """Tarjan's strongly connected components of the not-yet-sent processors (iteratively), then
    ``ok[p]``: p is in a component that has an inner edge and that no other waiting component
    feeds. Returns how many are ok."""
    index = np.full(P, -1, np.int64)
    low = np.zeros(P, np.int64)
    label = np.full(P, -1, np.int64)
    onstack = np.zeros(P, np.bool_)
    stack = np.empty(P, np.int64)
    cs_node = np.empty(P, np.int64)
    cs_edge = np.empty(P, np.int64)
    sp = 0
    idx = 0
    ncomp = 0
    for root in range(P):
        if sent[root] or index[root] >= 0:
            continue
        top = 0
        cs_node[0] = root
        cs_edge[0] = ptr[root]
        index[root] = idx
        low[root] = idx
        idx += 1
        stack[sp] = root
        sp += 1
        onstack[root] = True
        while top >= 0:
            v = cs_node[top]
            e = cs_edge[top]
            if e < ptr[v + 1]:
                cs_edge[top] = e + 1
                w = adj[e]
                if sent[w]:
                    continue
                if index[w] < 0:
                    index[w] = idx
                    low[w] = idx
                    idx += 1
                    stack[sp] = w
                    sp += 1
                    onstack[w] = True
                    top += 1
                    cs_node[top] = w
                    cs_edge[top] = ptr[w]
                elif onstack[w] and index[w] < low[v]:
                    low[v] = index[w]
            else:
                if low[v] == index[v]:
                    while True:
                        sp -= 1
                        x = stack[sp]
                        onstack[x] = False
                        label[x] = ncomp
                        if x == v:
                            break
                    ncomp += 1
                top -= 1
                if top >= 0:
                    u = cs_node[top]
                    if low[v] < low[u]:
                        low[u] = low[v]
    fed = np.zeros(ncomp + 1, np.bool_)
    inner = np.zeros(ncomp + 1, np.bool_)
    for v in range(P):
        if sent[v]:
            continue
        for e in range(ptr[v], ptr[v + 1]):
            w = adj[e]
            if sent[w]:
                continue
            if label[v] != label[w]:
                fed[label[w]] = True
            else:
                inner[label[v]] = True
    count = 0
    for v in range(P):
        ok[v] = (not sent[v]) and inner[label[v]] and not fed[label[v]]
        if ok[v]:
            count += 1
    return count


def _edges(step: CommStep) -> tuple[np.ndarray, np.ndarray]:
    """The messages as CSR by sender: ``adj[ptr[p]:ptr[p+1]]`` are p's destinations."""
    ptr = np.zeros(step.P + 1, dtype=np.int64)
    np.cumsum(np.bincount(step.src, minlength=step.P), out=ptr[1:])
    return ptr, step.dst[np.argsort(step.src, kind="stable")].astype(np.int64)


def cycle_candidates(step: CommStep, sent: np.ndarray, edges: tuple[np.ndarray, np.ndarray] | None = None) -> list[int]:
    """The processors that may be forced to break a deadlock: members of the strongly connected
    components of the not-yet-sent processors that no other waiting component feeds (and that
    have an edge inside, so that they wait on each other)."""
    ptr, adj = edges if edges is not None else _edges(step)
    ok = np.zeros(step.P, dtype=np.bool_)
    _candidates(step.P, ptr, adj, np.ascontiguousarray(sent, dtype=np.bool_), ok)
    return np.flatnonzero(ok).tolist()


def _reference_candidates(step: CommStep, sent: np.ndarray) -> list[int]:
    """The same set from SciPy's strongly connected components (the reference of the kernel)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    unsent = ~sent
    m = unsent[step.src] & unsent[step.dst]
    src, dst = step.src[m], step.dst[m]
    graph = csr_matrix((np.ones(src.shape[0]), (src, dst)), shape=(step.P, step.P))
    _, label = connected_components(graph, directed=True, connection="strong")
    fed = np.zeros(label.max() + 1, dtype=bool)
    cross = label[src] != label[dst]
    fed[label[dst[cross]]] = True
    has_inner_edge = np.zeros(label.max() + 1, dtype=bool)
    has_inner_edge[label[src[~cross]]] = True
    ok = unsent & ~fed[label] & has_inner_edge[label]
    return [int(p) for p in np.flatnonzero(ok)]


def worst_case_step(step: CommStep, params: LogGP, *, start: np.ndarray | None = None,
                    ready: tuple[np.ndarray, np.ndarray] | None = None, gap_origin: GapOrigin = "end", ties: Ties = "random", seed: int = 0,
                    step_index: int = 0) -> StepResult:
    """Simulate one step with section 4.2's overestimation algorithm; ``forced`` lists the sends
    forced to break cycles (the choice is seeded, or the lowest rank with ``ties="rank"``)."""
    _check_options(gap_origin, ties)
    t0 = _start_times(step, start)
    P, M = step.P, step.M
    recv_ptr = recv_pointers(step)
    sent = np.zeros(P, dtype=np.bool_)
    waiting = np.bincount(step.dst, minlength=P).astype(np.int64)
    rkey, rtb, rid = np.empty(M), np.empty(M), np.empty(M, dtype=np.int64)
    rsize = np.zeros(P, dtype=np.int64)
    next_send, recv_ready = _initial_gaps(t0, ready)
    finish = t0.copy()
    send_start, recv_start = np.zeros(M), np.zeros(M)
    send_seq, recv_seq = np.zeros(M, dtype=np.int64), np.zeros(M, dtype=np.int64)
    counters = np.zeros(2, dtype=np.int64)
    stack = np.zeros(2 * P + 1, dtype=np.int64)
    rng = random.Random(seed)
    forced_sends: list[ForcedSend] = []
    forced = -1
    edges = None
    while True:
        remaining = _worst_kernel(P, step.dst, step.nbytes, step.order, step.send_ptr, recv_ptr, params.L,
                                  params.o, params.g, params.G, gap_origin == "end", forced, sent, waiting,
                                  rkey, rtb, rid, rsize, next_send, recv_ready, finish, send_start,
                                  recv_start, send_seq, recv_seq, counters, stack)
        if remaining == 0:
            break
        if edges is None:
            edges = _edges(step)
        candidates = cycle_candidates(step, sent, edges)
        if not candidates:  # cannot happen: every waiting processor waits on another waiting one
            raise AssertionError("deadlock without a cycle")
        forced = candidates[0] if ties == "rank" else rng.choice(candidates)
        forced_sends.append(ForcedSend(step_index, forced, tuple(candidates)))
    return StepResult(step, params, t0, send_start, recv_start, send_seq, recv_seq, finish, next_send, recv_ready,
                      tuple(forced_sends))
