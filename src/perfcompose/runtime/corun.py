"""Parts side by side: how much workers that run at the same time slow each other down.

Two chains of functions run at once, each on a thread (pinned to a core of its own) over
elements made for it beforehand, handing every result to a collecting thread as the executor's
workers do; every call is timed, and only calls that began and ended while
both threads were running count. The same chain run alone in the same harness is the anchor: the
ratio of the two is the chain's co-run slowdown beside the other (memory bandwidth and caches
shared, a lock such as the GIL held by both). A chain beside a copy of itself tells whether its
threads run in parallel at all.
"""
from __future__ import annotations

import os
import queue
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from perfcompose.bench.runner import Failure, Target, TargetFailed
from perfcompose.runtime import others
from perfcompose.runtime.executor import DISTURBED_SHARE
from perfcompose.runtime.worker import cpu_demand_ns, keep_on_cpu, runqueue_wait_ns

Chain = Sequence[Callable[[Any], Any]]

#: distinct elements made for a chain's run
DISTINCT = 16
#: chains whose periods alone differ by more than this factor are not run side by side
APART = 10.0
#: other programs that kept more than this share of a core busy beside a chain's runs crowd it
#: (one CPU-bound program beside keeps a whole core; the clock ticks' readings alone, a few
#: hundredths)
CROWDED = 0.25
#: at most this many calls a chain counts towards the end of a run (a chain that gets there
#: before the others goes on)
MAX_INPUTS = 64
#: a run lasts at least this many of the interpreter's switch intervals: chains that hold the GIL
#: take turns at it once per interval, so a shorter run sees one chain run alone
SWITCHES = 10


@dataclass(frozen=True)
class CoRun:
    """The calls of each chain [s] that ran while every chain was running, each chain's period
    over them (their span over their number: a call that waits for a lock counts its wait, a
    run of calls that holds it counts its pace), the share of that window the threads lost
    to other programs, and their concurrency: the cores the chains' threads kept busy or waited
    for, summed over the threads (k for k chains that run in parallel, 1 for chains that take
    turns at one lock, whatever other programs take; NaN where the system does not say)."""

    calls: tuple[np.ndarray, ...]
    periods: tuple[float, ...]
    window: float
    lost: float
    concurrency: float = float("nan")
    #: seconds that other programs ran anywhere on the machine over the run's ``span`` [s], in
    #: whole clock ticks less this process's time (so a short run may read below 0; 0 where the
    #: system does not say): the chains' threads run pinned, where a pool's workers move to the
    #: core another program leaves free
    beside: float = 0.0
    span: float = 0.0

    @property
    def disturbed(self) -> bool:
        return self.lost > DISTURBED_SHARE


_DONE = object()


def _run_chain(chain: Chain, data: Any) -> Any:
    for step in chain:
        data = step(data)
    return data


