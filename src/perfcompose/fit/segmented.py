"""Two-piece (segmented) PMNF models for behaviour that changes at a threshold (a cache that stops
holding the working set, a protocol switch): :class:`SegmentedFitter` fits a PMNF model on each
side of every admissible breakpoint (``min_points`` each) and keeps the best two-piece model only
where its information criterion (chi-square against the measured noise, or ``n log(RSS/n)``,
plus ``log(n)`` per coefficient, the breakpoint counted) is lower by ``margin``. The result is a
:class:`~perfcompose.model.Model` holding a SymPy ``Piecewise``.

>>> import numpy as np
>>> x = np.array([2.0, 4, 8, 16, 32, 64, 128, 256, 512, 1024])
>>> y = np.where(x <= 64, 5 + 2 * x, 5 + 0.25 * x ** 1.5)
>>> fit = SegmentedFitter().fit_arrays(x, y, ["x"])
>>> fit.segmented, 64 <= fit.breakpoint < 128
(True, True)
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp

from perfcompose.data.experiment import Series
from perfcompose.errors import FitError
from perfcompose.fit.base import SeriesFitter
from perfcompose.fit.noise import aggregated, packed
from perfcompose.fit.pmnf import PMNFFitter
from perfcompose.fit.result import FitResult, fit_statistics, low_fit_warnings, predict
from perfcompose.model import Model, symbol


@dataclass(frozen=True)
class SegmentedFit:
    """A single model and, where it is clearly better, a two-piece model of the same series.

    ``segmented`` tells which one ``model`` is; ``x <= breakpoint`` uses ``left``; ``criterion`` and
    ``single_criterion`` are the information criteria of both (lower is better); ``stats`` those of
    ``model`` (of a two-piece model: both pieces, the breakpoint a coefficient, the CV error the
    points-weighted mean of the pieces')."""

    single: FitResult
    parameter: str
    segmented: bool = False
    breakpoint: float = math.nan
    left: FitResult | None = None
    right: FitResult | None = None
    criterion: float = math.inf
    single_criterion: float = math.inf
    region: str = ""
    metric: str = ""
    stats: Mapping[str, float] = field(default_factory=dict)
    model: Model = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.segmented and self.left is not None and self.right is not None:
            model = piecewise_model(self.parameter, self.breakpoint, self.left.model, self.right.model,
                                    stats={"breakpoint": self.breakpoint, "criterion": self.criterion,
                                           "single_criterion": self.single_criterion})
        else:
            model = self.single.model
        object.__setattr__(self, "model", model)
        if not self.stats:
            object.__setattr__(self, "stats", self.single.stats)

    @property
    def warnings(self) -> tuple[str, ...]:
        if not (self.segmented and self.left and self.right):
            return self.single.warnings
        return low_fit_warnings(self.stats, constant=False)

    @property
    def label(self) -> str:
        return f"{self.region}/{self.metric}" if self.region else self.metric

    @property
    def unit(self) -> str:
        return self.single.unit

    def describe(self, digits: int = 6) -> str:
        """The model as text: the single model, or ``left  if x <= b;  right  otherwise``."""
        if not (self.segmented and self.left and self.right):
            return self.single.text(digits)
        return (f"{self.left.text(digits)}  if {self.parameter} <= {self.breakpoint:.6g};  "
                f"{self.right.text(digits)}  otherwise")


def piecewise_model(parameter: str, breakpoint: float, left: Model, right: Model, **meta: Any) -> Model:
    """``left`` where ``parameter <= breakpoint``, ``right`` above, as one :class:`Model`."""
    x = symbol(parameter)
    expr = sp.Piecewise((left.expr, x <= sp.Float(float(breakpoint))), (right.expr, True))
    params = tuple(dict.fromkeys(left.params + right.params))
    return Model(expr, params=params, unit=left.unit, source=left.source or right.source, **meta)


def information_criterion(y: np.ndarray, pred: np.ndarray, sigma: float, coefficients: int) -> float:
    """Chi-square of the relative residuals against ``sigma`` (or, when the noise is unknown,
    ``n log(RSS/n)``) plus ``log(n)`` per coefficient: Schwarz's criterion."""
    n = len(y)
    rel = (y - pred) / np.where(y != 0, np.abs(y), 1.0)
    rss = float(np.sum(rel * rel))
    fit_term = rss / sigma ** 2 if sigma > 0 else n * math.log(rss / n + 1e-24)
    return fit_term + math.log(n) * coefficients


class SegmentedFitter(SeriesFitter):
    """Fits a single and a two-piece PMNF model per series and keeps the two-piece one only where it
    is clearly better (see the module): ``fitter`` fits the pieces (default :class:`PMNFFitter`),
    ``min_points`` distinct values per piece (at least 3), ``margin`` on the criterion."""

    def __init__(self, fitter: PMNFFitter | None = None, *, min_points: int = 4, margin: float = 10.0):
        if min_points < 3:
            raise FitError("each piece of a segmented model needs at least 3 points (min_points >= 3)")
        self.fitter = fitter
        self._pieces = fitter if fitter is not None else PMNFFitter()
        self.min_points = min_points
        self.margin = margin

    def fit_series(self, params: Sequence[str], series: Series, source: str = "",
                   progress: Any = None) -> SegmentedFit:
        """Fit one series (``progress`` hears of nothing finer than the series; of points that hold
        stored statistics, the one of the pieces' aggregate is fitted)."""
        self._pieces._validate()
        series = series.for_aggregate(self._pieces.aggregate)
        try:
            result = self.fit_arrays(series.coordinates(), [p.values for p in series.points], params)
        except FitError as exc:
            raise FitError(f"{series.label}: {exc}") from None
        meta = dict(region=series.region, metric=series.metric, unit=series.unit, source=source or "fit")
        pieces: dict[str, Any] = {k: dataclasses.replace(getattr(result, k), **meta) if getattr(result, k) else None
                  for k in ("single", "left", "right")}
        return dataclasses.replace(result, region=series.region, metric=series.metric, **pieces)

    def fit_arrays(self, X: Any, values: Any, params: Sequence[str]) -> SegmentedFit:
        """Fit measurements at coordinates ``X`` (one parameter); ``values`` as for
        :meth:`PMNFFitter.fit_arrays` (one value or the repetitions per point)."""
        X = np.asarray(X, dtype=float)
        X = X[:, None] if X.ndim == 1 else X
        params = tuple(params)
        if X.shape[1] != 1 or len(params) != 1:
            raise FitError(f"segmented models split along one parameter; this data has {len(params)} "
                           f"({', '.join(params)})")
        rows = [np.atleast_1d(np.asarray(v, dtype=float)) for v in values]   # the repetitions of every point
        if len(rows) != len(X):
            raise FitError(f"{len(rows)} values for {len(X)} points")
        single = self._pieces.fit_arrays(X, packed(rows), params)
        y, sigma = aggregated(packed(rows), self._pieces.aggregate)
        single_ic = information_criterion(y, predict(single.chosen, X), sigma, 1 + single.chosen.n_terms)
        x = X[:, 0]
        distinct = np.unique(x)
        best: tuple[float, float, FitResult, FitResult] | None = None
        for k in range(self.min_points, len(distinct) - self.min_points + 1):
            lo, hi = distinct[k - 1], distinct[k]
            left_rows, right_rows = x <= lo, x >= hi
            try:
                left = self._pieces.fit_arrays(X[left_rows], packed([r for r, m in zip(rows, left_rows) if m]), params)
                right = self._pieces.fit_arrays(X[right_rows], packed([r for r, m in zip(rows, right_rows) if m]),
                                               params)
            except FitError:
                continue
            pred = np.where(left_rows, predict(left.chosen, X), predict(right.chosen, X))
            ic = information_criterion(y, pred, sigma, 3 + left.chosen.n_terms + right.chosen.n_terms)
            if best is None or ic < best[0]:
                best = (ic, _meeting_point(left, right, lo, hi), left, right)
        if best is None or not best[0] < single_ic - self.margin:
            return SegmentedFit(single, params[0], criterion=best[0] if best else math.inf,
                                single_criterion=single_ic)
        ic, at, left, right = best
        on_left = x <= at
        pred = np.where(on_left, predict(left.chosen, X), predict(right.chosen, X))
        stats = fit_statistics(y, pred, 3 + left.chosen.n_terms + right.chosen.n_terms)
        n_left = int(on_left.sum())
        stats["cv_error"] = (n_left * left.stats["cv_error"] + (len(x) - n_left) * right.stats["cv_error"]) / len(x)
        return SegmentedFit(single, params[0], True, at, left, right, ic, single_ic, stats=stats)


def _meeting_point(left: FitResult, right: FitResult, lo: float, hi: float) -> float:
    """Where the two pieces meet between the last point of the left one and the first of the
    right one, or their geometric mean when they do not meet there."""
    def gap(v: np.ndarray) -> np.ndarray:
        a, b = predict(left.chosen, v[:, None]), predict(right.chosen, v[:, None])
        d = (a - b) / np.maximum(np.maximum(np.abs(a), np.abs(b)), 1e-300)
        return np.where(np.abs(d) < 1e-9, 0.0, d)

    grid = np.geomspace(lo, hi, 65)
    d = gap(grid)
    zero = np.flatnonzero(d == 0)
    if len(zero):
        return float(grid[zero[0]])
    change = np.flatnonzero(np.sign(d[:-1]) != np.sign(d[1:]))
    if not len(change):
        return float(math.sqrt(lo * hi))
    a, b = float(grid[change[0]]), float(grid[change[0] + 1])
    da = d[change[0]]
    for _ in range(60):
        mid = math.sqrt(a * b)
        dm = gap(np.array([mid]))[0]
        if dm == 0:
            return mid
        a, b, da = (mid, b, dm) if np.sign(dm) == np.sign(da) else (a, mid, da)
    return math.sqrt(a * b)
