"""MapReduce on Dask, measured against its predictions (000 Tables 3 and 5).

Every configuration (picture, strategy, m nodes, n threads) runs the pixel-channel histogram
of x copies of a picture on a Dask cluster of m workers x n threads. Next to each job are
measured, in the same round, what the predictions need: the map task alone in this process
(the papers' atomic model) and inside the engine with every thread busy, and the engine's cost
per task and per job; once per cluster, the latency of dependent tasks and the bandwidth
between workers. Two predictions are set beside the measurement: the papers' operator over the
atomic models (eq. 5-7, "naive") and the calibrated one (``compose.mapreduce``).

Rounds are checkpointed one (cluster, round, picture) at a time; an interrupted study resumes
without losing a finished measurement.
"""
from __future__ import annotations

import contextlib
import itertools
import os
import random
import statistics
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from perfcompose.bench.tasks import reduce_p, reduce_v
from perfcompose.checkpoint import Checkpoint, read_records
from perfcompose.choices import MAPREDUCE_STRATEGIES as STRATEGY_NAMES
from perfcompose.choices import PICTURES
from perfcompose.compose.mapreduce import EngineCosts, calibrated_model, paper_model
from perfcompose.errors import InputError, PerfcomposeError
from perfcompose.model import Model
from perfcompose.runtime.mapreduce import ops
from perfcompose.runtime.mapreduce.calibrate import probe_bandwidth, probe_hops, probe_map, time_here
from perfcompose.runtime.mapreduce.engine import Engine, check_address
from perfcompose.runtime.mapreduce.job import histogram_job, serial_histogram
from perfcompose.runtime.mapreduce.ops import Picture, picture_histogram, prepare_picture
from perfcompose.runtime.mapreduce.strategies import check_strategy
from perfcompose.validate.modular import checkpoint_dir
from perfcompose.validate.paper_hadoop import table3_check

Progress = Callable[[str, int, int], None]

#: the paper's grid (000 section 4.2.5): m nodes x n threads
PAPER_M = (1, 2, 4)
PAPER_N = (1, 2, 4, 8, 12, 24)
#: map repetitions per picture: every map task does about as much work as one of the large
#: picture repeated 4 times (~16 ms here), coarse enough for the engine's per-task cost
REPEAT = {"small": 320, "medium": 36, "large": 4}
QUICK_X, FULL_X = (16,), (32,)
QUICK_ROUNDS, FULL_ROUNDS = 5, 9


@dataclass(frozen=True)
class MapReduceRow:
    """One configuration: measured and predicted seconds per job, from the round with the median
    error of the calibrated prediction (:func:`median_pair`)."""

    picture: str
    strategy: str
    m: int
    n: int
    x: int
    repeat: int
    measured: float
    naive: float
    calibrated: float
    #: median per-phase seconds from the engine's records
    phases: Mapping[str, float]
    rounds: int
    disturbed: int = 0
    #: the median of the measured times over the rounds, and the range of the rounds' errors
    median_wall: float = float("nan")
    error_range: tuple[float, float] = (float("nan"), float("nan"))

    @property
    def error(self) -> float:
        """Signed relative error of the calibrated prediction."""
        return (self.calibrated - self.measured) / self.measured

    @property
    def error_naive(self) -> float:
        return (self.naive - self.measured) / self.measured

    def to_json(self) -> dict[str, Any]:
        return {"picture": self.picture, "strategy": self.strategy, "m": self.m, "n": self.n, "x": self.x,
                "repeat": self.repeat, "measured": self.measured, "predicted": self.calibrated,
                "error": self.error, "predicted_naive": self.naive, "error_naive": self.error_naive,
                "phases": dict(self.phases), "rounds": self.rounds, "disturbed_rounds": self.disturbed,
                "measured_median": self.median_wall, "error_min": self.error_range[0],
                "error_max": self.error_range[1]}


@dataclass(frozen=True)
class Cluster:
    """What was measured once on one cluster."""

    m: int
    n: int
    costs: Mapping[str, Any]
    malloc_trim: tuple[str | None, ...]
    address: str = ""


