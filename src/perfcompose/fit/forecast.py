"""Forecasting a runtime series beyond its measurements, as Lobachev and Loogen do (001 section 3).

Five scikit-learn-style methods: ``spline`` (R's ``spline()``, Forsythe-Malcolm-Moler ends),
``loess`` (R's ``loess()`` through scikit-misc: span 0.75, quadratic), ``lm-poly`` (R's
``lm(y ~ poly(x, 3))``), ``lm`` and ``mean`` (of two methods). :func:`choose` is the paper's
automatic choice."""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Self, get_args

import numpy as np
from numpy.polynomial import Polynomial
from scipy.interpolate import CubicSpline

from perfcompose.choices import STRATEGIES, SingleMethod, Strategy
from perfcompose.errors import FitError
from perfcompose.fit.base import Estimator
from perfcompose.skeleton_options import ForecastOptions

__all__ = ["Forecaster", "Spline", "Loess", "LmPoly", "Lm", "MeanOf", "forecaster", "METHODS", "Choice",
           "ForecastError", "choose", "holdout_errors", "Strategy", "STRATEGIES"]

#: x or y values of known points: a sequence of numbers or a NumPy array
Values = Sequence[float] | np.ndarray

#: the single methods of 001 section 3, in the paper's order
METHODS: tuple[str, ...] = get_args(SingleMethod)


class ForecastError(FitError):
    """No method forecasts well enough, or the data cannot support a forecast."""


def _points(x: Values, y: Values, minimum: int, method: str) -> tuple[np.ndarray, np.ndarray]:
    xa, ya = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
    if xa.shape != ya.shape:
        raise FitError(f"{method}: {xa.size} x values but {ya.size} y values")
    if not (np.all(np.isfinite(xa)) and np.all(np.isfinite(ya))):
        raise FitError(f"{method}: the points contain a non-finite value")
    order = np.argsort(xa, kind="stable")
    xa, ya = xa[order], ya[order]
    if xa.size > 1 and np.any(np.diff(xa) == 0):
        dup = xa[1:][np.diff(xa) == 0][0]
        raise FitError(f"{method}: x = {dup:g} appears twice; aggregate repetitions first")
    if xa.size < minimum:
        raise FitError(f"{method} needs at least {minimum} points, got {xa.size}")
    return xa, ya


class Forecaster(Estimator):
    """A forecasting method (an :class:`~perfcompose.fit.base.Estimator`): ``fit(x, y)``, then ``predict(x)``."""

    #: the method's name as the paper writes it (``lm(poly)`` is ``lm-poly`` on a command line)
    name: str = ""
    minimum: int = 2

    def fit(self, x: Values, y: Values) -> Self:
        points = _points(x, y, self.minimum, self.label)
        self._reset()
        self.x_, self.y_ = points
        self._fit()
        return self

    def _fit(self) -> None:
        raise NotImplementedError

    def predict(self, x: float | Sequence[float] | np.ndarray) -> np.ndarray:
        """The forecast at ``x`` (an array of the same shape)."""
        if not hasattr(self, "x_"):
            raise FitError(f"{self.label}: call fit() before predict()")
        xa = np.asarray(x, dtype=float)
        return self._predict(xa.ravel()).reshape(xa.shape)

    def _predict(self, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    @property
    def label(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.label})"


class Spline(Forecaster):
    """R's ``spline(x, y, method = "fmm")``: cubic spline through every point, the end cubics (matching
    the cubic through the four outermost points) continued outside; ``end="natural"``: R's natural
    spline, linear outside."""

    name = "spline"

    def __init__(self, end: str = "fmm"):
        if end not in ("fmm", "natural"):
            raise FitError(f"spline end condition {end!r}: choose fmm or natural")
        self.end = end

    @property
    def label(self) -> str:
        return "spline" if self.end == "fmm" else "spline(natural)"

    def _fit(self) -> None:
        coefficients = _fmm_coefficients if self.end == "fmm" else _natural_coefficients
        self.b_, self.c_, self.d_ = coefficients(self.x_, self.y_)

    def _predict(self, u: np.ndarray) -> np.ndarray:
        x, y = self.x_, self.y_
        i = np.clip(np.searchsorted(x, u, side="right") - 1, 0, x.size - 1)
        dx = u - x[i]
        d = self.d_[i]
        if self.end == "natural":
            d = np.where(u < x[0], 0.0, d)
        return y[i] + dx * (self.b_[i] + dx * (self.c_[i] + dx * d))


