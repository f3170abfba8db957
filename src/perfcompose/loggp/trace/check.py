"""A traced run checked: its schedule simulated with LogGOPSim's rules and the simulated makespan
set beside the measured span of the same run."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from perfcompose.loggp.goal.loggopsim import simulate_goal
from perfcompose.loggp.options import LOGGOPSIM_S
from perfcompose.loggp.params import LogGP
from perfcompose.loggp.trace.schedule import NS, TracedSchedule

__all__ = ["Check", "check_schedule", "in_ns"]


@dataclass(frozen=True)
class Check:
    """Measured and simulated time of a run (seconds); ``last`` is the rank that finishes last in
    the simulation and ``outside_calc`` the share of its time not spent computing (sending,
    receiving and waiting: the communication on the path that ends the run)."""

    ranks: int
    measured: float
    simulated: float
    last: int
    outside_calc: float

    @property
    def ratio(self) -> float:
        """Simulated over measured."""
        return self.simulated / self.measured if self.measured > 0 else float("nan")


def in_ns(params: LogGP) -> LogGP:
    """``params`` in ns, the schedule's unit (parameters without a unit taken as microseconds,
    the unit of ``loggp calibrate``)."""
    return (params if params.unit else LogGP(params.L, params.o, params.g, params.G, "us")).to("ns")


def check_schedule(traced: TracedSchedule, params: LogGP, *, S: float = LOGGOPSIM_S) -> Check:
    """Simulate ``traced`` with ``params`` (:func:`in_ns`)."""
    res = simulate_goal(traced.schedule, in_ns(params), S=S, timelines=False)
    finish = np.asarray(res.finish) / NS
    last = int(np.argmax(finish))
    span = float(finish[last])
    share = 1.0 - float(traced.calc[last]) / span if span > 0 else 0.0
    return Check(traced.schedule.num_ranks, traced.measured, span, last, max(share, 0.0))
