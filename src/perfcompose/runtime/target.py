"""A composed program as a benchmark target: the runner times it like any other task."""
from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from perfcompose.bench.runner import Failure, Target, _Failed
from perfcompose.compose.terms import Term
from perfcompose.runtime.executor import RunResult, TaskError, run_term

#: how a run's time per data element is summed up: ``mean``, the papers' average (the steady
#: state's span over its elements), or ``median`` (:func:`median_period`)
Period = Literal["mean", "median"]


def median_period(result: RunResult, window: int) -> float:
    """The median over the steady state of the mean time between ``window`` consecutive
    completions [s]. With ``window`` the program's worker count, every window spans one
    element per worker, so on an undisturbed run it equals :attr:`RunResult.per_element`; a
    moment in which the machine took a core away (an interrupt, another program, the host)
    stretches a few windows instead of the whole run's average."""
    done = np.sort(result.finished)[max(result.warmup, 1) - 1:]
    w = min(max(window, 1), len(done) - 1)
    return float(np.median((done[w:] - done[:-w]) / w)) * 1e-9


@dataclass
class TermTarget(Target):
    """Runs one of ``terms`` (chosen by the point's ``term`` index) over a fresh stream of
    ``count`` elements of size x, after one warm-up element per worker, and returns the average
    runtime of a data element in seconds (``period="median"``: :func:`median_period`)."""

    terms: Sequence[Term]
    functions: Mapping[str, Callable[[Any], Any]]
    make: Callable[[float], Any]
    count: int = 32
    workers: str = "threads"
    #: a run lasts at least this long [s]: the stream grows where elements are short
    min_time: float = 0.01
    size: str = "x"
    label: str = ""
    period: Period = "mean"
    #: a run whose workers waited for a core (:attr:`RunResult.disturbed`) is taken again up
    #: to this many times, if the program has no more workers than the machine has cores, while
    #: retakes have cost less than ``retake_budget`` times the time of the runs kept
    retry_disturbed: int = 0
    retake_budget: float = 0.5
    #: runs taken again, and runs kept although disturbed (every retake was disturbed too)
    retaken: int = 0
    kept_disturbed: int = 0
    #: per (term index, x): the largest share of a kept run that its workers spent waiting for a
    #: core, and how many kept runs were disturbed (in this invocation)
    wait_share: dict[tuple[int, float], float] = field(default_factory=dict)
    disturbed_runs: dict[tuple[int, float], int] = field(default_factory=dict)
    _spent: list[float] = field(default_factory=lambda: [0.0, 0.0], repr=False)  # kept, retakes [s]
    _workers: dict[int, int] = field(default_factory=dict, repr=False)
    _count: dict[tuple[int, float], int] = field(default_factory=dict, repr=False)

    def measure(self, point: Mapping[str, float]) -> float:
        k = int(point.get("term", 0))
        term = self.terms[k]
        if k not in self._workers:
            from perfcompose.runtime.executor import plan, worker_count

            self._workers[k] = worker_count(plan(term, self.functions))
        warm = self._workers[k]
        key = (k, point[self.size])
        count = self._count.get(key, self.count)
        retries = self.retry_disturbed if warm <= (os.cpu_count() or 1) else 0
        best = None
        for attempt in range(retries + 1):
            elements = [self.make(point[self.size]) for _ in range(count + warm)]
            try:
                result = run_term(term, elements, self.functions, workers=self.workers, warmup=warm,
                                  keep_outputs=False)
            except TaskError as exc:
                raise _Failed(Failure(None, str(exc))) from None
            if best is None or self._time(result, warm) < self._time(best, warm):
                best = result
            if not result.disturbed:
                best = result
                break
            if attempt < retries and self._spent[1] < self.retake_budget * (self._spent[0] + result.makespan):
                self.retaken += 1
                self._spent[1] += result.makespan
            else:
                break
        assert best is not None
        self._spent[0] += best.makespan
        if best.disturbed and retries:
            self.kept_disturbed += 1
        if best.runqueue_wait is not None and best.makespan > 0:
            # less the kernel's own latency in waking a worker per element (see RunResult.disturbed)
            lost = max(best.runqueue_wait - 3e-6 * len(best.finished), 0.0)
            share = min(lost / best.makespan, 1.0)
            self.wait_share[key] = max(self.wait_share.get(key, 0.0), share)
        if best.disturbed:
            self.disturbed_runs[key] = self.disturbed_runs.get(key, 0) + 1
        if key not in self._count:
            wanted = int(self.min_time / max(best.per_element, 1e-9))
            self._count[key] = max(self.count, min(wanted, 64 * self.count))
        return self._time(best, warm)

    def _time(self, result: RunResult, workers: int) -> float:
        return median_period(result, workers) if self.period == "median" else result.per_element
