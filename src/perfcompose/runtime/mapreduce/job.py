"""Run one MapReduce job on the engine and time it: wall time at the client, per-phase times
from the engine's task records, and whether anything disturbed the run."""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np
from distributed import get_task_stream

from perfcompose.bench.tasks import KEYS, reduce_p, reduce_v
from perfcompose.runtime.mapreduce import ops
from perfcompose.runtime.mapreduce.engine import Engine, EngineError
from perfcompose.runtime.mapreduce.records import PhaseTimes, activities, phase_times, recomputed
from perfcompose.runtime.mapreduce.strategies import check_strategy, submit


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
    if engine is not None:
        return run_job(engine, inputs, map, reduce, strategy, keys)
    with Engine(m, n, scheduler=scheduler) as own:
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