@dataclass(frozen=True)
class MapReduceStudy:
    rows: tuple[MapReduceRow, ...]
    clusters: tuple[Cluster, ...]
    skipped: tuple[tuple[int, int, str], ...] = ()
    rounds: int = 0
    xs: tuple[int, ...] = ()
    folder: Path | None = None

    def to_json(self) -> dict[str, Any]:
        return {"configurations": [r.to_json() for r in self.rows],
                "clusters": [asdict(c) for c in self.clusters],
                "skipped": [{"m": m, "n": n, "why": why} for m, n, why in self.skipped],
                "rounds": self.rounds, "x": list(self.xs), "unit": "s",
                "error": "(predicted - measured) / measured"}


def cluster_grid(cores: int, ms: Sequence[int] = PAPER_M, ns: Sequence[int] = PAPER_N
                 ) -> tuple[list[tuple[int, int]], list[tuple[int, int, str]]]:
    """The paper's (m, n) that fit ``cores`` (m n <= cores), and the rest with why."""
    kept = [(m, n) for m in ms for n in ns if m * n <= cores]
    skipped = [(m, n, f"m*n = {m * n} > {cores} cores") for m in ms for n in ns if m * n > cores]
    return kept, skipped


def check_cluster(m: int, n: int, cores: int | None = None) -> None:
    cores = cores or os.cpu_count() or 1
    if m < 1 or n < 1:
        raise PerfcomposeError(f"m and n must be at least 1, got m={m}, n={n}")
    if m * n > cores:
        raise PerfcomposeError(f"m*n = {m * n} workers' threads do not fit this machine's {cores} cores: "
                               "a measurement would time the oversubscription; give a smaller m or n, or "
                               "a cluster with --scheduler")


# -- checkpoints ---------------------------------------------------------------------------------

def _cluster_checkpoint(folder: Path, spec: tuple[int, int] | None, restart: bool) -> Checkpoint:
    """The locked checkpoint of one cluster of a study (``restart`` empties it)."""
    path = folder / ("cluster-" + (f"m{spec[0]}-n{spec[1]}" if spec else "scheduler") + ".jsonl")
    return Checkpoint.open(path, restart=restart, busy=lambda: InputError(
        "another mapreduce study is measuring into this checkpoint", path=path,
        hint="wait for it to finish (then run again to resume), or give another checkpoint folder"))


def _saved_records(store: Checkpoint | None) -> list[dict[str, Any]]:
    """The good records of a cluster's checkpoint; a corrupt line is skipped with a warning (the
    round it held is measured again)."""
    if store is None:
        return []
    records, corrupt = read_records(store)
    for line in corrupt:
        warnings.warn(f"{store.path}, line {line}: corrupt checkpoint line skipped (its round is measured "
                      "again)", stacklevel=3)
    return records


# -- measuring -----------------------------------------------------------------------------------

def _reduce_parts(reps: int = 51) -> dict[str, Model]:
    """reduce_p and reduce_v timed here, alone: the papers' atomic models [s]."""
    h = picture_histogram(Picture("small", 1))
    pair = time_here(reduce_p, h, h, reps=reps)
    sizes = (1024, 16384, 131072)
    times = [time_here(reduce_v, np.arange(d, dtype=np.int64), reps=reps) for d in sizes]
    slope, intercept = np.polyfit(np.array(sizes, float), np.array(times), 1)
    return {"reduce_p": Model.constant(pair, params=("x",)),
            "reduce_v": Model.parse(f"{max(float(intercept), 0.0)!r} + {max(float(slope), 1e-15)!r}*x")}


