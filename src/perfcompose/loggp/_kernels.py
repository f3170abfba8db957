"""What the compiled step simulators share: the gaps of section 3 (Figure 1), the loop that
drains a processor's arrived messages in arrival order, the arrays every kernel starts from, and
the option check; the heap itself is :mod:`perfcompose._heap`."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from perfcompose._heap import heap_pop, heap_push
from perfcompose.errors import InputError
from perfcompose.loggp.program import CommStep

__all__ = ["heap_pop", "heap_push", "gaps_after_receive", "gaps_after_send", "receive_first", "drain", "start_times",
           "initial_gaps", "recv_pointers", "check_options"]


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
    """Refuse a gap origin or tie rule the simulators do not know (for callers from Python)."""
    if gap_origin not in ("end", "start"):
        raise InputError(f"gap origin {gap_origin!r}: choose 'end' or 'start'")
    if ties not in ("random", "rank"):
        raise InputError(f"ties {ties!r}: choose 'random' or 'rank'")
