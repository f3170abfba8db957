"""Fitting a whole application profile: a PMNF model for every call path and metric of an experiment.

The series of a profile share their measurement points, so they are fitted in chunks: the
repetitions of a chunk are aggregated at once and the hypotheses of all its series fitted in one
batch (:mod:`perfcompose.fit.batched`); each series' model is then chosen by the fitter's own
rules, so the results are those of ``fitter.fit_series`` on each series. Given a Dask scheduler
(or ``"local"``), the chunks are spread over its workers.

>>> from perfcompose.data import Experiment
>>> e = Experiment.single(["x"], [((x,), (3 + 2 * x,)) for x in (4, 8, 16, 32, 64)])
>>> [r.text(digits=6) for r in fit_profile(e)]
['3 + 2 * x^(1)']
"""
from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from perfcompose.data.experiment import Experiment, Series
from perfcompose.errors import FitError
from perfcompose.fit.pmnf import FitResult, PMNFFitter

__all__ = ["fit_profile", "fit_chunk"]

# a progress callback: (what runs now, series done, series in all)
Progress = Callable[[str, int, int], None]

#: series per chunk: a batch of their hypotheses fills about 10^5 rows (a few tens of MB)
CHUNK = 512
#: the fewest series a Dask task fits (fewer would not fill a batch)
MIN_TASK = 64


def _progress_callback(progress: Any) -> Progress | None:
    """A ``(label, done, total)`` callback from a callable or from a rich ``Progress`` (one task)."""
    if progress is None or not hasattr(progress, "add_task"):
        return progress
    task: list[Any] = []

    def step(label: str, done: int, total: int) -> None:
        if not task:
            task.append(progress.add_task(label, total=total))
        progress.update(task[0], completed=done, description=label)

    return step


def fit_chunk(fitter: PMNFFitter, parameters: tuple[str, ...], series: Sequence[Series], source: str = "",
              step: Callable[[Series], None] | None = None) -> list[FitResult]:
    """``fitter.fit_series(parameters, s, source)`` for every series ``s``, the series measured at
    the same points fitted together; ``step(s)`` hears of each series done."""
    from perfcompose.fit import batched

    by_points: dict[bytes, list[int]] = {}
    coordinates: dict[bytes, np.ndarray] = {}
    for i, s in enumerate(series):
        X = s.coordinates()
        key = X.tobytes() + repr(X.shape).encode()
        by_points.setdefault(key, []).append(i)
        coordinates.setdefault(key, X)
    results: list[Any] = [None] * len(series)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for key, same in by_points.items():
            X = coordinates[key]
            shared = X.ndim == 2 and X.shape[1] == len(parameters) and len(X) > 0
            batch = shared and batched.batchable(fitter, X)
            # a block at a time: the fitted hypotheses of a series take tens of kB until it is chosen
            for b in range(0, len(same), CHUNK):
                members = same[b:b + CHUNK]
                mine = [series[i] for i in members]
                agg = batched.aggregate_many(fitter, mine)
                fitted = _fitted_groups(fitter, X, agg) if batch else {}
                for j, s in enumerate(mine):
                    results[members[j]] = _fit_one(fitter, parameters, s, X, agg, j, fitted.pop(j, {}), source)
                    if step is not None:
                        step(s)
    return results


# groups of hypotheses fitted beforehand, by (noise, whether scored as scattered points)
Fitted = dict[tuple[float, bool], list[Any]]


def _fitted_groups(fitter: PMNFFitter, X: np.ndarray, agg: Any) -> dict[int, Fitted]:
    """Per series (index into ``agg``) the groups of hypotheses fitted at once for each search
    ``fitter._fit_aggregated`` runs: at the measured noise; without repetitions, at the noise
    the scatter gives; where the points scatter beyond that noise, again at the scatter noise."""
    from perfcompose.fit import batched

    y, sigma = agg.y, agg.sigma
    n = y.shape[1]
    fine = agg.done & np.all(np.isfinite(y) & (y >= 0), axis=1) & np.any(y != 0, axis=1)
    out: dict[int, Fitted] = {}

    def search(asked: list[tuple[int, float]], scattered: bool) -> None:
        for a in range(0, len(asked), CHUNK):
            part = asked[a:a + CHUNK]
            rows = np.array([s for s, _ in part])
            noise = np.array([v for _, v in part])
            for (s, v), groups in zip(part, batched.multi_groups_many(fitter, X, y[rows], noise, scattered)):
                out.setdefault(s, {})[(v, scattered)] = groups

    measured = [(s, float(sigma[s])) for s in np.flatnonzero(fine).tolist()]
    search(measured, False)
    noise = dict(measured)
    if fitter.scatter_noise:
        again = [(s, fitter._scatter_noise(out[s][(v, False)], n, True)) for s, v in measured if v <= 0]
        again = [(s, v) for s, v in again if v > 0]
        search(again, False)
        noise.update(again)
    scattered = []
    for s, v in noise.items():
        _, scatter = fitter._with_lack_of_fit(out[s][(v, False)], v, n)
        if scatter > v:
            scattered.append((s, float(scatter)))
    search(scattered, True)
    return out


