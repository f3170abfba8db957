"""Which series of an experiment a PMNF model can be fitted to (one measured at two sizes only is
skipped, with the reason; :func:`fit_usable` fits the others).

>>> from perfcompose.data import Experiment, Series, Point
>>> e = Experiment(("x",), (Series("time", tuple(Point((x,), (2.0 * x,)) for x in (4.0, 8.0, 16.0)), "a"),
...                         Series("time", tuple(Point((x,), (1.0,)) for x in (4.0, 8.0)), "b")))
>>> unusable(e.parameters, e.series[1])
'measured at too few points: x takes 2 distinct values; a model needs at least 3'
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from perfcompose.data.experiment import Experiment, Series
from perfcompose.errors import FitError

__all__ = ["Skipped", "unusable", "fit_usable"]

R = TypeVar("R")


@dataclass(frozen=True)
class Skipped:
    """A series left without a model, and why."""

    region: str
    metric: str
    unit: str
    reason: str

    @property
    def label(self) -> str:
        return f"{self.region}/{self.metric}" if self.region else self.metric


def unusable(parameters: Sequence[str], series: Series) -> str | None:
    """Why no PMNF model can be fitted to ``series``, or None where one can be tried: a model
    needs at least 3 distinct values of some parameter."""
    X = series.coordinates()
    counts = [len(np.unique(X[:, k])) for k in range(X.shape[1])] if X.ndim == 2 and len(X) else [0]
    if max(counts) >= 3:
        return None
    taken = ", ".join(f"{p} takes {c} distinct value{'s' if c != 1 else ''}" for p, c in zip(parameters, counts))
    return f"measured at too few points: {taken}; a model needs at least 3"


def fit_usable(experiment: Experiment, fit: Callable[[Experiment], list[R]]) -> tuple[list[R], list[Skipped]]:
    """``fit`` (the results of every series of an experiment, in order) of the series of
    ``experiment`` that can be fitted, and the others, each with its reason. A series whose fit
    fails (a :class:`FitError`, e.g. points that form no line along any parameter) is skipped
    too; the results keep the order of the series."""
    keep: list[Series] = []
    skipped: list[Skipped] = []
    for s in experiment.series:
        why = unusable(experiment.parameters, s)
        if why is None:
            keep.append(s)
        else:
            skipped.append(Skipped(s.region, s.metric, s.unit, why))
    if not keep:
        return [], skipped
    try:
        return fit(_part(experiment, keep)), skipped
    except FitError:
        pass  # fitted one by one below: which series failed, and why
    results: list[R] = []
    for s in keep:
        try:
            results.extend(fit(_part(experiment, [s])))
        except FitError as exc:
            # the fitter's message without the series' label it starts with
            skipped.append(Skipped(s.region, s.metric, s.unit, str(exc).removeprefix(s.label + ": ")))
    return results, skipped


def _part(experiment: Experiment, series: Sequence[Series]) -> Experiment:
    if len(series) == len(experiment.series):
        return experiment
    keys = {(s.region, s.metric) for s in series}
    return Experiment(experiment.parameters, tuple(series), source=experiment.source,
                      clipped=tuple(c for c in experiment.clipped if (c.region, c.metric) in keys))
