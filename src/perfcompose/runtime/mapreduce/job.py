"""Run one MapReduce job on the engine and time it: wall time at the client, per-phase times
from the engine's task records, and whether anything disturbed the run.

Each record (Dask's task stream) is one task that finished on a worker, with the intervals it
spent computing and fetching its inputs from other workers. A phase's time is the span from its
first activity to its last; fetching inputs from another worker counts as shuffle, whichever
task asked for them."""
from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np
from distributed import get_task_stream

from perfcompose.bench.tasks import KEYS, reduce_p, reduce_v
from perfcompose.runtime.mapreduce import ops
from perfcompose.runtime.mapreduce.engine import Engine, EngineError
from perfcompose.runtime.mapreduce.strategies import check_strategy, submit


@dataclass(frozen=True)
class PhaseTimes:
    """Seconds each phase took (first start to last stop), and the work in it."""

    map: float
    shuffle: float
    reduce: float
    #: seconds of computing summed over the phase's tasks
    map_busy: float
    reduce_busy: float
    #: seconds spent fetching inputs from other workers (summed)
    transfer_busy: float


@dataclass(frozen=True)
class Activity:
    """One interval of one task: what it did (compute or transfer), where and when."""

    key: str
    phase: str
    action: str
    worker: str
    thread: int | None
    start: float
    stop: float


def activities(records: Iterable[Mapping[str, Any]], phases: Mapping[str, str],
               offsets: Mapping[str, float] | None = None) -> list[Activity]:
    """The intervals of the tasks named in ``phases``; transfers are shuffle activity.

    ``offsets`` are subtracted from each worker's times: Dask shifts them by its estimate of the
    worker's clock offset, which on one machine is noise of up to tens of milliseconds."""
    offsets = offsets or {}
    out = []
    for rec in records:
        key: Any = rec.get("key")  # a Dask task key, as named in phases
        if key not in phases:
            continue
        for ss in rec.get("startstops", ()):
            action = ss.get("action")
            if action not in ("compute", "transfer"):
                continue
            phase = "shuffle" if action == "transfer" else phases[key]
            worker = str(rec.get("worker", ""))
            shift = offsets.get(worker, 0.0)
            out.append(Activity(str(key), phase, action, worker, rec.get("thread"),
                                float(ss["start"]) - shift, float(ss["stop"]) - shift))
    return out


def _covered(intervals: list[tuple[float, float]], lo: float, hi: float) -> float:
    """The length of the union of ``intervals`` within ``[lo, hi]``."""
    total, reach = 0.0, lo
    for a, b in sorted(intervals):
        a, b = max(a, reach), min(b, hi)
        if b > a:
            total, reach = total + b - a, b
    return total


