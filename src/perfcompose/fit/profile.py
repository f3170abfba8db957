"""Fitting a whole application profile: a PMNF model for every call path and metric.

The series share their points, so chunks of them are aggregated and their hypotheses fitted in
one batch (:mod:`perfcompose.fit.batched`); each model is then chosen by the fitter's own rules,
as ``fitter.fit_series`` would. A large profile is fitted in forked processes, one per core, or
over a Dask scheduler's workers.

>>> from perfcompose.data import Experiment
>>> e = Experiment.single(["x"], [((x,), (3 + 2 * x,)) for x in (4, 8, 16, 32, 64)])
>>> [r.text(digits=6) for r in fit_profile(e)]
['3 + 2 * x^(1)']
"""
from __future__ import annotations

import dataclasses
import itertools
import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from typing import Any

import numpy as np

from perfcompose.data.experiment import Experiment, Series
from perfcompose.errors import FitError
from perfcompose.extras import require
from perfcompose.fit import batched
from perfcompose.fit.holdout import extrapolation_errors
from perfcompose.fit.noise import aggregated, point_weights_of, replicated
from perfcompose.fit.pmnf import PMNFFitter
from perfcompose.fit.result import FitResult, Pick, Progress, fit_statistics_many, predict
from perfcompose.progress_callbacks import one_bar

__all__ = ["fit_profile", "fit_chunk", "usable_cores"]

#: series per chunk: a batch of their hypotheses fills about 10^5 rows (a few tens of MB)
CHUNK = 512
#: the fewest series a Dask task fits (fewer would not fill a batch)
MIN_TASK = 64
#: profiles of at least this many series are fitted in several processes by default, where there
#: are several cores (a process takes a fraction of a second to start and to return its results)
AUTO_PROCESSES = 2048


def fit_chunk(fitter: PMNFFitter, parameters: tuple[str, ...], series: Sequence[Series], source: str = "",
              step: Callable[[Series], None] | None = None, alternatives: bool = True) -> list[FitResult]:
    """``fitter.fit_series(parameters, s, source)`` for every series ``s``, the series measured at
    the same points (and all with repetitions, or all without) fitted together; ``step(s)`` hears
    of each series done; without ``alternatives`` the results list no runners-up."""
    # per set of points (and repetitions or none): the coordinates, the fitter and the series
    by_points: dict[bytes, tuple[np.ndarray, PMNFFitter, list[int]]] = {}
    for i, s in enumerate(series):
        X = s.coordinates()
        reps = s.repetitions()
        values: Any = [p.values for p in s.points] if reps is None else reps
        key = X.tobytes() + repr(X.shape).encode() + (b"r" if replicated(values) else b"u")
        by_points.setdefault(key, (X, fitter.for_values(values), []))[2].append(i)
    results: list[Any] = [None] * len(series)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for X, fitter, same in by_points.values():
            shared = X.ndim == 2 and X.shape[1] == len(parameters) and len(X) > 0
            batch = shared and batched.batchable(fitter, X)
            # a block at a time: the fitted hypotheses of a series take tens of kB until it is chosen
            for b in range(0, len(same), CHUNK):
                members = same[b:b + CHUNK]
                mine = [series[i] for i in members]
                agg = batched.aggregate_many(fitter, mine)
                for j, result in _fit_block(fitter, parameters, mine, X, agg, batch, source, alternatives):
                    results[members[j]] = result
                    if step is not None:
                        step(mine[j])
    return results


# groups of hypotheses fitted beforehand, by (noise, whether scored as scattered points)
Fitted = dict[tuple[float, bool], list[Any]]


class _Unfitted(Exception):
    """A series asks for a search not fitted beforehand: its noise and whether scattered (the args)."""


