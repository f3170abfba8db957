"""The communication-step simulation of paper 002 (section 4, Figure 2) under LogGP.

Rules, for a k-byte message sent at time s: the sender is busy for ``o``; the last byte leaves ``(k-1)G`` after that and
arrives ``L`` later, at ``s + o + (k-1)G + L``; the receiver spends ``o`` on it. Between consecutive operations of one
processor the gap of section 3 holds:

=================  =========================================================  =====================
previous -> next   earliest start of next (``gap_origin="end"``, default)      ``gap_origin="start"``
=================  =========================================================  =====================
send -> send       ``s + max(o, g + (k-1)G)`` (LogGP: spaced by g + (k-1)G)    same
send -> receive    ``s + o + (k-1)G + g`` (g after the last byte has left)      ``s + max(o, g + (k-1)G)``
receive -> send    ``r + o + max(2o, g) - 2o`` (section 3, from the receive's   ``r + max(o, max(2o, g) - 2o)``
                   end)
receive -> receive ``r + max(o, g)``                                            same
=================  =========================================================  =====================

The "end" reading counts section 3's "g later" from the end of the previous operation; it makes both of its sentences
one rule: the network interface sees a gap g between the departure of a send's last byte and the next arrival it takes
in, and between an arrival and the first byte of the next send (``r + g = s' + o``, hence ``s' = r + o + g - 2o``). The
"start" reading counts every gap from the start of the previous operation. docs/loggp.md works one timeline both ways.

The algorithm (Figure 2): among the processors that still want to send, the one whose next send could start earliest
acts; it receives its earliest-arrived pending message if that receive could start no later than its next send (receives
win ties), else it sends. Ties between processors are broken by a seeded random choice (the paper's) or by rank. At the
end every processor drains its remaining receives in arrival order.
"""
from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from typing import get_args

import numpy as np

from perfcompose.errors import InputError
from perfcompose.loggp.kernels.backend import compiled_module, note_reference
from perfcompose.loggp.options import GapOrigin, LogGPOptions, Ties
from perfcompose.loggp.params import LogGP
from perfcompose.loggp.results import ForcedSend, Op, StepResult
from perfcompose.loggp.steps.program import CommStep

#: the declared defaults of the simulation options
_DEFAULT = LogGPOptions()

__all__ = ["GapOrigin", "Ties", "Op", "ForcedSend", "StepResult", "simulate_step", "reference_step",
           "arrival_time", "send_after_send", "recv_after_send", "send_after_recv", "recv_after_recv"]


# ---------------------------------------------------------------------------------------------
# what every step simulator (this one and the worst case's, compiled or not) starts from


def start_times(step: CommStep, start: Sequence[float] | np.ndarray | None) -> np.ndarray:
    """When each processor enters the step (0 by default), checked."""
    if start is None:
        return np.zeros(step.P, dtype=np.float64)
    t0 = np.ascontiguousarray(start, dtype=np.float64)
    if t0.shape != (step.P,) or not np.all(np.isfinite(t0)):
        raise InputError(f"start times must be {step.P} finite numbers, one per processor")
    return t0.copy()


def initial_gaps(t0: np.ndarray, ready: tuple[np.ndarray, np.ndarray] | None) -> tuple[np.ndarray, np.ndarray]:
    """The earliest first send and receive of each processor: its start, or later where the gaps
    of an earlier step say so."""
    if ready is None:
        return t0.copy(), t0.copy()
    ns, nr = (np.maximum(np.asarray(r, dtype=np.float64), t0) for r in ready)
    if ns.shape != t0.shape or nr.shape != t0.shape:
        raise InputError("the carried gap times need one value per processor")
    return ns, nr


def recv_pointers(step: CommStep) -> np.ndarray:
    """CSR offsets of each processor's incoming messages (its arrival heap's slice)."""
    ptr = np.zeros(step.P + 1, dtype=np.int64)
    np.cumsum(np.bincount(step.dst, minlength=step.P), out=ptr[1:])
    return ptr


def check_options(gap_origin: str, ties: str) -> None:
    """Refuse a gap origin or tie rule the simulators do not know (for callers from Python); the
    known ones are those :mod:`perfcompose.loggp.options` declares."""
    for what, value, known in (("gap origin", gap_origin, get_args(GapOrigin)), ("ties", ties, get_args(Ties))):
        if value not in known:
            raise InputError(f"{what} {value!r}: choose {' or '.join(repr(k) for k in known)}")


# ---------------------------------------------------------------------------------------------
# the rules, as small pure functions (the kernel below inlines the same arithmetic)


def arrival_time(s: float, k: float, p: LogGP) -> float:
    """When a k-byte message sent at ``s`` has fully arrived: s + o + (k-1)G + L."""
    return s + p.o + max(k - 1.0, 0.0) * p.G + p.L


def send_after_send(s: float, k: float, p: LogGP) -> float:
    """Earliest next send after a k-byte send started at ``s``: spaced by g + (k-1)G, at least o."""
    return s + max(p.o, p.g + max(k - 1.0, 0.0) * p.G)


def recv_after_send(s: float, k: float, p: LogGP, origin: GapOrigin = "end") -> float:
    """Earliest next receive after a k-byte send started at ``s`` (section 3: g later)."""
    k1G = max(k - 1.0, 0.0) * p.G
    if origin == "end":
        return s + (p.o + k1G + p.g)
    return s + max(p.o, p.g + k1G)


def send_after_recv(r: float, p: LogGP, origin: GapOrigin = "end") -> float:
    """Earliest next send after a receive started at ``r`` (section 3: max(2o, g) - 2o later)."""
    if origin == "end":
        return r + (p.o + max(2 * p.o, p.g) - 2 * p.o)
    return r + max(p.o, max(2 * p.o, p.g) - 2 * p.o)