def co_run(chains: Sequence[Chain], inputs: Sequence[Sequence[Any]], *, calls: Sequence[int] | None = None,
           pin: bool = True, limit: float | None = None) -> CoRun:
    """Run every chain on its own thread over its own inputs in turn, all at once, until every
    chain has made its number of ``calls`` (default: one per input); a chain that gets there
    first goes on, so that the others never run alone, and beside others no chain stops before
    :data:`SWITCHES` switch intervals have passed. After ``limit`` seconds a chain that has
    made a call counts as through: beside a neighbour that holds the GIL, a chain that takes
    the GIL back for every step (SQLite handing over rows, a loop of short NumPy calls) waits a
    switch interval each time, and its calls last a thousand times their time alone. With one
    chain this is the chain alone in the same harness, the anchor of a slowdown.
    """
    k = len(chains)
    cores = sorted(os.sched_getaffinity(0)) if pin and hasattr(os, "sched_getaffinity") else []
    barrier = threading.Barrier(k)
    stop = threading.Event()
    through = [0]
    lock = threading.Lock()
    stamps: list[list[tuple[int, int]]] = [[] for _ in range(k)]
    waits: list[int] = [0] * k
    demand: list[float] = [float("nan")] * k
    errors: list[BaseException] = []

    results: queue.SimpleQueue[Any] = queue.SimpleQueue()

    collector_cpu = [0]

    def collect() -> None:
        # as in the executor, another thread receives (and drops) every result: memory that one
        # thread allocates and another frees behaves otherwise than memory freed where it was made
        c0 = time.thread_time_ns()
        while results.get() is not _DONE:
            pass
        collector_cpu[0] = time.thread_time_ns() - c0

    def worker(i: int) -> None:
        keep_on_cpu(cores[i] if k <= len(cores) else None)
        perf, out, mine = time.perf_counter_ns, stamps[i], inputs[i]
        n, wanted = len(mine), (calls[i] if calls is not None else len(mine))
        try:
            barrier.wait()
            w0, d0, s0 = runqueue_wait_ns(), cpu_demand_ns(), perf()
            deadline = s0 + (int(limit * 1e9) if limit is not None else 0)
            # one chain alone runs no longer than its calls: it takes turns with nobody
            earliest = s0 + (int(SWITCHES * sys.getswitchinterval() * 1e9) if k > 1 else 0)
            done, through_me = 0, False
            while not stop.is_set():
                element = mine[done % n]
                t0 = perf()
                results.put(_run_chain(chains[i], element))
                t1 = perf()
                out.append((t0, t1))
                done += 1
                if not through_me and ((done >= wanted and t1 >= earliest) or (limit is not None and t1 > deadline)):
                    through_me = True
                    with lock:
                        through[0] += 1
                        if through[0] == k:
                            stop.set()
            w1, d1, s1 = runqueue_wait_ns(), cpu_demand_ns(), perf()
            waits[i] = (w1 - w0) if w0 is not None and w1 is not None else 0
            if d0 is not None and d1 is not None and s1 > s0:
                demand[i] = (d1 - d0) / (s1 - s0)
                spans[i] = (s1 - s0) * 1e-9
        except BaseException as exc:  # reported to the caller below
            errors.append(exc)
            stop.set()

    spans: list[float] = [0.0] * k
    machine, cpu0, threads0 = others.mark(), time.process_time(), others.thread_times()
    collector = threading.Thread(target=collect, daemon=True)
    collector.start()
    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(k)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    results.put(_DONE)
    collector.join()
    if errors:
        raise errors[0]
    # the threads of the chains' own (a BLAS or a library's thread pool): they keep cores busy
    # as the workers do
    exclude = {threading.get_native_id(), collector.native_id, *(t.native_id for t in threads)}
    ended = sum(d * w for d, w in zip(demand, spans) if np.isfinite(d)) - sum(waits) * 1e-9 + collector_cpu[0] * 1e-9
    own_threads = others.other_threads_demand(threads0, cpu0, {t for t in exclude if t is not None}, ended)
    own_threads /= max(max(spans), 1e-9)
    begin = max(s[0][0] for s in stamps)
    end = min(s[-1][1] for s in stamps)
    inside = [[(t0, t1) for t0, t1 in mine if t0 >= begin and t1 <= end] for mine in stamps]
    durations = tuple(np.array([(t1 - t0) * 1e-9 for t0, t1 in kept]) for kept in inside)
    periods = tuple((kept[-1][1] - kept[0][0]) * 1e-9 / len(kept) if kept else float("nan") for kept in inside)
    window = max(end - begin, 1) * 1e-9
    # a worker waits for the collecting thread at most as long as that one ran: not other work;
    # nor for threads of the chains' own, where no other program ran meanwhile
    lost = max(max(waits) - collector_cpu[0], 0) * 1e-9 / window
    beside = others.others_since(machine, clamp=False) or 0.0
    if lost > DISTURBED_SHARE and not others.others_present(machine, DISTURBED_SHARE, max(spans)):
        lost = 0.0
    return CoRun(durations, periods, window, min(lost, 1.0), float(sum(demand)) + own_threads, beside, max(spans))


def pooled_period(periods: Sequence[float]) -> float:
    """Per copy, the period of k copies' calls together: k over their summed rates (a copy
    without a call in the window has rate 0)."""
    rates = [1.0 / p for p in periods if np.isfinite(p) and p > 0]
    return len(periods) / sum(rates) if rates else float("nan")