def _measure_round(engine: Any, picture: str, repeat: int, strategies: Sequence[str], xs: Sequence[int],
                   seed: int) -> dict[str, Any]:
    """The jobs of one picture in a shuffled order, each between two calibrations (the map task
    alone here and inside the engine): a prediction uses the two around its job, so that a load
    that comes and goes on the machine meets the calibration as it meets the job."""
    item = ops.Picture(picture, repeat)
    # a probe half as long as the shortest job: a short burst of work on a loaded machine gets
    # more than its share of the cores (the OS favours a process that has been sleeping)
    info = engine.refresh()
    waves = max(3, min(xs) // (2 * info.m * info.n))

    def calibration() -> dict[str, Any]:
        return {"isolated": time_here(ops.picture_histogram, item, reps=3),
                "probe": probe_map(engine, ops.picture_histogram, item, waves=waves).to_json()}

    jobs = [(s, x) for s in strategies for x in xs]
    random.Random(seed).shuffle(jobs)
    points = [calibration()]
    out = {}
    for k, (s, x) in enumerate(jobs):
        res = histogram_job(engine, picture, s, x, repeat)
        if not np.array_equal(res.result, serial_histogram(picture, x)):
            raise PerfcomposeError(f"{s} on {picture} x {x} returned a wrong histogram")
        out[f"{s}@{x}"] = {**res.to_json(), "calibration": k}
        points.append(calibration())
    return {"calibrations": points, "jobs": out}


def _around(unit: Mapping[str, Any], job: Mapping[str, Any]) -> dict[str, Any]:
    """The mean of the calibrations just before and just after a job."""
    a, b = unit["calibrations"][job["calibration"]], unit["calibrations"][job["calibration"] + 1]
    probe = {k: (a["probe"][k] + b["probe"][k]) / 2 for k in a["probe"]}
    return {"isolated": (a["isolated"] + b["isolated"]) / 2, "probe": probe}


def _predictions(strategy: str, m: int, n: int, x: int, cluster: Mapping[str, Any],
                 unit: Mapping[str, Any]) -> tuple[float, float]:
    """The papers' prediction (atomic models timed alone) and the calibrated one [s]."""
    reduce_parts = {k: Model.parse(cluster[k], params=("x",)) for k in ("reduce_p", "reduce_v")}
    naive_parts = {"map": Model.constant(unit["isolated"], params=("x",)), **reduce_parts}
    engine_parts = {"map": Model.constant(unit["probe"]["compute"], params=("x",)), **reduce_parts}
    costs = EngineCosts(job=unit["probe"]["job"], dispatch=unit["probe"]["dispatch"],
                        hop_local=cluster["hop_local"], hop_remote=cluster["hop_remote"],
                        bandwidth=cluster["bandwidth"])
    naive = paper_model(strategy, m, n, naive_parts, cluster["bandwidth"])(x=x)
    calibrated = calibrated_model(strategy, m, n, engine_parts, costs)(x=x)
    return float(naive), float(calibrated)


def median_pair(samples: Sequence[tuple[Mapping[str, Any], float, float]]
                ) -> tuple[Mapping[str, Any], float, float]:
    """The round whose calibrated prediction has the median relative error (the lower median
    of an even count). Each round pairs a job with the calibrations around it, so a burst of
    other work on the machine moves both; the medians of the measured and of the predicted times
    taken apart can come from different rounds, one loaded and one quiet."""
    ranked = sorted(samples, key=lambda t: (t[2] - t[0]["wall"]) / t[0]["wall"])
    return ranked[(len(ranked) - 1) // 2]


def _rows(m: int, n: int, cluster: Mapping[str, Any], units: Sequence[Mapping[str, Any]], run: _Run
          ) -> list[MapReduceRow]:
    rows = []
    for picture, s, x in itertools.product(run.pictures, run.strategies, map(int, run.xs)):
        samples = [(job, *_predictions(s, m, n, x, cluster, _around(u, job)))
                   for u in units if u["picture"] == picture for job in [u["jobs"][f"{s}@{x}"]]]
        clean = [t for t in samples if not t[0]["disturbed"]] or samples
        phases = {p: statistics.median(t[0]["phases"][p] for t in clean) for p in ("map", "shuffle", "reduce")}
        job, naive, calibrated = median_pair(clean)
        errors = [(t[2] - t[0]["wall"]) / t[0]["wall"] for t in clean]
        rows.append(MapReduceRow(picture, s, m, n, x, run.repeat[picture], measured=job["wall"], naive=naive,
                                 calibrated=calibrated, phases=phases, rounds=len(clean),
                                 disturbed=len(samples) - len(clean), error_range=(min(errors), max(errors)),
                                 median_wall=statistics.median(t[0]["wall"] for t in clean)))
    return rows


@dataclass
class _Run:
    """What every cluster of one study shares, and how many of its rounds are done."""

    pictures: Sequence[str]
    strategies: Sequence[str]
    xs: Sequence[int]
    rounds: int
    repeat: Mapping[str, int]
    scheduler: str | None
    malloc_trim: int | None
    progress: Progress | None
    total: int
    done: int = 0

    def say(self, label: str) -> None:
        if self.progress:
            self.progress(label, self.done, self.total)


def _check_options(pictures: Sequence[str], strategies: Sequence[str], xs: Sequence[int], rounds: int,
                   repeat: Mapping[str, int] | None) -> dict[str, int]:
    """Refuse options a study cannot run with; the map repetitions per picture."""
    for s in strategies:
        check_strategy(s)
    for p in pictures:
        if p not in PICTURES:
            raise PerfcomposeError(f"unknown picture {p!r}; choose one of: {', '.join(PICTURES)}")
    if rounds < 1 or not xs or min(xs) < 1:
        raise PerfcomposeError("need at least one round and inputs x >= 1")
    out = {**REPEAT, **(repeat or {})}
    if min(out.values()) < 1:
        raise PerfcomposeError("the map repetitions R must be at least 1")
    return out


def _cluster_plan(clusters: Sequence[tuple[int, int]] | None, scheduler: str | None
                  ) -> tuple[list[tuple[int, int] | None], list[tuple[int, int, str]]]:
    """The clusters to measure (None: the scheduler's) and the grid's clusters left out, with why."""
    cores = os.cpu_count() or 1
    if scheduler is not None:
        check_address(scheduler)
        return [None], []
    if clusters is not None:
        for m, n in clusters:
            check_cluster(m, n, cores)
        return list(clusters), []
    kept, skipped = cluster_grid(cores)
    return list(kept), skipped


def _measure_missing(run: _Run, spec: tuple[int, int] | None, head: dict[str, Any] | None,
                     todo: list[tuple[int, str]], units: dict[tuple[int, str], dict[str, Any]],
                     store: Checkpoint | None) -> dict[str, Any]:
    """Start the cluster and measure what its checkpoint lacks: the cluster's own calibration
    (when ``head`` is None) and the rounds ``todo``, each saved as soon as it is measured."""
    run.say(f"starting {f'm={spec[0]} n={spec[1]}' if spec else run.scheduler}")
    with Engine(*(spec or (1, 1)), scheduler=run.scheduler, malloc_trim=run.malloc_trim) as engine:
        info = engine.refresh()
        m, n = info.m, info.n
        for p in run.pictures:
            engine.run_on_workers(prepare_picture, p)
        if head is None:
            hops, parts = probe_hops(engine), _reduce_parts()
            head = {"kind": "cluster", "m": m, "n": n, "address": info.address,
                    "malloc_trim": list(info.malloc_trim), "hop_local": hops.local, "hop_remote": hops.remote,
                    "bandwidth": probe_bandwidth(engine), "reduce_p": str(parts["reduce_p"]),
                    "reduce_v": str(parts["reduce_v"])}
            if store is not None:
                store.append(head)
        for r, p in todo:
            run.say(f"m={m} n={n} round {r + 1}/{run.rounds} {p}")
            unit = {"kind": "round", "round": r, "picture": p,
                    **_measure_round(engine, p, run.repeat[p], run.strategies, run.xs, seed=r * 31 + len(p))}
            if store is not None:
                store.append(unit)
            units[(r, p)] = unit
            run.done += 1
    return head


def _study_cluster(run: _Run, spec: tuple[int, int] | None, store: Checkpoint | None
                   ) -> tuple[Cluster, list[MapReduceRow]]:
    """One cluster of a study: resumed from its checkpoint, measured where that lacks rounds."""
    records = _saved_records(store)
    head = next((r for r in records if r.get("kind") == "cluster"), None)
    units = {(r["round"], r["picture"]): r for r in records if r.get("kind") == "round"}
    todo = [(r, p) for r in range(run.rounds) for p in run.pictures if (r, p) not in units]
    run.done += run.rounds * len(run.pictures) - len(todo)
    if todo or head is None:
        head = _measure_missing(run, spec, head, todo, units, store)
    m, n = head["m"], head["n"]
    cluster = Cluster(m, n, {k: head[k] for k in ("hop_local", "hop_remote", "bandwidth", "reduce_p", "reduce_v")},
                      tuple(head["malloc_trim"]), head.get("address", ""))
    rows = _rows(m, n, head, [units[(r, p)] for r in range(run.rounds) for p in run.pictures], run)
    return cluster, rows


def study(*, pictures: Sequence[str] = PICTURES, strategies: Sequence[str] = STRATEGY_NAMES,
          clusters: Sequence[tuple[int, int]] | None = None, xs: Sequence[int] = QUICK_X,
          rounds: int = QUICK_ROUNDS, repeat: Mapping[str, int] | None = None, scheduler: str | None = None,
          malloc_trim: int | None = None, checkpoints: Path | None = None, restart: bool = False,
          progress: Progress | None = None) -> MapReduceStudy:
    """Measure every configuration and predict it; see the module's description.

    ``clusters`` are the (m, n) to start on this machine (default: the paper's grid that fits
    the cores); with ``scheduler`` the one cluster there is used as it is.
    """
    reps = _check_options(pictures, strategies, xs, rounds, repeat)
    plan, skipped = _cluster_plan(clusters, scheduler)
    identity = {"pictures": list(pictures), "strategies": list(strategies), "x": [int(v) for v in xs],
                "repeat": {p: reps[p] for p in pictures}, "scheduler": scheduler, "malloc_trim": malloc_trim}
    folder = checkpoint_dir(checkpoints, identity, "mapreduce") if checkpoints is not None else None
    run = _Run(pictures, strategies, xs, rounds, reps, scheduler, malloc_trim, progress,
               total=len(plan) * rounds * len(pictures))
    rows: list[MapReduceRow] = []
    found: list[Cluster] = []
    for spec in plan:
        with _cluster_checkpoint(folder, spec, restart) if folder else contextlib.nullcontext() as store:
            cluster, more = _study_cluster(run, spec, store)
        found.append(cluster)
        rows += more
    if progress:
        progress("done", run.total, run.total)
    return MapReduceStudy(tuple(rows), tuple(found), tuple(skipped), rounds, tuple(int(v) for v in xs), folder)


# -- summaries -----------------------------------------------------------------------------------

def summary(rows: Sequence[MapReduceRow], calibrated: bool = True) -> list[tuple[str, tuple[float, ...]]]:
    """Table 5's grouping: |relative error| in % by picture, strategy, n and m (min, max, median,
    mean, std)."""
    def stats(errs: list[float]) -> tuple[float, ...]:
        a = np.abs(np.array(errs)) * 100
        return (float(a.min()), float(a.max()), float(np.median(a)), float(a.mean()),
                float(a.std(ddof=1)) if len(a) > 1 else 0.0)

    groups: list[tuple[str, list[MapReduceRow]]] = [("all", list(rows))]
    groups += [(p, [r for r in rows if r.picture == p]) for p in PICTURES]
    groups += [(s, [r for r in rows if r.strategy == s]) for s in STRATEGY_NAMES]
    groups += [(f"n={n}", [r for r in rows if r.n == n]) for n in sorted({r.n for r in rows})]
    groups += [(f"m={m}", [r for r in rows if r.m == m]) for m in sorted({r.m for r in rows})]
    return [(name, stats([r.error if calibrated else r.error_naive for r in g])) for name, g in groups if g]


@dataclass(frozen=True)
class Table3Row:
    """One thread count of 000 Table 3: the paper's models, and (where it fits) the slope
    measured here with its modular predictions [s per input]."""

    n: int
    paper_monolithic: float
    paper_modular: float
    paper_error: float  #: in %, as printed
    composed: float  #: the paper's modular model composed here
    measured: float | None = None  #: None where this machine cannot run n threads at m = 1
    naive: float | None = None
    calibrated: float | None = None


def _slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    return float(np.polyfit(np.asarray(xs, float), np.asarray(ys, float), 1)[0])


def table3(study_result: MapReduceStudy | None) -> list[Table3Row]:
    """000 Table 3: the modular column recomposed from the paper's Table 1 (eq. 6), and, for the
    thread counts measured here (m = 1, pairwise, large picture), the per-input slope of the
    measured time next to the slopes of the two predictions."""
    out = []
    for c in table3_check():
        mine = [r for r in (study_result.rows if study_result else ()) if r.n == c.n and r.m == 1]
        xs = [r.x for r in mine]
        slopes = ([_slope(xs, [getattr(r, k) for r in mine]) for k in ("measured", "naive", "calibrated")]
                  if len(set(xs)) >= 2 else [])
        out.append(Table3Row(c.n, c.printed_monolithic, c.printed_modular, c.printed_error, c.composed, *slopes))
    return out
