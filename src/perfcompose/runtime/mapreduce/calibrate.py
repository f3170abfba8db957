"""Probes that time the engine itself, so that a prediction can include what the papers'
operators leave out: the map task's time inside the engine at the cluster's concurrency, the
engine's cost per task and per dependent step, a job's fixed cost, and the bandwidth between
workers (loopback here, the network on a cluster)."""
from __future__ import annotations

import statistics
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from distributed import get_task_stream, wait

from perfcompose.runtime.mapreduce import ops
from perfcompose.runtime.mapreduce.engine import Engine
from perfcompose.runtime.mapreduce.job import activities, thread_gaps
from perfcompose.runtime.mapreduce.strategies import split


@dataclass(frozen=True)
class MapProbe:
    """A map-only job of a few waves of map tasks on every thread of the cluster."""

    #: seconds per map task inside the engine, all threads busy (median)
    compute: float
    #: seconds a thread waits between two queued tasks (median): the engine's cost per task
    dispatch: float
    #: seconds of the job outside its tasks: submitting it and fetching the result
    job: float

    def to_json(self) -> dict[str, float]:
        return asdict(self)


@dataclass(frozen=True)
class Hops:
    """The latency of a task that waits for another one: on the same worker, and on another
    worker (with a small transfer)."""

    local: float
    remote: float | None


def _run(engine: Engine, submit: Callable[[Any], list[Any]]) -> tuple[float, list[Any], dict[str, str]]:
    with get_task_stream(engine.client) as stream:
        start = time.perf_counter()
        futures = submit(engine.client)
        engine.client.gather(futures)
        wall = time.perf_counter() - start
    keys = {f.key: "map" for f in futures}
    for f in futures:
        f.release()
    return wall, stream.data, keys


def probe_map(engine: Engine, func: Callable[[Any], Any], item: Any, waves: int = 3) -> MapProbe:
    """Run ``waves`` x m x n map tasks, placed as a job places them, and read their records."""
    info = engine.refresh()
    count = waves * info.m * info.n
    tag = uuid.uuid4().hex[:10]

    def submit(client: Any) -> list[Any]:
        return [client.submit(func, item, key=f"map-{tag}-{i}", workers=[info.workers[j]],
                              allow_other_workers=True, pure=False)
                for j, (lo, hi) in enumerate(split(count, info.m)) for i in range(lo, hi)]

    wall, records, keys = _run(engine, submit)
    acts = [a for a in activities(records, keys, engine.clock_offsets()) if a.action == "compute"]
    span = max(a.stop for a in acts) - min(a.start for a in acts)
    gaps = thread_gaps(acts)
    return MapProbe(compute=statistics.median(a.stop - a.start for a in acts),
                    dispatch=statistics.median(gaps) if gaps else 0.0, job=max(wall - span, 0.0))


def _chain(engine: Engine, length: int, remote: bool) -> float:
    info = engine.refresh()
    tag = uuid.uuid4().hex[:10]

    def submit(client: Any) -> list[Any]:
        prev = client.submit(ops.payload, 6144, key=f"hop-{tag}-0", workers=[info.workers[0]], pure=False)
        chain = [prev]
        for k in range(1, length + 1):
            where = info.workers[k % 2 if remote else 0]
            prev = client.submit(ops.identity, prev, key=f"hop-{tag}-{k}", workers=[where], pure=False)
            chain.append(prev)
        return [prev] + chain[:-1]

    wall, _, _ = _run(engine, submit)
    return wall


def probe_hops(engine: Engine, length: int = 8, reps: int = 3) -> Hops:
    """Chains of dependent tasks, of 1 and ``length + 1`` links; the slope is one hop."""
    def hop(remote: bool) -> float:
        slopes = [(_chain(engine, length + 1, remote) - _chain(engine, 1, remote)) / length for _ in range(reps)]
        return max(statistics.median(slopes), 0.0)

    info = engine.refresh()
    return Hops(local=hop(False), remote=hop(True) if info.m > 1 else None)


def probe_bandwidth(engine: Engine, nbytes: int = 32 << 20, reps: int = 3) -> float | None:
    """Bytes per second from one worker to another, from the engine's own transfer records
    (None on one worker)."""
    info = engine.refresh()
    if info.m < 2:
        return None
    rates = []
    for _ in range(reps):
        tag = uuid.uuid4().hex[:10]
        src = engine.client.submit(ops.payload, nbytes, key=f"payload-{tag}", workers=[info.workers[0]], pure=False)
        wait([src])
        with get_task_stream(engine.client) as stream:
            dst = engine.client.submit(ops.first, src, key=f"fetch-{tag}", workers=[info.workers[1]], pure=False)
            dst.result()
        seconds = [ss["stop"] - ss["start"] for rec in stream.data if rec.get("key") == dst.key
                   for ss in rec.get("startstops", ()) if ss.get("action") == "transfer"]
        if seconds and seconds[0] > 0:
            rates.append(nbytes / seconds[0])
        src.release()
        dst.release()
    return statistics.median(rates) if rates else None


def time_here(func: Callable[..., Any], *args: Any, reps: int = 5) -> float:
    """Median seconds of ``func(*args)`` in this process, alone: the papers' atomic model."""
    func(*args)
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        func(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times)