@dataclass
class CoRunTarget(Target):
    """Times chain ``sides[i][0]`` beside the others of ``sides[i]`` (alone when there are none)
    on elements of size x made by ``makers[i][j]``, and returns its period [s] (:class:`CoRun`): the point's
    ``term`` index minus ``offset`` picks ``i``. A run that lost more than ``DISTURBED_SHARE`` of
    its window to other programs is taken again up to ``retries`` times. The indices after the
    sides' stand for the co-runs named in ``concurrent``, in turn: their value is the run's
    :attr:`CoRun.concurrency` instead of its period."""

    sides: Sequence[Sequence[Chain]]
    makers: Sequence[Sequence[Callable[[float], Any]]]
    offset: int = 0
    concurrent: Sequence[int] = ()
    #: the window lasts at least this long [s]: the inputs grow where calls are short
    min_time: float = 0.05
    #: a run stops after this long [s] once every chain has made a call (:func:`co_run`)
    limit: float = 2.0
    count: int = 12
    retries: int = 3
    size: str = "x"
    label: str = "co-run"
    retaken: int = 0
    kept_disturbed: int = 0
    #: per (term index, as in the points measured, x): the largest share of a kept window that
    #: other programs took, from the chains' threads or beside them (:attr:`CoRun.beside`; a
    #: study passes its executor target's, so that both persist together)
    wait_share: dict[tuple[int, float], float] = field(default_factory=dict)
    _count: dict[tuple[int, float], list[int]] = field(default_factory=dict, repr=False)
    #: per key of ``wait_share``: seconds other programs ran beside its runs, the runs' spans,
    #: and the largest share a kept run's threads lost
    _beside: dict[tuple[int, float], tuple[float, float, float]] = field(default_factory=dict, repr=False)
    _apart: dict[tuple[int, float], bool] = field(default_factory=dict, repr=False)

    def apart(self, i: int, x: float) -> bool:
        """Whether the chains of co-run ``i`` at size x are so far apart in length that the
        shorter one idles in a program for all but a tenth of the longer one's time: run back to
        back, a chain of microseconds that holds the GIL slows its neighbour down manyfold, a
        state no program of the two reaches (the time sharing weighs a neighbour by its busy
        time). Such a pair is not run side by side: each chain counts its period alone."""
        key = (i, x)
        if key not in self._apart:
            try:
                periods = [co_run([chain], [[make(x) for _ in range(3)]]).periods[0]
                           for chain, make in zip(self.sides[i], self.makers[i])]
            except Exception as exc:
                raise TargetFailed(Failure(None, f"{type(exc).__name__}: {exc}")) from None
            self._apart[key] = len(periods) > 1 and max(periods) > APART * min(periods)
        return self._apart[key]

    def measure(self, point: Mapping[str, float]) -> float:
        i = int(point.get("term", self.offset)) - self.offset
        if i >= len(self.sides):
            return self._measure(self.concurrent[i - len(self.sides)], point[self.size], True)
        return self._measure(i, point[self.size], False)

    def _measure(self, i: int, x: float, concurrency: bool) -> float:
        sides = [0] if self.apart(i, x) else list(range(len(self.sides[i])))
        counts = self._count.get((i, x), [self.count] * len(self.sides[i]))
        best: CoRun | None = None
        for attempt in range(self.retries + 1):
            run = self._run(i, x, counts, sides)
            if len(run.calls[0]) == 0 and len(sides) > 1:
                # one chain ran through all its calls before the other could start (the GIL
                # handed over only at the end): they did not run side by side, count it alone
                self._apart[(i, x)], sides = True, [0]
                run = self._run(i, x, counts, sides)
            if len(run.calls[0]) == 0:
                raise TargetFailed(Failure(None, "no call ran while every chain was running"))
            if best is None or not run.disturbed or run.lost < best.lost:
                best = run
            if not run.disturbed:
                break
            if attempt < self.retries:
                self.retaken += 1
        assert best is not None
        if best.disturbed:
            self.kept_disturbed += 1
        self._record((self.offset + i, x), best)
        if concurrency:
            return best.concurrency
        same = len(sides) > 1 and all(list(c) == list(self.sides[i][0]) for c in self.sides[i])
        # copies of one chain: the period of their calls together, per copy (the harmonic mean of
        # their periods: a pool's throughput is the copies' summed; which copy held a lock longer
        # is chance, and a copy with no call inside the window adds nothing)
        period = pooled_period(best.periods) if same else best.periods[0]
        if (i, x) not in self._count:
            # enough elements that every chain fills the window with its own inputs
            counts = list(counts)
            for j, p in zip(sides, best.periods):
                if np.isfinite(p):  # a neighbour with no call inside the window keeps its count
                    counts[j] = int(min(max(np.ceil(self.min_time / max(p, 1e-9)), 4), MAX_INPUTS))
            self._count[(i, x)] = counts
        return period

    def _record(self, key: tuple[int, float], run: CoRun) -> None:
        """``wait_share[key]``: the largest share a kept run's threads lost to other programs (or
        that an earlier invocation recorded), or the share of a core that other programs kept busy
        beside every run kept at ``key`` so far where that exceeds :data:`CROWDED` (over all of
        them: the system counts whole ticks, as long as a short run)."""
        # a resumed study starts from the share an earlier invocation recorded
        beside, span, lost = self._beside.get(key, (0.0, 0.0, self.wait_share.get(key, 0.0)))
        beside, span, lost = beside + run.beside, span + run.span, max(lost, run.lost)
        self._beside[key] = (beside, span, lost)
        crowded = beside / span if span > 0 and beside > others.TICKS * others.TICK else 0.0
        self.wait_share[key] = max(lost, min(crowded, 1.0) if crowded > CROWDED else 0.0)

    def _run(self, i: int, x: float, counts: Sequence[int], sides: Sequence[int]) -> CoRun:
        # at most DISTINCT elements a chain, made once and replayed in turn: making one may run
        # parts far longer than the chain itself
        inputs = [[self.makers[i][j](x) for _ in range(min(counts[j], DISTINCT))] for j in sides]
        try:
            return co_run([self.sides[i][j] for j in sides], inputs, calls=[counts[j] for j in sides], limit=self.limit)
        except Exception as exc:
            raise TargetFailed(Failure(None, f"{type(exc).__name__}: {exc}")) from None
