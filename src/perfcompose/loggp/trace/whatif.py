"""A traced run's schedule simulated with LogGOPSim's rules: checked (the simulated makespan set beside
the measured span of the same run), and what if the network were different: each of L, o, g and G
scaled over a range of factors (the others held), how far each may grow before the run slows by a
given share, and the same schedule on another network."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from perfcompose.errors import InputError
from perfcompose.finite import is_finite_number
from perfcompose.loggp.goal.loggopsim import simulate_goal
from perfcompose.loggp.options import LOGGOPSIM_S
from perfcompose.loggp.params import MAX_PARAMETER, UNITS, LogGP, convert_time
from perfcompose.loggp.trace.schedule import NS, TracedSchedule

__all__ = ["Check", "check_schedule", "in_ns", "PARAMETERS", "Sweep", "Tolerance", "WhatIf", "what_if", "makespan",
           "sweep_factors", "check_range"]

PARAMETERS = ("L", "o", "g", "G")
#: how close (relative) the factor where a slowdown is reached is found between two sweep points
_PRECISION = 1e-3


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


@dataclass(frozen=True)
class Sweep:
    """The simulated makespan (seconds) with one parameter scaled by each of ``factors``."""

    parameter: str
    factors: tuple[float, ...]
    makespans: tuple[float, ...]


@dataclass(frozen=True)
class Tolerance:
    """The least factor (within ``precision``) of ``parameter`` at which the run is ``slowdown``
    (a share, 0.05 for 5 %) slower than with the base parameters, and that parameter's value then
    (in the parameters' unit); ``factor`` is None where the sweep's largest factor is not slow
    enough, or the parameter is 0 (no factor changes it)."""

    parameter: str
    slowdown: float
    factor: float | None
    value: float | None
    makespan: float | None


@dataclass(frozen=True)
class WhatIf:
    """A traced run under other networks: the ``base`` makespan (seconds) with ``params``, the
    sweeps, the tolerances and, where another network was given, its makespan."""

    params: LogGP
    base: float
    sweeps: tuple[Sweep, ...]
    tolerances: tuple[Tolerance, ...]
    other: LogGP | None = None
    other_makespan: float | None = None


def sweep_factors(low: float, high: float, points: int) -> tuple[float, ...]:
    """``points`` factors spaced evenly on a log scale from ``low`` to ``high``, and 1."""
    grid = np.geomspace(low, high, points)
    return tuple(sorted({*grid[~np.isclose(grid, 1.0, rtol=1e-9)].tolist(), 1.0}))


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


def makespan(traced: TracedSchedule, params: LogGP, *, S: float = LOGGOPSIM_S) -> float:
    """The simulated makespan of ``traced`` with ``params`` (LogGOPSim's rules), in seconds."""
    return float(simulate_goal(traced.schedule, in_ns(params), S=S, timelines=False).makespan) / NS


def check_range(name: str, value: float | None, unit: str, high: float, where: str) -> float | None:
    """``value`` (parameter ``name`` in ``unit``, given at ``where``: an option or a file) if it is
    a finite duration of at least 0 that a simulation in ns still takes once scaled by ``high``;
    else an InputError naming ``where`` and the largest value it takes."""
    if value is None:
        return None
    per = f"{unit}/B" if name == "G" else unit
    largest = convert_time(MAX_PARAMETER, "ns", unit if unit in UNITS else "us") / high
    if not is_finite_number(value) or value < 0:
        raise InputError(f"{where} {value!r}: the LogGP parameter {name} is a duration, finite and at least 0",
                         hint=f"give {name} in {per}, a number from 0 to {largest:g}")
    if value > largest:
        scaled = f" scaled by up to --high {high:g}" if high != 1.0 else ""
        raise InputError(f"{where} {value:g} {per}{scaled} is more than a simulation in ns takes "
                         f"({MAX_PARAMETER:g} ns)", hint=f"give {name} of at most {largest:g} {per}"
                         + (", or a lower --high" if high != 1.0 else ""))
    return value + 0.0  # -0 as 0


def _tolerance(run: Callable[[float], float], sweep: Sweep, base: float, slowdown: float,
               value: float) -> Tolerance:
    """The least factor at which ``run`` (makespan by factor) exceeds ``base`` by ``slowdown``:
    the first sweep point that does, then bisection (on a log scale) down to the point before it."""
    target = base * (1.0 + slowdown)
    k = next((k for k, (f, m) in enumerate(zip(sweep.factors, sweep.makespans)) if f > 1.0 and m >= target), None)
    if value == 0 or k is None:
        return Tolerance(sweep.parameter, slowdown, None, None, None)
    lo, hi, at = max(sweep.factors[k - 1], 1.0), sweep.factors[k], sweep.makespans[k]
    while hi / lo > 1.0 + _PRECISION:
        mid = float(np.sqrt(lo * hi))
        m = run(mid)
        if m >= target:
            hi, at = mid, m
        else:
            lo = mid
    return Tolerance(sweep.parameter, slowdown, hi, value * hi, at)


def what_if(traced: TracedSchedule, params: LogGP, factors: Sequence[float], slowdowns: Sequence[float], *,
            other: LogGP | None = None, S: float = LOGGOPSIM_S,
            progress: Callable[[str, int, int], None] | None = None) -> WhatIf:
    """Simulate ``traced`` with each parameter scaled by each of ``factors`` (the others as in
    ``params``) and find how far each may grow before the run is ``slowdowns`` (shares) slower;
    ``other``, another network, is simulated too. The schedule is built once and reused."""
    base = makespan(traced, params, S=S)
    total = len(PARAMETERS) * len(factors)
    sweeps, tolerances = [], []
    for n_parameter, name in enumerate(PARAMETERS):
        def run(f: float, name: str = name) -> float:
            return base if f == 1.0 else makespan(traced, params.replace(**{name: getattr(params, name) * f}), S=S)

        spans = []
        for k, f in enumerate(factors, start=1):
            spans.append(run(f))
            if progress is not None:
                progress(f"{name} x{f:.3g}", n_parameter * len(factors) + k, total)
        sweep = Sweep(name, tuple(float(f) for f in factors), tuple(spans))
        sweeps.append(sweep)
        tolerances += [_tolerance(run, sweep, base, s, getattr(params, name)) for s in slowdowns]
    return WhatIf(params, base, tuple(sweeps), tuple(tolerances), other,
                  None if other is None else makespan(traced, other, S=S))