def _fit_block(fitter: PMNFFitter, parameters: tuple[str, ...], series: Sequence[Series], X: np.ndarray, agg: Any,
               batch: bool, source: str, alternatives: bool = True, rounds: int = 4
               ) -> Iterator[tuple[int, FitResult]]:
    """(index, result) of every series of a block at coordinates ``X``, in some order: with ``batch``,
    the searches of all series (and the repeated searches some ask for, up to ``rounds`` times) are
    fitted at once; the forward checks too."""
    y, sigma = agg.y, agg.sigma
    fitted: dict[int, Fitted] = {}

    def search(asked: list[tuple[int, float]], scattered: bool) -> None:
        for a in range(0, len(asked), CHUNK):
            part = asked[a:a + CHUNK]
            rows = np.array([s for s, _ in part])
            noise = np.array([v for _, v in part])
            found = batched.multi_groups_many(fitter, X, y[rows], noise, scattered, prune=not alternatives,
                                              weights=agg.h[rows])
            for (s, v), groups in zip(part, found):
                fitted.setdefault(s, {})[(v, scattered)] = groups

    picks: dict[int, tuple[Pick, np.ndarray]] = {}
    pending = list(range(len(series)))
    if batch:
        fine = agg.done & np.all(np.isfinite(y) & (y >= 0), axis=1) & np.any(y != 0, axis=1)
        search([(s, float(sigma[s])) for s in np.flatnonzero(fine).tolist()], False)
    for round_no in range(rounds):
        strict = batch and round_no < rounds - 1
        asked: dict[bool, list[tuple[int, float]]] = {}
        waiting = []
        for j in pending:
            try:
                picks[j] = _pick_one(fitter, parameters, series[j], X, agg, j, fitted.get(j), strict)
            except _Unfitted as missing:
                sigma_j, scattered = missing.args
                asked.setdefault(scattered, []).append((j, sigma_j))
                waiting.append(j)
                continue
            fitted.pop(j, None)
        if not waiting:
            break
        for scattered, which in asked.items():
            search(which, scattered)
        pending = waiting
    order = list(picks)
    Y = np.array([picks[j][1] for j in order]).reshape(len(order), len(X))
    errors = extrapolation_errors([picks[j][0].chosen for j in order], X, Y)
    checked = [fitter._checked(X, picks[j][1], picks[j][0], e, alternatives) for j, e in zip(order, errors.tolist())]
    P = np.array([predict(c, X) for c, _ in checked]).reshape(Y.shape)
    stats = {k: v.tolist() for k, v in
             fit_statistics_many(Y, P, np.array([1 + c.n_terms for c, _ in checked], dtype=int)).items()}
    for i, (j, (chosen, ranked)) in enumerate(zip(order, checked)):
        result = fitter._result(parameters, chosen, ranked, picks[j][0], {k: v[i] for k, v in stats.items()})
        yield j, dataclasses.replace(result, region=series[j].region, metric=series[j].metric,
                                     unit=series[j].unit, source=source or "fit")


def _pick_one(fitter: PMNFFitter, parameters: tuple[str, ...], series: Series, X: np.ndarray, agg: Any, j: int,
              fitted: Fitted | None, strict: bool = False) -> tuple[Pick, np.ndarray]:
    """One series' pick (:meth:`PMNFFitter._pick`) and its aggregated values, from groups fitted
    beforehand where there are some for the search asked for; where there are none, ``strict``
    raises :class:`_Unfitted` (a series fitted beforehand asks for another search) and otherwise
    the fitter searches itself."""
    def groups(X: np.ndarray, y: np.ndarray, sigma: float, params: tuple[str, ...], progress: Any,
               scattered: bool = False, h: np.ndarray | None = None) -> Any:
        found = None if fitted is None else fitted.get((float(sigma), scattered))
        if found is not None:
            return found, True, ()
        if strict and fitted is not None:
            raise _Unfitted(float(sigma), scattered)
        return fitter._groups(X, y, sigma, params, progress, scattered=scattered, h=h)

    try:
        if agg.done[j]:
            y, sigma, h = agg.y[j], float(agg.sigma[j]), agg.h[j]
        else:
            values = [p.values for p in series.points]
            y, sigma = aggregated(values, fitter.aggregate)
            h = point_weights_of(values)
        return fitter._pick(X, y, sigma, parameters, None, search=groups, h=h), y
    except FitError as exc:
        raise FitError(f"{series.label}: {exc}") from None


def fit_profile(experiment: Experiment, *, fitter: PMNFFitter | None = None, scheduler: Any = None,
                progress: Any = None, workers: int | None = None, alternatives: bool = True) -> list[FitResult]:
    """One :class:`FitResult` per series of ``experiment``, in order, as ``fitter.fit_series`` gives each.

    ``scheduler``: None fits here, or, from :data:`AUTO_PROCESSES` series, in ``workers`` forked
    processes (default one per core); ``"processes"`` forks whatever the size; ``"local"`` starts a
    Dask LocalCluster; other text is a Dask scheduler's address; a ``distributed.Client`` is used as
    it is. ``progress``: a ``(label, done, total)`` callback or a rich ``Progress``. Without
    ``alternatives`` the results list no runners-up."""
    fitter = PMNFFitter() if fitter is None else fitter
    fitter._validate()
    # a rich Progress, a callback, or none
    step: Progress = one_bar(progress) if hasattr(progress, "add_task") else progress or (lambda *_: None)
    # points that hold stored statistics (Extra-P's saved experiments) give the one of the aggregate
    series = experiment.for_aggregate(fitter.aggregate).series
    total = len(series)
    params = tuple(experiment.parameters)
    if scheduler is None and total >= AUTO_PROCESSES and (workers or usable_cores()) > 1 and _can_fork():
        scheduler = "processes"
    if scheduler == "processes":
        results = _in_processes(fitter, params, series, experiment.source, workers or usable_cores(), step,
                                alternatives)
    elif scheduler is None:
        done = itertools.count(1)
        step("fitting", 0, total)
        results = fit_chunk(fitter, params, series, experiment.source,
                            lambda s: step(f"fitting {s.label}", next(done), total), alternatives)
    else:
        results = _on_dask(fitter, params, series, experiment.source, scheduler, workers, step, alternatives)
    step("fitted", total, total)
    return results


