"""A composed program as a benchmark target: the runner times it like any other task."""
from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from perfcompose.bench.runner import Failure, Target, TargetFailed
from perfcompose.compose.terms import Term
from perfcompose.runtime import others
from perfcompose.runtime.executor import (
    DISTURBED_SHARE,
    WAKE_LATENCY,
    RunResult,
    TaskError,
    plan,
    run_term,
    worker_count,
)


def thread_cpu_ns() -> dict[int, int] | None:
    """The CPU time [ns] every thread of this process has used so far, by thread id (Linux
    ``/proc/self/task/*/schedstat``, :func:`~perfcompose.runtime.others.thread_times`), or None
    where the kernel does not say."""
    return {t: run for t, (run, _) in others.thread_times().items()} or None


def own_cpu_since(before: Mapping[int, int] | None) -> float | None:
    """Seconds of CPU that the threads alive at ``before`` (:func:`thread_cpu_ns`) have used
    since: this process's own work beside a run's workers (the thread feeding the stream and
    collecting it, a progress display), which takes the workers' cores as other programs do."""
    after = thread_cpu_ns()
    if before is None or after is None:
        return None
    return sum(max(after[t] - c, 0) for t, c in before.items() if t in after) * 1e-9


def lost_to_others(result: RunResult, own_cpu: float | None) -> float | None:
    """Seconds the run's workers waited for a core because *other* programs held it: their
    runqueue wait less what this process's own other threads ran meanwhile (``own_cpu``; a
    worker waits at most that long for them) and the kernel's latency in waking a worker per
    element. On a quiet machine that is zero even where the workers and the feeding thread
    together outnumber the cores; None where the kernel does not say."""
    if result.runqueue_wait is None or own_cpu is None:
        return None
    return max(result.runqueue_wait - own_cpu - WAKE_LATENCY * len(result.finished), 0.0)

#: distinct elements made for a run of a part fed by other parts (making each one runs those
#: parts, which may take far longer than the part itself: a nop after a qsort)
REPLAYED = 16

#: how a run's time per data element is summed up: ``mean``, the papers' average (the steady
#: state's span over its elements), or ``median`` (:func:`median_period`)
Period = Literal["mean", "median"]


def _disturbed(result: RunResult, lost: float | None) -> bool:
    """Whether other programs took more than ``DISTURBED_SHARE`` of the run from its workers."""
    return lost is not None and lost > DISTURBED_SHARE * result.makespan


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
    #: per term index, how its elements are made where not by ``make`` (a part fed the output of
    #: the parts before it in a program): ``REPLAYED`` of them, made once and replayed in turn
    makers: Mapping[int, Callable[[float], Any]] = field(default_factory=dict)
    #: a run whose workers lost a core to other programs (:func:`lost_to_others`) is taken again up
    #: to this many times, if the program has no more workers than the machine has cores, while
    #: retakes have cost less than ``retake_budget`` times the time of the runs kept
    retry_disturbed: int = 0
    retake_budget: float = 0.5
    #: runs taken again, and runs kept although disturbed (every retake was disturbed too)
    retaken: int = 0
    kept_disturbed: int = 0
    #: per (term index, x): the largest share of a kept run that its workers lost to other
    #: programs (:func:`lost_to_others`), and how many kept runs were disturbed (in this invocation)
    wait_share: dict[tuple[int, float], float] = field(default_factory=dict)
    disturbed_runs: dict[tuple[int, float], int] = field(default_factory=dict)
    _spent: list[float] = field(default_factory=lambda: [0.0, 0.0], repr=False)  # kept, retakes [s]
    _workers: dict[int, int] = field(default_factory=dict, repr=False)
    _count: dict[tuple[int, float], int] = field(default_factory=dict, repr=False)

    def measure(self, point: Mapping[str, float]) -> float:
        k = int(point.get("term", 0))
        term = self.terms[k]
        if k not in self._workers:
            self._workers[k] = worker_count(plan(term, self.functions))
        warm = self._workers[k]
        key = (k, point[self.size])
        count = self._count.get(key, self.count)
        retries = self.retry_disturbed if warm <= (os.cpu_count() or 1) else 0
        best: tuple[RunResult, float | None] | None = None
        for attempt in range(retries + 1):
            made = self.makers.get(k)
            if made is None:
                elements = [self.make(point[self.size]) for _ in range(count + warm)]
            else:  # made once (through the parts before it), replayed
                distinct = [made(point[self.size]) for _ in range(min(count + warm, REPLAYED))]
                elements = [distinct[j % len(distinct)] for j in range(count + warm)]
            own, cpu0, machine = thread_cpu_ns(), time.process_time(), others.mark()
            try:
                result = run_term(term, elements, self.functions, workers=self.workers, warmup=warm,
                                  keep_outputs=False)
            except TaskError as exc:
                raise TargetFailed(Failure(None, str(exc))) from None
            # worker processes: every thread of this one (queue feeders included) is the program's own
            mine = time.process_time() - cpu0 if self.workers == "processes" else own_cpu_since(own)
            lost = lost_to_others(result, mine)
            if lost and not others.others_present(machine, DISTURBED_SHARE, result.makespan):
                lost = 0.0  # the workers waited for threads of this process (a library's own): not disturbed
            run = (result, lost)
            quiet = not _disturbed(*run)
            if best is None or quiet or self._time(result, warm) < self._time(best[0], warm):
                best = run
            if quiet:
                break
            if attempt < retries and self._spent[1] < self.retake_budget * (self._spent[0] + result.makespan):
                self.retaken += 1
                self._spent[1] += result.makespan
            else:
                break
        assert best is not None
        result, lost = best
        self._spent[0] += result.makespan
        disturbed = _disturbed(result, lost)
        if disturbed and retries:
            self.kept_disturbed += 1
        if lost is not None and result.makespan > 0:
            self.wait_share[key] = max(self.wait_share.get(key, 0.0), min(lost / result.makespan, 1.0))
        if disturbed:
            self.disturbed_runs[key] = self.disturbed_runs.get(key, 0) + 1
        if key not in self._count:
            wanted = int(self.min_time / max(result.per_element, 1e-9))
            self._count[key] = max(self.count, min(wanted, 64 * self.count))
        return self._time(result, warm)

    def _time(self, result: RunResult, workers: int) -> float:
        return median_period(result, workers) if self.period == "median" else result.per_element
