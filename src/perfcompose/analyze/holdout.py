"""Which points to hold out to test extrapolation (those at the largest value of any parameter, so
a model fitted to the rest extrapolates in every direction), and how far a prediction is off."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from perfcompose.data.experiment import Series

#: distinct values per parameter a fit on the remaining points needs
MIN_VALUES = 3


@dataclass(frozen=True)
class Split:
    """The coordinates kept for fitting and those held out; ``why`` says why nothing is held out
    (an empty ``held_out``)."""

    kept: frozenset[tuple[float, ...]]
    held_out: frozenset[tuple[float, ...]]
    why: str = ""


def split(coordinates: Sequence[tuple[float, ...]], parameters: Sequence[str]) -> Split:
    """Hold out every coordinate at the largest value of some parameter, if enough remain.

    >>> s = split([(1.0,), (2.0,), (4.0,), (8.0,)], ["p"])
    >>> sorted(s.held_out), len(s.kept)
    ([(8.0,)], 3)
    >>> split([(1.0,), (2.0,), (4.0,)], ["p"]).why
    'p has 2 values below its largest; a fit needs 3'
    """
    coords = list(dict.fromkeys(tuple(c) for c in coordinates))
    top = [max(c[k] for c in coords) for k in range(len(parameters))]
    kept = [c for c in coords if all(v < t for v, t in zip(c, top))]
    for k, name in enumerate(parameters):
        distinct = len({c[k] for c in kept})
        if distinct < MIN_VALUES:
            return Split(frozenset(coords), frozenset(), f"{name} has {distinct} values below its largest; "
                                                         f"a fit needs {MIN_VALUES}")
    return Split(frozenset(kept), frozenset(c for c in coords if c not in set(kept)))


def restrict(series: Series, keep: frozenset[tuple[float, ...]]) -> Series:
    """The series with only the points at ``keep``."""
    return Series(series.metric, tuple(p for p in series.points if p.coordinate in keep), series.region, series.unit)


def relative_error(predicted: np.ndarray, measured: np.ndarray) -> float:
    """Mean of |predicted - measured| / measured, in per cent (points measured as 0 left out).

    >>> relative_error(np.array([11.0, 18.0]), np.array([10.0, 20.0]))
    10.0
    """
    predicted, measured = np.asarray(predicted, dtype=float), np.asarray(measured, dtype=float)
    ok = measured > 0
    return float("nan") if not ok.any() else float(np.mean(np.abs(predicted[ok] - measured[ok]) / measured[ok]) * 100)