def usable_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:   # not on Linux
        return os.cpu_count() or 1


def _can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


# what the forked processes fit: (fitter, parameters, series, source, alternatives), set while they run
_SHARED: tuple[PMNFFitter, tuple[str, ...], Sequence[Series], str, bool] | None = None


def _fit_range(bounds: tuple[int, int]) -> list[FitResult]:
    """The results of the series ``bounds`` (a, b) of the profile being fitted (in a forked process)."""
    assert _SHARED is not None
    fitter, params, series, source, alternatives = _SHARED
    return fit_chunk(fitter, params, series[bounds[0]:bounds[1]], source, alternatives=alternatives)


def _in_processes(fitter: PMNFFitter, params: tuple[str, ...], series: Sequence[Series], source: str, workers: int,
                  step: Progress, alternatives: bool = True) -> list[FitResult]:
    """The chunks of ``series`` fitted in ``workers`` processes forked from this one (which share
    the series with it, so only the results travel), results in order; in this process where
    processes cannot be forked."""
    global _SHARED
    if not _can_fork() or workers < 2:
        return fit_chunk(fitter, params, series, source, alternatives=alternatives)
    size = max(MIN_TASK, min(2 * CHUNK, -(-len(series) // (4 * workers))))
    bounds = [(a, min(a + size, len(series))) for a in range(0, len(series), size)]
    results: list[FitResult] = []
    step("fitting", 0, len(series))
    _SHARED = (fitter, params, series, source, alternatives)
    try:
        with multiprocessing.get_context("fork").Pool(min(workers, len(bounds))) as pool:
            for part in pool.imap(_fit_range, bounds):
                results.extend(part)
                step(f"fitted {len(results)} series", len(results), len(series))
    finally:
        _SHARED = None
    return results


def _on_dask(fitter: PMNFFitter, params: tuple[str, ...], series: Sequence[Series], source: str, scheduler: Any,
             workers: int | None, step: Progress, alternatives: bool = True) -> list[FitResult]:
    """The chunks of ``series`` fitted on the workers of a Dask cluster, results in order."""
    require("dask", "fitting on Dask (--scheduler)")
    # the one place fitting loads Dask (a profile fitted without a scheduler needs none)
    from dask import config as dask_config
    from distributed import Client, as_completed

    from perfcompose.runtime.mapreduce.engine import Engine

    with ExitStack() as stack:
        if isinstance(scheduler, Client):
            client = scheduler
            n = max(1, len(client.scheduler_info().get("workers", {})))
        elif scheduler == "local":
            n = workers or os.cpu_count() or 1
            # the workers' statistical profiler samples the task's stack every 10 ms: a third more
            # CPU for this Python-heavy work; a cluster started here runs without it
            stack.enter_context(dask_config.set({"distributed.worker.profile.enabled": False}))
            client = stack.enter_context(Engine(m=n, n=1)).client
        else:
            engine = stack.enter_context(Engine(scheduler=str(scheduler)))
            client, n = engine.client, max(1, engine.info.m)
        # a few chunks per worker keep them all busy to the end; no chunk is smaller than a batch
        size = max(MIN_TASK, min(4 * CHUNK, -(-len(series) // (4 * n))))
        remote = client.scatter(fitter, broadcast=True)
        # two chunks per worker in flight: the next is there when one ends, and the series
        # waiting on the workers stay few (each chunk's series travel with its task)
        pending = iter((a, list(series[a:a + size])) for a in range(0, len(series), size))
        starts: dict[Any, int] = {}

        def submit() -> Any:
            a, part = next(pending, (-1, []))
            if not part:
                return None
            future = client.submit(fit_chunk, remote, params, part, source, None, alternatives, pure=False)
            starts[future] = a
            return future

        flight = as_completed([f for f in (submit() for _ in range(2 * n)) if f is not None])
        results: list[Any] = [None] * len(series)
        done = 0
        step("fitting", 0, len(series))
        for future in flight:
            part = future.result()
            a = starts.pop(future)
            future.release()
            results[a:a + len(part)] = part
            done += len(part)
            step(f"fitted {done} series", done, len(series))
            following = submit()
            if following is not None:
                flight.add(following)
        return results
