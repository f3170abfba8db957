"""How much memory and how many elementary steps a LogGP simulation takes, estimated before the
work (the limits of :mod:`perfcompose.limits`): reading a file from its size, simulating a program
from its processors, messages and steps. The figures are upper bounds measured on this project's
readers and kernels (bytes per message and per processor at their peak), not exact counts."""
from __future__ import annotations

import math
from pathlib import Path

from perfcompose.limits import check_memory, check_steps

__all__ = ["reading_bytes", "simulation_bytes", "goal_simulation_bytes", "simulation_steps", "check_reading",
           "check_simulation", "check_goal_simulation"]

#: peak bytes per byte of input while reading, by form (arrays and their tokens); ``goal_columns``:
#: GOAL text of the form perfcompose writes, read straight into the schedule's columns (measured
#: 0.46-0.85 at 10^7 and 10^6 messages, the smaller texts with more of fixed buffers)
_READ_FACTOR = {"npz": 2.0, "json": 3.0, "goal": 3.0, "goal_columns": 1.0}
#: peak bytes per message and per processor while simulating, by semantics
_PER_MESSAGE = {"paper": 100.0, "loggopsim": 240.0}
_PER_PROCESSOR = {"paper": 300.0, "loggopsim": 300.0}
#: LogGOPSim's semantics without timelines: the steps' arrays and the kernel's state per message
_STEPS_PER_MESSAGE = 100.0
#: one operation kept for the timeline (a Python object with its numbers)
_PER_OPERATION = 200.0


def reading_bytes(size: int, form: str) -> float:
    """Peak memory of reading ``size`` bytes of input in form ``npz``, ``json`` or ``goal``."""
    return size * _READ_FACTOR[form]


def simulation_bytes(P: int, M: int, steps: int, *, semantics: str = "paper", timelines: bool = False) -> float:
    """Peak memory of simulating ``M`` messages among ``P`` processors in ``steps`` steps; with
    ``timelines`` every send, receive and computation is also kept as an object."""
    if semantics == "loggopsim" and not timelines:  # the kernel on the steps (loggopsim_steps)
        return _STEPS_PER_MESSAGE * M + _PER_PROCESSOR["loggopsim"] * P + 16.0 * P * steps
    total = _PER_MESSAGE.get(semantics, 160.0) * M + _PER_PROCESSOR.get(semantics, 300.0) * P
    if semantics == "loggopsim":
        total += 40.0 * P * steps  # a barrier operation per processor and step of the GOAL schedule
    if timelines:
        total += _PER_OPERATION * (2 * M + P * steps)
    return total


def goal_simulation_bytes(P: int, ops: int, deps: int, sends: int) -> float:
    """Peak memory of the compiled GOAL loop on a schedule read into columns: the columns (13 bytes an operation, 9 a
    dependency), the loop's entries and flags (14 an operation), a matching queue and a waiting place per send (32), the
    ranks' state, and 16 MiB of buffers and tables of fixed size, with a tenth more (1.49 GB measured for the allreduce
    rounds of 10^7 messages, this estimating 1.66)."""
    return 1.1 * (27.0 * ops + 9.0 * deps + 32.0 * sends + _PER_PROCESSOR["loggopsim"] * P + 2.0 ** 24)


def simulation_steps(P: int, M: int, steps: int) -> float:
    """Elementary steps: every message sent and received through a heap of the processors."""
    return (2 * M + P * steps) * max(1.0, math.log2(max(P, 2)))


def check_reading(path: Path, form: str) -> None:
    """Refuse to read ``path`` where its reading alone would pass the memory limit."""
    try:
        size = path.stat().st_size
    except OSError:
        return  # the reader reports it
    check_memory(reading_bytes(size, form), f"reading {path} ({size / 2 ** 20:,.0f} MiB)")


def check_simulation(P: int, M: int, steps: int, *, semantics: str = "paper", timelines: bool = False) -> None:
    """Refuse a simulation whose estimated memory or steps pass the limits."""
    what = f"simulating {M:,} messages among {P:,} processors in {steps:,} steps"
    check_memory(simulation_bytes(P, M, steps, semantics=semantics, timelines=timelines),
                 what + (" with every operation kept (--json, --timeline)" if timelines else ""))
    check_steps(simulation_steps(P, M, steps), what)


def check_goal_simulation(P: int, ops: int, deps: int, sends: int) -> None:
    """Refuse a run of the compiled GOAL loop whose estimated memory passes the limit."""
    check_memory(goal_simulation_bytes(P, ops, deps, sends),
                 f"simulating a GOAL schedule of {ops:,} operations among {P:,} ranks")
