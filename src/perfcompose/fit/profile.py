"""Fitting a whole application profile: a model for every call path and metric of an experiment.

>>> from perfcompose.data import Experiment
>>> e = Experiment.single(["x"], [((x,), (3 + 2 * x,)) for x in (4, 8, 16, 32, 64)])
>>> [r.text(digits=6) for r in fit_profile(e)]
['3 + 2 * x^(1)']
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from perfcompose.data.experiment import Experiment
from perfcompose.fit.pmnf import FitResult, PMNFFitter

__all__ = ["fit_profile"]

# a progress callback: (what runs now, series done, series in all)
Progress = Callable[[str, int, int], None]


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


def fit_profile(experiment: Experiment, *, fitter: PMNFFitter | None = None, scheduler: str | None = None,
                progress: Any = None) -> list[FitResult]:
    """One :class:`FitResult` per series of ``experiment``, in order, the same as ``fitter.fit_series``
    gives for each (default fitter: ``PMNFFitter()``).

    ``scheduler``: None fits in this process, ``"local"`` on a Dask LocalCluster, any other text is
    the address of a Dask scheduler. ``progress`` is a ``(label, done, total)`` callback or a rich
    ``Progress``; it hears of the series fitted.
    """
    fitter = PMNFFitter() if fitter is None else fitter
    step = _progress_callback(progress)
    series = experiment.series
    results = []
    for k, s in enumerate(series):
        if step is not None:
            step(f"fitting {s.label}", k, len(series))
        results.append(fitter.fit_series(experiment.parameters, s, source=experiment.source))
    if step is not None:
        step("fitted", len(series), len(series))
    return results
