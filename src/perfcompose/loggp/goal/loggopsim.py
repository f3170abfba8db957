"""LogGOPSim's simulation semantics, compiled, on GOAL schedules (:mod:`.schedule`).

LogGOPSim (Hoefler, Schneider, Lumsdaine, 2010) differs from paper 002's algorithm in three ways that change predicted
times: a host has separate send and receive gaps (``nextgs``, ``nextgr``) next to its CPU overhead clock (``nexto``); a
message's receive overhead is charged when the message arrives (``o + (k-1)G`` from then on, whether or not the receive
was posted); and events are processed in time order with ties in creation order, so there is no priority of receives
over sends. A message is injected at ``t + o`` and its first byte arrives at ``t + o + L``. ``O`` is the overhead per
byte and messages above ``S`` bytes use a rendezvous: the send completes when the receiver matches it. ``S`` defaults to
LogGOPSim's own default, 65,535 bytes.

:func:`simulate_goal` checks a schedule, runs the event loop (the compiled kernel ``_cgoal``, or where it is not built
its plain reading, :mod:`.loggopsim_reference`) and returns the times; :func:`simulate_program_loggopsim` runs a program
through its GOAL schedule, or, where only finish times are asked for, through the kernel on its steps of
:mod:`perfcompose.loggp.steps.loggopsim_steps`.
"""
from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from perfcompose.errors import InputError
from perfcompose.loggp.goal.schedule import CALC, GoalSchedule, program_to_goal
from perfcompose.loggp.kernels.backend import extension, note_reference
from perfcompose.loggp.options import LOGGOPSIM_S
from perfcompose.loggp.params import LogGP
from perfcompose.loggp.results import GoalResult, Op, ProgramResult
from perfcompose.loggp.steps.loggopsim_steps import loggopsim_finish
from perfcompose.loggp.steps.program import CompStep, Program

__all__ = ["LOGGOPSIM_S", "GoalResult", "simulate_goal", "simulate_program_loggopsim", "timeline_ops"]


#: the order the compiled loop keeps the operations in while it runs: by their place in their rank
#: (1), as given (0), or by place where the schedule is large (-1); the times are the same
LAYOUT = -1


def compiled_goal() -> ModuleType | None:
    """The compiled extension ``perfcompose.loggp.kernels._cgoal``, or None where it was not built."""
    return extension("_cgoal")


def _as(a: np.ndarray, dtype: Any) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=dtype)


def _rank(s: GoalSchedule, i: int) -> int:
    """The rank of operation ``i``."""
    return int(np.searchsorted(s.op_ptr, i, side="right")) - 1


def simulate_goal(schedule: GoalSchedule, params: LogGP, *, O: float = 0.0, S: float = LOGGOPSIM_S,
                  path: str | Path | None = None, timelines: bool = True) -> GoalResult:
    """Run a GOAL schedule with LogGOPSim's rules; times in the parameters' unit. Without
    ``timelines`` only the finish times are kept (the operations' times are empty)."""
    s = schedule
    n, P = s.num_ops, s.num_ranks
    if n and s.peer.max() >= P and ((s.kind != CALC) & (s.peer >= P)).any():  # (a rank's number, once)
        i = int(np.flatnonzero((s.kind != CALC) & (s.peer >= P))[0])
        raise InputError(f"rank {_rank(s, i)} names rank {int(s.peer[i])}, but there are {P}", path=path,
                         line=int(s.lines[i]) if s.lines is not None else None)
    if 2 * n + 2 >= 2 ** 31:
        raise InputError(f"a schedule of {n:,} operations is too large for one simulation (at most about 10^9)",
                         path=path)
    n_cpu = 1 + int(s.cpu.max()) if n else 1
    n_nic = 1 + int(s.nic.max()) if n else 1
    start = np.full(n if timelines else 1, np.nan)
    end = np.full(n if timelines else 1, np.nan)
    done = np.zeros(n, np.bool_)
    finish = np.zeros(P)
    times = (float(params.L), float(params.o), float(params.g), float(params.G), float(O), float(S))
    compiled = compiled_goal()
    if compiled is not None:
        i32 = np.int32
        # sizes in float32 as they are (a reader keeps them so where every one is exact there), tags in int32 too
        size = _as(s.size, s.size.dtype if s.size.dtype in (np.float32, np.float64) else np.float64)
        tag = _as(s.tag, s.tag.dtype if s.tag.dtype in (np.int32, np.int64) else np.int64)
        none = np.zeros(0, i32)  # every operation on CPU / NIC 0
        compiled.simulate(P, _as(s.op_ptr, np.int64), _as(s.kind, np.int8), size,
                          _as(s.peer, i32), tag, _as(s.cpu, i32) if n_cpu > 1 else none,
                          _as(s.nic, i32) if n_nic > 1 else none, _as(s.req_a, i32), _as(s.req_b, i32),
                          _as(s.ireq_a, i32), _as(s.ireq_b, i32), n_cpu, n_nic, *times, start, end, done, finish,
                          LAYOUT)
    else:
        from perfcompose.loggp.goal.loggopsim_reference import reference_times

        note_reference()
        finish, ref_start, ref_end, done = reference_times(s, params, O=O, S=S)
        if timelines:
            start, end = ref_start, ref_end
    if not done.all():
        i = int(np.flatnonzero(~done)[0])
        raise InputError(f"the schedule deadlocks: rank {_rank(s, i)} never completes {s.describe(i)}",
                         path=path, line=int(s.lines[i]) if s.lines is not None else None,
                         hint="every receive needs a matching send, and dependencies must not form a cycle")
    if not timelines:
        start, end = np.zeros(0), np.zeros(0)
    return GoalResult(finish, start, end, s)


def simulate_program_loggopsim(program: Program, params: LogGP, *, O: float = 0.0, S: float = LOGGOPSIM_S,
                               timelines: bool = True) -> ProgramResult:
    """Simulate a program with LogGOPSim's rules. Without ``timelines`` a kernel on the program's
    steps computes the finish times (:mod:`perfcompose.loggp.steps.loggopsim_steps`); with them the program runs through
    its GOAL schedule, whose loop keeps every operation's times (the same finish times)."""
    P = program.P
    comp = np.zeros(P)
    for st in program.steps:
        if isinstance(st, CompStep):
            comp += st.durations
    if not timelines:
        finish = loggopsim_finish(program, params, O=O, S=S)
        return ProgramResult(P, finish, comp, finish - comp, [[] for _ in range(P)])
    res = simulate_goal(program_to_goal(program), params, O=O, S=S, timelines=True)
    return ProgramResult(P, res.finish, comp, res.finish - comp, timeline_ops(res))


def timeline_ops(res: GoalResult, messages: bool = True) -> list[list[Op]]:
    """Each rank's operations in the order they start (computations of no time left out), with the program's message
    ids (``messages``, where the schedule has them) or none."""
    s = res.schedule
    msg = s.message if messages and s.message is not None else np.full(s.num_ops, -1)
    rank_of = s.rank_of
    idx = np.flatnonzero((s.kind != CALC) | (s.size > 0))
    idx = idx[np.lexsort((idx, res.op_start[idx], rank_of[idx]))]
    ops: list[list[Op]] = [[] for _ in range(s.num_ranks)]
    for h, k, m, a, b in zip(rank_of[idx].tolist(), s.kind[idx].tolist(), msg[idx].tolist(),
                             res.op_start[idx].tolist(), res.op_end[idx].tolist()):
        ops[h].append(Op(("send", "recv", "comp")[k], None if k == CALC or not messages else m, a, b))
    return ops