def _fmm_coefficients(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Coefficients b, c, d of ``y_i + b_i t + c_i t^2 + d_i t^3`` per interval (Forsythe et al. 1977)."""
    n = x.size
    b, c, d = np.zeros(n), np.zeros(n), np.zeros(n)
    if n < 3:
        slope = (y[1] - y[0]) / (x[1] - x[0])
        b[:] = slope
        return b, c, d
    last = n - 1
    d[0] = x[1] - x[0]
    c[1] = (y[1] - y[0]) / d[0]
    for i in range(1, last):
        d[i] = x[i + 1] - x[i]
        b[i] = 2.0 * (d[i - 1] + d[i])
        c[i + 1] = (y[i + 1] - y[i]) / d[i]
        c[i] = c[i + 1] - c[i]
    b[0], b[last] = -d[0], -d[n - 2]
    c[0] = c[last] = 0.0
    if n > 3:  # third derivative at each end from the cubic through the four outermost points
        c[0] = c[2] / (x[3] - x[1]) - c[1] / (x[2] - x[0])
        c[last] = c[n - 2] / (x[last] - x[n - 3]) - c[n - 3] / (x[n - 2] - x[n - 4])
        c[0] = c[0] * d[0] * d[0] / (x[3] - x[0])
        c[last] = -c[last] * d[n - 2] * d[n - 2] / (x[last] - x[n - 4])
    for i in range(1, n):
        t = d[i - 1] / b[i - 1]
        b[i] -= t * d[i - 1]
        c[i] -= t * c[i - 1]
    c[last] /= b[last]
    for i in range(n - 2, -1, -1):
        c[i] = (c[i] - d[i] * c[i + 1]) / b[i]
    b[last] = (y[last] - y[n - 2]) / d[n - 2] + d[n - 2] * (c[n - 2] + 2.0 * c[last])
    for i in range(last):
        b[i] = (y[i + 1] - y[i]) / d[i] - d[i] * (c[i + 1] + 2.0 * c[i])
        d[i] = (c[i + 1] - c[i]) / d[i]
        c[i] = 3.0 * c[i]
    c[last] = 3.0 * c[last]
    d[last] = d[n - 2]
    return b, c, d


def _natural_coefficients(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Natural cubic spline coefficients; beyond the last point it continues as a straight line."""
    n = x.size
    if n < 3:
        return _fmm_coefficients(x, y)
    cs = CubicSpline(x, y, bc_type="natural")
    b = cs(x, 1)
    c = cs(x, 2) / 2.0
    d = np.zeros(n)
    d[:-1] = cs.c[0]
    c[-1] = 0.0
    return b, c, d


class Loess(Forecaster):
    """R's ``loess(y ~ x)`` (Cleveland), span 0.75, degree 2, computed exactly at every point (R's
    ``surface = "direct"``: its kd-tree returns NA outside the data, where forecasts live)."""

    name = "loess"

    def __init__(self, span: float = 0.75, degree: int = 2):
        if not 0 < span:
            raise FitError(f"loess span must be positive, got {span}")
        if degree not in (0, 1, 2):
            raise FitError(f"loess degree must be 0, 1 or 2, got {degree}")
        self.span, self.degree, self.minimum = span, degree, degree + 2

    @property
    def label(self) -> str:
        default = self.span == 0.75 and self.degree == 2
        return "loess" if default else f"loess(span={self.span:g}, degree={self.degree})"

    def _fit(self) -> None:
        from skmisc.loess import loess

        self.surface_ = None
        # the approximate statistics refuse tiny samples; the fitted surface does not depend on them
        stats = "exact" if self.x_.size < 64 else "approximate"
        try:
            fit = loess(self.x_, self.y_, span=self.span, degree=self.degree, surface="direct",
                        statistics=stats, family="gaussian")
            fit.fit()
            self.surface_ = fit
        except (ValueError, RuntimeError) as exc:
            msg = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
            if not msg.startswith(_R_WARNINGS):
                raise FitError(f"loess cannot fit these {self.x_.size} points: {msg}") from None
            # R warns here and goes on with a pseudoinverse; scikit-misc stops, so do what R does
            self.warning_ = msg

    def _predict(self, u: np.ndarray) -> np.ndarray:
        if u.size == 0:
            return u.copy()
        if self.surface_ is not None:
            try:
                return np.asarray(self.surface_.predict(u, stderror=False).values, dtype=float)
            except (ValueError, RuntimeError) as exc:
                msg = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
                if not msg.startswith(_R_WARNINGS):
                    raise FitError(f"loess cannot predict here: {msg}") from None
        return _local_fit(self.x_, self.y_, u, self.span, self.degree)


#: messages on which R's loess() warns and continues (scikit-misc raises them as errors)
_R_WARNINGS = ("span too small", "pseudoinverse used", "neighborhood radius", "reciprocal condition number",
               "There are other near singularities", "Chernobyl")


def _local_fit(x: np.ndarray, y: np.ndarray, u: np.ndarray, span: float, degree: int) -> np.ndarray:
    """Cleveland's local regression at each ``u`` exactly as loess computes it directly: the
    q = floor(n·span) nearest points, tricube weights on distance / (q-th distance · max(1, span)),
    columns scaled to unit norm, and the least-squares solution through singular values above
    100 machine epsilons relative (the pseudoinverse R warns about)."""
    n = x.size
    q = max(1, min(n, int(math.floor(n * span + 1e-5))))
    out = np.empty(u.size)
    for k, z in enumerate(u):
        dist = (x - z) ** 2
        near = np.argsort(dist, kind="stable")[:q]
        rho = dist[near[-1]] * max(1.0, span)
        if not rho > 0:
            raise FitError("loess: all neighbours coincide with the evaluation point")
        w = np.sqrt((1.0 - np.sqrt(dist[near] / rho) ** 3) ** 3)
        cols = [w * (x[near] - z) ** j for j in range(degree + 1)]
        B = np.column_stack(cols)
        norms = np.linalg.norm(B, axis=0)
        norms[norms == 0] = 1.0
        coef, *_ = np.linalg.lstsq(B / norms, w * y[near], rcond=100 * np.finfo(float).eps)
        out[k] = coef[0] / norms[0]
    return out


class LmPoly(Forecaster):
    """R's ``lm(y ~ poly(x, degree))``: least-squares polynomial (orthogonal basis; same fit)."""

    name = "lm-poly"

    def __init__(self, degree: int = ForecastOptions.poly_degree):
        if degree < 1:
            raise FitError(f"lm(poly) needs degree >= 1, got {degree}")
        self.degree, self.minimum = degree, degree + 1

    @property
    def label(self) -> str:
        return "lm" if self.degree == 1 else ("lm(poly)" if self.degree == 3 else f"lm(poly, {self.degree})")

    def _fit(self) -> None:
        self.polynomial_ = Polynomial.fit(self.x_, self.y_, self.degree)

    def _predict(self, u: np.ndarray) -> np.ndarray:
        return np.asarray(self.polynomial_(u), dtype=float)


class Lm(LmPoly):
    """R's ``lm(y ~ x)``: a straight line by least squares."""

    name = "lm"

    def __init__(self) -> None:
        super().__init__(1)


class MeanOf(Forecaster):
    """The mean of two (or more) methods' forecasts: the paper's ``mean``."""

    name = "mean"

    def __init__(self, *methods: Forecaster):
        if len(methods) < 2:
            raise FitError("mean needs at least two methods")
        self.methods, self.minimum = methods, max(m.minimum for m in methods)

    @property
    def label(self) -> str:
        return "mean(" + ", ".join(m.label for m in self.methods) + ")"

    def _fit(self) -> None:
        for m in self.methods:
            m.fit(self.x_, self.y_)

    def _predict(self, u: np.ndarray) -> np.ndarray:
        return np.mean([m.predict(u) for m in self.methods], axis=0)


_ALIASES: dict[str, Callable[[], Forecaster]] = {
    "spline": Spline, "loess": Loess, "lm-poly": LmPoly, "lm(poly)": LmPoly, "lmpoly": LmPoly,
    "lm": Lm, "spline-natural": lambda: Spline("natural"),
}


def forecaster(name: str, *, degree: int | None = None, span: float | None = None) -> Forecaster:
    """A fresh forecaster by name: ``spline``, ``loess``, ``lm-poly`` (also ``lm(poly)``) or ``lm``."""
    key = name.strip().lower()
    if key not in _ALIASES:
        raise FitError(f"unknown forecast method {name!r}; choose one of {', '.join(METHODS)}")
    if key in ("lm-poly", "lm(poly)", "lmpoly") and degree is not None:
        return LmPoly(degree)
    if key == "loess" and (degree is not None or span is not None):
        return Loess(0.75 if span is None else span, 2 if degree is None else degree)
    return _ALIASES[key]()


# -- automatic method choice (001 section 3) -----------------------------------------------------


@dataclass(frozen=True)
class Choice:
    """The method chosen for a forecast at ``at`` and the evidence: ``errors``, each method's signed
    relative hold-out error (of several held out, the mean absolute one); ``discarded``, why a method
    was not considered."""

    at: float
    value: float
    method: str
    rule: str
    forecaster: Forecaster
    epsilon: float
    holdout: tuple[float, ...]
    errors: Mapping[str, float] = field(default_factory=dict)
    predictions: Mapping[str, float] = field(default_factory=dict)
    discarded: Mapping[str, str] = field(default_factory=dict)


def _training_sets(x: np.ndarray, at: float, k: int) -> list[tuple[np.ndarray, int]]:
    """(fit mask, held-out index) pairs: each of the k known points nearest to ``at`` is predicted
    from the points farther from ``at`` than it (a rolling origin), or from all others when ``at``
    lies inside the data."""
    inside = x.min() <= at <= x.max()
    # nearest to the forecast first, in the forecast's direction
    order = np.argsort(np.abs(x - at) if inside else -x if at > x.max() else x, kind="stable")
    sets = []
    for rank, idx in enumerate(order[:k]):
        mask = np.ones(x.size, bool)
        if inside:
            mask[idx] = False
        else:
            mask[order[:rank + 1]] = False
        sets.append((mask, int(idx)))
    return sets


def _denominator(y: np.ndarray, known: float) -> float:
    """What a hold-out error is relative to: the known value, or the largest known magnitude where
    the known value is zero (the penalty at p = 1 of a relative reference point)."""
    if known != 0.0:
        return known
    scale = float(np.max(np.abs(y))) if y.size else 0.0
    return scale if scale > 0 else 1.0


def holdout_errors(methods: Sequence[Forecaster], x: Values, y: Values, at: float,
                   k: int = 1) -> tuple[dict[str, list[float]], dict[str, list[float]], dict[str, str],
                                        tuple[float, ...]]:
    """Predict the ``k`` known points nearest to ``at`` from the others with every method: the signed
    relative errors and predictions per method, the methods discarded (a failed fit, a negative
    time) with the reason, and the held-out x."""
    xa, ya = _points(x, y, 2, "forecast")
    errors: dict[str, list[float]] = {m.label: [] for m in methods}
    preds: dict[str, list[float]] = {m.label: [] for m in methods}
    discarded: dict[str, str] = {}
    held: list[float] = []
    for mask, idx in _training_sets(xa, at, k):
        held.append(float(xa[idx]))
        for m in methods:
            if m.label in discarded:
                continue
            try:
                f = m.clone().fit(xa[mask], ya[mask])
                v = float(f.predict(xa[idx]))
            except FitError as exc:
                discarded[m.label] = str(exc)
                continue
            if not math.isfinite(v) or v < 0:
                discarded[m.label] = f"predicts {v:.4g} < 0 at x = {xa[idx]:g}"
                continue
            preds[m.label].append(v)
            errors[m.label].append((v - ya[idx]) / _denominator(ya, float(ya[idx])))
    for name in discarded:
        errors.pop(name, None)
        preds.pop(name, None)
    return errors, preds, discarded, tuple(held)


def _summary(errs: list[float]) -> float:
    return errs[0] if len(errs) == 1 else float(np.mean(np.abs(errs)))


def choose(x: Values, y: Values, at: float, *,
           methods: Sequence[Forecaster] | None = None, epsilon: float = ForecastOptions.epsilon,
           strategy: Strategy | str = ForecastOptions.strategy, training: int = ForecastOptions.training) -> Choice:
    """Choose a method for the forecast at ``at`` and make it (001 section 3).

    ``"known"``: hold out the known value nearest to ``at``; take the method of smallest relative
    error below ``epsilon``, else the mean of the two nearest below it, else raise ForecastError.
    ``"best-two"`` / ``"best-three"`` train on the ``training`` nearest known points: the mean of
    the two best, or of the three best less the forecast farthest from the other two."""
    if strategy == "three":  # the name it had before best-three
        strategy = "best-three"
    if strategy not in STRATEGIES:
        raise FitError(f"unknown strategy {strategy!r}: {', '.join(STRATEGIES)}")
    methods = list(methods) if methods is not None else [forecaster(m) for m in METHODS]
    xa, ya = _points(x, y, 3, "forecast")
    k = 1 if strategy == "known" else max(1, training)
    if xa.size - k < 2:
        raise ForecastError(f"{xa.size} known points leave too few to fit after holding out {k}; "
                            "measure more points")
    errs, preds, discarded, held = holdout_errors(methods, xa, ya, at, k)
    ranking = sorted(errs, key=lambda name: abs(_summary(errs[name])))
    by_label = {m.label: m for m in methods}
    summary = {name: _summary(e) for name, e in errs.items()}

    def final(label: str, f: Forecaster, rule: str) -> Choice:
        f = f.clone().fit(xa, ya)
        at_values = {}
        for name in ranking:
            try:
                at_values[name] = float(by_label[name].clone().fit(xa, ya).predict(at))
            except FitError as exc:
                discarded[name] = str(exc)
        value = float(f.predict(at))
        if rule.startswith("three"):
            trio = [at_values[n] for n in ranking[:3] if n in at_values]
            med = float(np.median(trio))
            far = max(range(len(trio)), key=lambda i: abs(trio[i] - med))
            value = float(np.mean([v for i, v in enumerate(trio) if i != far]))
        return Choice(at=float(at), value=value, method=label, rule=rule, forecaster=f, epsilon=epsilon,
                      holdout=held, errors=summary, predictions=at_values, discarded=dict(discarded))

    if not ranking:
        raise ForecastError("every method was discarded: " +
                            "; ".join(f"{n}: {why}" for n, why in discarded.items()))
    if strategy in ("best-two", "best-three"):
        need = 2 if strategy == "best-two" else 3
        if len(ranking) < need:
            raise ForecastError(f"strategy {strategy} needs {need} usable methods, got {len(ranking)}")
        if strategy == "best-two":
            mean = MeanOf(*(by_label[n].clone() for n in ranking[:2]))
            return final(mean.label, mean, "mean of the two best in training")
        trio = MeanOf(*(by_label[n].clone() for n in ranking[:3]))
        return final("three(" + ", ".join(ranking[:3]) + ")", trio,
                     "three best in training, the farthest forecast dropped")
    best = ranking[0]
    if abs(summary[best]) < epsilon:
        return final(best, by_label[best], f"smallest hold-out error below {epsilon:.3g}")
    if len(ranking) >= 2:
        pair = MeanOf(*(by_label[n].clone() for n in ranking[:2]))
        # the mean's hold-out forecast is the mean of the two forecasts of the held-out value
        known = float(ya[xa == held[0]][0])
        err = (float(np.mean([preds[n][0] for n in ranking[:2]])) - known) / _denominator(ya, known)
        summary[pair.label] = err
        if abs(err) < epsilon:
            return final(pair.label, pair, f"mean of the two nearest below {epsilon:.3g}")
    detail = ", ".join(f"{n} {100 * summary[n]:+.3g} %" for n in ranking)
    raise ForecastError(f"no method predicts the known value at x = {held[0]:g} within "
                        f"{100 * epsilon:.3g} % ({detail}); measure more points near {at:g} or raise epsilon")

