"""The latency operators (:mod:`perfcompose.compose.latency`) against the runtime executor.

Every round measures each reference task alone (its median time per element is M[f] at that
size) and then runs each program over a stream of fresh random arrays, all queued at the start,
as the executor does; the executor stamps each element when the first worker takes it and when
the last one finishes it, and the measured latency is the median over the stream. The
prediction is composed from the tasks measured in the same round, so the error is the
operator's, not a drift of the machine between measurements.

By Little's law the latency of a saturated stream is the number of elements inside the program
times the time between completions; the rows also carry both periods, so the elements inside
(measured latency / measured period against predicted latency / M[program]) tell the queueing
structure of the operator apart from the error of the throughput model it multiplies.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from perfcompose.bench.tasks import TASKS
from perfcompose.compose.latency import latency
from perfcompose.compose.operators import compose
from perfcompose.compose.parser import parse_term
from perfcompose.model import Model
from perfcompose.runtime.executor import plan, run_term, worker_count

#: programs of the reference tasks, with the workers each needs
CONFIGURATIONS: tuple[str, ...] = (
    "seq(inc, qsort)", "tpool_2(qsort)", "pipe(inc, qsort)", "pipe(qsort, inc)", "pipe(nop, inc)",
    "tpool_2(seq(qsort, inc))", "pipe(inc, tpool_2(qsort))", "pipe(tpool_2(qsort), inc)",
    "tpool_2(pipe(inc, qsort))", "pipe(inc, tpool_4(qsort))",
)
QUICK_X = (4096.0, 16384.0)
FULL_X = (4096.0, 16384.0, 65536.0)
QUICK_ROUNDS, FULL_ROUNDS = 3, 5
#: the reference tasks the programs are made of
FUNCTIONS: dict[str, Callable] = {name: TASKS[name].run for name in ("nop", "inc", "qsort")}
#: elements per run: long enough that the queues' filling is a small part of the stream
COUNT = 48
#: the executor's queue capacity per reading worker
CAPACITY = 2
#: a run whose workers waited for a core is taken again up to this many times (the least
#: disturbed is kept)
RETRIES = 2

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class LatencyRow:
    """One program at one size: measured and predicted latency [s] over the rounds."""

    configuration: str
    x: float
    measured: tuple[float, ...]
    saturated: tuple[float, ...]  #: predicted for a saturated stream (Little's law)
    alone: tuple[float, ...]  #: predicted for an element alone, with no queueing
    disturbed: int = 0  #: rounds whose workers waited for a core
    #: time between completions: measured, and M[program] composed from the parts [s]
    period: tuple[float, ...] = ()
    period_predicted: tuple[float, ...] = ()

    @staticmethod
    def _errors(pred: Sequence[float], meas: Sequence[float]) -> np.ndarray:
        return (np.asarray(pred) - np.asarray(meas)) / np.asarray(meas)

    @property
    def error(self) -> float:
        """Median over the rounds of (saturated prediction − measured) / measured."""
        return float(np.median(self._errors(self.saturated, self.measured)))

    @property
    def error_range(self) -> tuple[float, float]:
        e = self._errors(self.saturated, self.measured)
        return float(e.min()), float(e.max())

    @property
    def error_alone(self) -> float:
        """The same for the latency of an element alone (no queueing): 000 Figure 2's reading."""
        return float(np.median(self._errors(self.alone, self.measured)))

    @property
    def inside(self) -> tuple[float, float]:
        """Elements inside the program, median over the rounds: measured (latency / period) and
        predicted (latency / M[program])."""
        return (float(np.median(np.asarray(self.measured) / np.asarray(self.period))),
                float(np.median(np.asarray(self.saturated) / np.asarray(self.period_predicted))))

    def to_json(self) -> dict[str, object]:
        return {"configuration": self.configuration, "x": self.x, "measured_s": list(self.measured),
                "predicted_saturated_s": list(self.saturated), "predicted_alone_s": list(self.alone),
                "error": self.error, "error_min": self.error_range[0], "error_max": self.error_range[1],
                "error_alone": self.error_alone, "disturbed_runs": self.disturbed,
                "period_measured_s": list(self.period), "period_predicted_s": list(self.period_predicted),
                "inside_measured": self.inside[0], "inside_predicted": self.inside[1],
                "error_definition": "(predicted - measured) / measured, median over rounds"}


def workers(configuration: str) -> int:
    return worker_count(plan(parse_term(configuration, components=FUNCTIONS), FUNCTIONS))


def _run(term: str, x: float, count: int, rng: np.random.Generator) -> Any:
    """One run; taken again while other work took the cores away, the least disturbed kept."""
    runs = []
    for _ in range(1 + RETRIES):
        elements = [rng.integers(0, 2 ** 31 - 1, size=int(x), dtype=np.int32) for _ in range(count)]
        runs.append(run_term(term, elements, FUNCTIONS, capacity=CAPACITY, keep_outputs=False))
        if not runs[-1].disturbed:
            break
    return min(runs, key=lambda r: (r.runqueue_wait or 0.0) / max(r.makespan, 1e-12))


def study(configurations: Sequence[str] | None = None, xs: Sequence[float] = QUICK_X, rounds: int = QUICK_ROUNDS,
          count: int = COUNT, cores: int | None = None, progress: Progress | None = None) -> list[LatencyRow]:
    """Measure every program that fits the cores at every size, ``rounds`` times, interleaved."""
    cores = cores or os.cpu_count() or 1
    configs = [c for c in (configurations or CONFIGURATIONS) if workers(c) <= cores]
    for name in FUNCTIONS:
        TASKS[name].warm()
    rng = np.random.default_rng(2026)
    # per program and size, a round's (measured, saturated, alone, disturbed, period, predicted period)
    runs: dict[tuple[str, float], list[tuple[float, float, float, bool, float, float]]] = {
        (c, x): [] for c in configs for x in xs}
    total, done = rounds * len(xs) * (len(FUNCTIONS) + len(configs)), 0
    for _ in range(rounds):
        for x in xs:
            parts = {}
            for k, term in enumerate((*FUNCTIONS, *configs)):
                r = _run(term, x, count, rng)
                if k < len(FUNCTIONS):
                    parts[term] = Model.constant(r.latency, params=("x",), unit="s")
                else:
                    runs[(term, x)].append((r.latency, float(latency(term, parts, capacity=CAPACITY)(x=x)),
                                            float(latency(term, parts)(x=x)), r.disturbed, r.per_element,
                                            float(compose(term, parts, pipe="pointwise")(x=x))))
                done += 1
                if progress:
                    progress(done, total)
    return [LatencyRow(c, x, m, s, a, sum(d), p, pp) for (c, x), rows in runs.items()
            for m, s, a, d, p, pp in [zip(*rows) if rows else [()] * 6]]