def _fit_one(fitter: PMNFFitter, parameters: tuple[str, ...], series: Series, X: np.ndarray, agg: Any, j: int,
             fitted: Fitted, source: str) -> FitResult:
    """One series' result as ``fitter.fit_series`` gives it, from groups fitted beforehand where
    there are some for the search asked for."""
    def groups(X: np.ndarray, y: np.ndarray, sigma: float, params: tuple[str, ...], progress: Any,
               scattered: bool = False, **options: Any) -> Any:
        found = None if options else fitted.get((float(sigma), scattered))
        if found is not None:
            return found, True, ()
        return fitter._groups(X, y, sigma, params, progress, scattered=scattered, **options)

    try:
        if agg.done[j]:
            y, sigma = agg.y[j], float(agg.sigma[j])
        else:
            X = series.coordinates()
            y, sigma = fitter._aggregate([p.values for p in series.points])
        result = fitter._fit_aggregated(X, y, sigma, parameters, None, search=groups)
    except FitError as exc:
        raise FitError(f"{series.label}: {exc}") from None
    return dataclasses.replace(result, region=series.region, metric=series.metric, unit=series.unit,
                               source=source or "fit")


def _chunks(series: Sequence[Series], size: int) -> Iterator[list[Series]]:
    for a in range(0, len(series), size):
        yield list(series[a:a + size])


def fit_profile(experiment: Experiment, *, fitter: PMNFFitter | None = None, scheduler: Any = None,
                progress: Any = None, workers: int | None = None) -> list[FitResult]:
    """One :class:`FitResult` per series of ``experiment``, in order, the same as ``fitter.fit_series``
    gives for each (default fitter: ``PMNFFitter()``).

    ``scheduler``: None fits in this process; ``"local"`` starts a Dask LocalCluster of
    ``workers`` processes (default: one per core); any other text is the address of a Dask
    scheduler (``tcp://host:port``); a ``distributed.Client`` is used as it is. ``progress`` is a
    ``(label, done, total)`` callback or a rich ``Progress``: it hears of every series done (on
    Dask, of every chunk).
    """
    fitter = PMNFFitter() if fitter is None else fitter
    step = _progress_callback(progress)
    series = experiment.series
    total = len(series)
    params = tuple(experiment.parameters)
    if scheduler is None:
        done = [0]

        def tick(s: Series) -> None:
            done[0] += 1
            if step is not None:
                step(f"fitting {s.label}", done[0], total)

        if step is not None:
            step("fitting", 0, total)
        results = fit_chunk(fitter, params, series, experiment.source, tick)
    else:
        results = _on_dask(fitter, params, series, experiment.source, scheduler, workers, step)
    if step is not None:
        step("fitted", total, total)
    return results


def _on_dask(fitter: PMNFFitter, params: tuple[str, ...], series: Sequence[Series], source: str, scheduler: Any,
             workers: int | None, step: Progress | None) -> list[FitResult]:
    """The chunks of ``series`` fitted on the workers of a Dask cluster, results in order."""
    from contextlib import ExitStack

    from distributed import Client, as_completed

    from perfcompose.runtime.mapreduce.engine import Engine

    with ExitStack() as stack:
        if isinstance(scheduler, Client):
            client = scheduler
            n = max(1, len(client.scheduler_info().get("workers", {})))
        elif scheduler == "local":
            n = workers or os.cpu_count() or 1
            client = stack.enter_context(Engine(m=n, n=1)).client
        else:
            engine = stack.enter_context(Engine(scheduler=str(scheduler)))
            client, n = engine.client, max(1, engine.info.m)
        # a few chunks per worker keep them all busy to the end; no chunk is smaller than a batch
        size = max(MIN_TASK, min(4 * CHUNK, -(-len(series) // (4 * n))))
        remote = client.scatter(fitter, broadcast=True)
        # two chunks per worker in flight: the next is there when one ends, and the series
        # waiting on the workers stay few (each chunk's series travel with its task)
        pending = iter(zip(range(0, len(series), size), _chunks(series, size)))
        starts: dict[Any, int] = {}

        def submit() -> Any:
            a, part = next(pending, (-1, []))
            if not part:
                return None
            future = client.submit(fit_chunk, remote, params, part, source, pure=False)
            starts[future] = a
            return future

        flight = as_completed([f for f in (submit() for _ in range(2 * n)) if f is not None])
        results: list[Any] = [None] * len(series)
        done = 0
        if step is not None:
            step("fitting", 0, len(series))
        for future in flight:
            part = future.result()
            a = starts.pop(future)
            future.release()
            results[a:a + len(part)] = part
            done += len(part)
            if step is not None:
                step(f"fitted {done} series", done, len(series))
            following = submit()
            if following is not None:
                flight.add(following)
        return results
