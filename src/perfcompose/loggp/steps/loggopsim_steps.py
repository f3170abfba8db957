"""LogGOPSim's semantics on a program's steps without a GOAL schedule: the finish times that
:func:`~perfcompose.loggp.goal.loggopsim.simulate_goal` gives on
:func:`~perfcompose.loggp.goal.schedule.program_to_goal`'s schedule, computed by a kernel that reads the steps' arrays
(``_cstep.loggopsim_steps`` in C; where the extension is not built, the reference runs the program's GOAL schedule). No
operation's times are kept: a timeline still goes through the GOAL schedule.

:func:`step_arrays` lays a program out as the kernel takes it (plain buffers, so that a caller without NumPy can build
them as ``array.array``): per step its kind (int32: 0 computation, 1 communication) and its messages' range
(``msg_ptr``, int64), the messages' ``src`` and ``dst`` (int32), ``nbytes`` (float64) and ``order`` (int32: each
sender's messages by their index within the step, in send order), and the computation steps' durations (float64, P per
step).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from perfcompose.errors import InputError
from perfcompose.loggp.kernels.backend import describe, extension
from perfcompose.loggp.params import LogGP
from perfcompose.loggp.steps.program import CommStep, CompStep, Program

__all__ = ["step_arrays", "loggopsim_finish", "kernel_name"]


def step_arrays(program: Program) -> tuple[np.ndarray, ...]:
    """The program's steps as the kernel's flat arrays: kinds, msg_ptr, src, dst, nbytes, order, durations (see the
    module's docstring)."""
    steps = program.steps
    kinds = np.array([1 if isinstance(s, CommStep) else 0 for s in steps], dtype=np.int32)
    comm = [s for s in steps if isinstance(s, CommStep)]
    counts = np.array([s.M if isinstance(s, CommStep) else 0 for s in steps], dtype=np.int64)
    msg_ptr = np.zeros(len(steps) + 1, np.int64)
    np.cumsum(counts, out=msg_ptr[1:])
    M = int(msg_ptr[-1])
    if M >= 2 ** 31 or program.P >= 2 ** 31:
        raise InputError(f"a program of {M:,} messages among {program.P:,} processors is too large for one "
                         "simulation with LogGOPSim's semantics (at most 2^31 of each)")
    src, dst = np.empty(M, np.int32), np.empty(M, np.int32)
    nbytes, order = np.empty(M), np.empty(M, np.int32)
    at = 0
    for s in comm:
        src[at:at + s.M], dst[at:at + s.M], nbytes[at:at + s.M], order[at:at + s.M] = s.src, s.dst, s.nbytes, s.order
        at += s.M
    comp = [s.durations for s in steps if isinstance(s, CompStep)]
    durations = np.concatenate(comp).astype(np.float64, copy=False) if comp else np.zeros(0)
    return kinds, msg_ptr, src, dst, nbytes, order, durations


def _compiled() -> Any:
    module = extension("_cstep")
    return getattr(module, "loggopsim_steps", None) if module is not None else None


def kernel_name() -> str:
    """Which implementation computes the finish times here, for people."""
    return describe(_compiled() is not None)


def loggopsim_finish(program: Program, params: LogGP, *, O: float = 0.0, S: float = 65535.0) -> np.ndarray:
    """Each processor's finish time under LogGOPSim's rules (``O`` per byte, rendezvous above
    ``S`` bytes): by the C extension where built, else through the program's GOAL schedule."""
    run = _compiled()
    if run is None:
        from perfcompose.loggp.goal.loggopsim import simulate_goal
        from perfcompose.loggp.goal.schedule import program_to_goal

        return simulate_goal(program_to_goal(program), params, O=O, S=S, timelines=False).finish
    P = program.P
    finish = np.zeros(P)
    left = run(P, *step_arrays(program), float(params.L), float(params.o), float(params.g), float(params.G),
               float(O), float(S), finish)
    if left != 0:  # a program read by this package never gets here (its reader checks every message)
        raise InputError("the program's steps are inconsistent: " + (
            "a processor is out of range" if left == -2 else "a send order does not list each message once under "
            "its sender" if left == -1 else f"{left} processors never finish"))
    return finish
