"""Per-phase times from the engine's own task records (Dask's task stream).

Each record is one task that finished on a worker, with the intervals it spent computing and
fetching its inputs from other workers. A phase's time is the span from its first activity to
its last; fetching inputs from another worker counts as shuffle, whichever task asked for them.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


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