def recv_after_recv(r: float, p: LogGP) -> float:
    """Earliest next receive after a receive started at ``r``: g apart, at least o."""
    return r + max(p.o, p.g)


def simulate_step(step: CommStep, params: LogGP, *, start: Sequence[float] | np.ndarray | None = None,
                  ready: tuple[np.ndarray, np.ndarray] | None = None, gap_origin: GapOrigin = _DEFAULT.gap_origin,
                  ties: Ties = _DEFAULT.ties, seed: int = _DEFAULT.seed) -> StepResult:
    """Simulate one communication step (Figure 2) and return every processor's timeline.

    ``start[p]`` is when processor p enters the step (default 0); ``ready`` carries the earliest
    next send and receive times that the gaps of earlier steps impose; ``ties`` breaks ties
    between processors by a random choice seeded with ``seed`` (the paper's) or by rank.
    """
    check_options(gap_origin, ties)
    module = compiled_module()
    if module is None:
        note_reference()
        return reference_step(step, params, start=start, ready=ready, gap_origin=gap_origin, ties=ties, seed=seed)
    t0 = start_times(step, start)
    next_send, next_recv = initial_gaps(t0, ready)
    M = step.M
    send_start = np.zeros(M)
    recv_start = np.zeros(M)
    send_seq = np.zeros(M, dtype=np.int64)
    recv_seq = np.zeros(M, dtype=np.int64)
    finish = np.zeros(step.P)
    module.standard(step.P, step.dst, step.nbytes, step.order, step.send_ptr, recv_pointers(step), t0,
                     params.L, params.o, params.g, params.G, gap_origin == "end", ties == "random",
                     int(seed) % (2 ** 32), send_start, recv_start, send_seq, recv_seq, finish, next_send,
                     next_recv)
    return StepResult(step, params, t0, send_start, recv_start, send_seq, recv_seq, finish, next_send, next_recv)


# ---------------------------------------------------------------------------------------------
# a plain reading of Figure 2: the reference the compiled kernel is tested against, and what runs where it is not built


def reference_step(step: CommStep, params: LogGP, *, start: Sequence[float] | np.ndarray | None = None,
                   ready: tuple[np.ndarray, np.ndarray] | None = None, gap_origin: GapOrigin = _DEFAULT.gap_origin,
                   ties: Ties = "rank", seed: int = _DEFAULT.seed) -> StepResult:
    """Figure 2 written out with lists and Python's heaps: slow, obviously right. The processors that still send wait in
    a heap by (next send, tie-break), their arrived messages in one each by (arrival, arrival number). Random ties draw
    from NumPy's Mersenne Twister seeded with ``seed`` (mod 2^32), one number per processor that has messages to send,
    then one after each action of a processor that still has some."""
    P, M = step.P, step.M
    rng = np.random.RandomState(int(seed) % 2 ** 32)
    t0 = start_times(step, start)
    first_send, first_recv = initial_gaps(t0, ready)
    queue = [list(reversed(step.send_order(p))) for p in range(P)]
    pending: list[list[tuple[float, int, int]]] = [[] for _ in range(P)]  # (arrival, order, message)
    last: list[tuple[str, float, float] | None] = [None] * P  # (kind, start, bytes)
    send_start, recv_start = np.zeros(M), np.zeros(M)
    send_seq, recv_seq = np.zeros(M, dtype=np.int64), np.zeros(M, dtype=np.int64)
    finish = t0.copy()
    seq, arrivals = 0, 0
    tie = [0.0] * P

    def draw(p: int) -> None:
        if queue[p]:
            tie[p] = float(rng.random_sample()) if ties == "random" else float(p)

    for q in range(P):
        draw(q)

    def gaps(p: int) -> tuple[float, float]:
        """The earliest next send and receive of ``p``, after its last operation."""
        prev = last[p]
        if prev is None:
            return float(first_send[p]), float(first_recv[p])
        kind, s, k = prev
        if kind == "send":
            return send_after_send(s, k, params), recv_after_send(s, k, params, gap_origin)
        return send_after_recv(s, params, gap_origin), recv_after_recv(s, params)

    def receive(p: int) -> None:
        nonlocal seq
        arrival, _, m = heapq.heappop(pending[p])
        r = max(gaps(p)[1], arrival)
        recv_start[m], recv_seq[m] = r, seq
        seq += 1
        last[p] = ("recv", r, 0.0)
        finish[p] = r + params.o

    senders = [(gaps(q)[0], tie[q], q) for q in range(P) if queue[q]]
    heapq.heapify(senders)
    while senders:
        start_send, _, p = senders[0]
        start_recv = max(gaps(p)[1], pending[p][0][0]) if pending[p] else math.inf
        if start_send < start_recv:
            m = queue[p].pop()
            k = float(step.nbytes[m])
            send_start[m], send_seq[m] = start_send, seq
            seq += 1
            heapq.heappush(pending[int(step.dst[m])], (arrival_time(start_send, k, params), arrivals, m))
            arrivals += 1
            last[p] = ("send", start_send, k)
            finish[p] = start_send + params.o
        else:
            receive(p)
        draw(p)
        if queue[p]:
            heapq.heapreplace(senders, (gaps(p)[0], tie[p], p))
        else:
            heapq.heappop(senders)
    for p in range(P):
        while pending[p]:
            receive(p)
    ns, nr = (np.array([gaps(p)[j] for p in range(P)]) for j in (0, 1))
    return StepResult(step, params, t0, send_start, recv_start, send_seq, recv_seq, finish, ns, nr)
