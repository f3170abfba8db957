"""What every step simulator starts from, whichever implementation runs it (the compiled
extension or Numba): the processors' start times, the gaps carried from an earlier step, the
offsets of each processor's incoming messages, and the check of the options. Plain NumPy."""
from __future__ import annotations

from collections.abc import Sequence
from typing import get_args

import numpy as np

from perfcompose.errors import InputError
from perfcompose.loggp.options import GapOrigin, Ties
from perfcompose.loggp.steps.program import CommStep

__all__ = ["start_times", "initial_gaps", "recv_pointers", "check_options"]


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