def phase_times(acts: list[Activity]) -> PhaseTimes:
    """The phases as 000 sees them, one after the other: the map phase from the first map task's
    start to the last one's end; what follows until the last task ends is shuffle where some
    shuffle activity (a transfer or a partitioning task) runs, and reduce otherwise (reduce
    tasks, and the engine handing the results on). Reductions that overlap the map phase on
    nodes that finished early are inside the map phase's time.

    Workers' clocks agree only to within Dask's estimate of their offsets, so the last reduction
    can appear to end before the last map task on another worker; the reduce phase is then taken
    as at least the last reduction's own compute time, which one clock measured."""
    by = {p: [a for a in acts if a.phase == p] for p in ("map", "shuffle", "reduce")}
    transfers = [a for a in acts if a.action == "transfer"]
    if not by["map"]:
        return PhaseTimes(0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    start, end_map = min(a.start for a in by["map"]), max(a.stop for a in by["map"])
    end = max(a.stop for a in acts)
    shuffle = _covered([(a.start, a.stop) for a in by["shuffle"]], end_map, end)
    computed = [a for a in by["reduce"] if a.action == "compute"]
    final = max(computed, key=lambda a: a.stop, default=None)
    last = final.stop - final.start if final else 0.0
    return PhaseTimes(map=end_map - start, shuffle=shuffle, reduce=max(end - end_map - shuffle, last),
                      map_busy=sum(a.stop - a.start for a in by["map"]),
                      reduce_busy=sum(a.stop - a.start for a in computed),
                      transfer_busy=sum(a.stop - a.start for a in transfers))


def recomputed(acts: list[Activity]) -> list[str]:
    """Keys computed more than once (their results were lost with a worker and rerun)."""
    counts = Counter(a.key for a in acts if a.action == "compute")
    return sorted(k for k, c in counts.items() if c > 1)


def thread_gaps(acts: list[Activity]) -> list[float]:
    """The idle time between consecutive computations on each worker thread."""
    lanes: dict[tuple[str, Any], list[Activity]] = {}
    for a in acts:
        if a.action == "compute":
            lanes.setdefault((a.worker, a.thread), []).append(a)
    gaps = []
    for lane in lanes.values():
        lane.sort(key=lambda a: a.start)
        gaps += [b.start - a.stop for a, b in zip(lane, lane[1:])]
    return gaps


@dataclass(frozen=True)
class JobResult:
    """A finished job: its result, its times [s] and what the engine did."""

    result: Any
    strategy: str
    m: int
    n: int
    inputs: int
    #: seconds from the first submission to the result at the client
    wall: float
    phases: PhaseTimes
    tasks: int
    #: a worker was lost or a task ran twice: the time is not a clean measurement
    disturbed: bool = False
    why: str = ""

    def to_json(self) -> dict[str, Any]:
        """Every field but the result, the phases as a record of their own."""
        return {**{f.name: getattr(self, f.name) for f in fields(self)[1:]}, "phases": asdict(self.phases)}


def run_job(engine: Engine, inputs: Sequence[Any], map: Callable[[Any], Any], reduce: Callable[..., Any],
            strategy: str = "pairwise", keys: int = KEYS) -> JobResult:
    """Run ``mapreduce(map, reduce)`` over ``inputs`` on the engine's workers."""
    check_strategy(strategy)
    info = engine.refresh()
    with get_task_stream(engine.client) as stream:
        start = time.perf_counter()
        graph = submit(engine.client, info.workers, info.n, inputs, map, reduce, strategy, keys)
        try:
            result = graph.result.result()
        finally:
            wall = time.perf_counter() - start
            graph.release()
    try:
        now = engine.refresh().workers
    except EngineError:                     # every worker lost, none back yet
        now = ()
    acts = activities(stream.data, graph.phases, engine.clock_offsets())
    lost, again = sorted(set(info.workers) - set(now)), recomputed(acts)
    why = [*([f"worker{'s' if len(lost) > 1 else ''} lost: {', '.join(lost)}"] if lost else []),
           *([f"{len(again)} task(s) computed twice"] if again else [])]
    return JobResult(result, strategy, info.m, info.n, len(inputs), wall, phase_times(acts), len(graph.phases),
                     bool(why), "; ".join(why))


def run_mapreduce(inputs: Sequence[Any], map: Callable[[Any], Any], reduce: Callable[..., Any], *,
              strategy: str = "pairwise", keys: int = KEYS, engine: Engine | None = None, m: int = 1, n: int = 1,
              scheduler: str | None = None) -> JobResult:
    """``mapreduce(map, reduce)`` over ``inputs`` on Dask: on ``engine``, or on a cluster started
    for this job (m workers x n threads on this machine, or the cluster at ``scheduler``).

    ``map`` turns an input into a key-value collection (a vector indexed by key, ``keys`` long);
    ``reduce`` adds two collections for ``strategy="pairwise"``, or reduces the values of one
    key for ``"local"`` and ``"shuffle"``.
    """
    check_strategy(strategy)
    with nullcontext(engine) if engine is not None else Engine(m, n, scheduler=scheduler) as own:
        return run_job(own, inputs, map, reduce, strategy, keys)


def reducer(strategy: str) -> Callable[..., Any]:
    """The histogram's reduce function for a strategy: add two histograms, or sum one key's values."""
    return reduce_p if check_strategy(strategy) == "pairwise" else reduce_v


def histogram_job(engine: Engine, picture: str, strategy: str, inputs: int, repeat: int = 1) -> JobResult:
    """The pixel-channel histogram of ``inputs`` copies of a picture, each map repeated ``repeat`` times."""
    pics = [ops.Picture(picture, repeat)] * inputs
    return run_job(engine, pics, ops.picture_histogram, reducer(strategy), strategy, keys=KEYS)


def serial_histogram(picture: str, inputs: int) -> np.ndarray:
    """The reference result, computed here without the engine."""
    return ops.picture_histogram(ops.Picture(picture, 1)) * inputs
