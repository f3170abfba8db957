"""Forecasting T(n, p) from a runtime table by its two parts (001 sections 3-5): T(n) w.r.t. n, and
the penalty Ā(n, p) = T(n, p) − share w.r.t. n or p, each by its own method, joined by the
skeleton's formula; a measured target is left out of every fit and its error reported."""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from perfcompose.errors import InputError
from perfcompose.fit.forecast import Forecaster, ForecastError, MeanOf, Strategy, choose, forecaster, holdout_errors
from perfcompose.skeleton.skeletons import Skeleton, penalty, serial_fraction
from perfcompose.skeleton.table import SEQ, RuntimeTable
from perfcompose.skeleton.window import Window
from perfcompose.skeleton_options import ForecastOptions

#: the declared defaults of the forecast's options
_DEFAULT = ForecastOptions()


@dataclass(frozen=True)
class Part:
    """The estimate of one part (T(n) or Ā(n, p)) at the target."""

    what: str                   # "T(n)" or "Ā(n, p)"
    direction: str              # "n", "p" or "measured"
    x: tuple[float, ...]        # the known points it was forecast from
    y: tuple[float, ...]
    at: float
    value: float
    method: str
    rule: str = ""
    errors: dict[str, float] = field(default_factory=dict)
    discarded: dict[str, str] = field(default_factory=dict)
    forecaster: Forecaster | None = None


@dataclass(frozen=True)
class Estimate:
    """T(n, p) forecast at one point, with its parts and, if the point was measured, its error."""

    n: float
    p: int
    skeleton: Skeleton
    sequential: Part
    penalty: Part
    share: float
    value: float
    measured: float | None
    absolute: bool

    @property
    def error(self) -> float | None:
        """(forecast − measured) / measured, as the paper reports it; None if not measured."""
        return None if self.measured is None else (self.value - self.measured) / self.measured


def _estimate_part(what: str, direction: str, x: Sequence[float], y: Sequence[float], at: float, method: str,
                   epsilon: float, poly_degree: int, strategy: Strategy = _DEFAULT.strategy,
                   training: int = _DEFAULT.training,
                   diagnostics: bool = True) -> Part:
    xa, ya = np.asarray(x, float), np.asarray(y, float)
    if xa.size < 2:
        raise ForecastError(f"{what}: {xa.size} known point w.r.t. {direction}; a forecast needs at least 2 "
                            f"(3 for the automatic choice)")
    methods = [forecaster("spline"), forecaster("loess"), forecaster("lm-poly", degree=poly_degree),
               forecaster("lm")]
    if method == "auto":
        c = choose(xa, ya, at, methods=methods, epsilon=epsilon, strategy=strategy, training=training)
        return Part(what, direction, tuple(xa), tuple(ya), at, c.value, c.method, c.rule, dict(c.errors),
                    dict(c.discarded), c.forecaster)
    errors: dict[str, float] = {}
    discarded: dict[str, str] = {}
    if xa.size >= 3 and (diagnostics or method == "mean"):
        errs, _, discarded, _ = holdout_errors(methods, xa, ya, at, 1)
        errors = {k: v[0] for k, v in errs.items()}
    if method == "mean":
        ranked = sorted(errors, key=lambda k: abs(errors[k]))
        if len(ranked) < 2:
            raise ForecastError(f"{what}: mean needs two methods that can be checked on a held-out point; "
                                f"measure more points")
        by = {m.label: m for m in methods}
        f: Forecaster = MeanOf(by[ranked[0]], by[ranked[1]])
        rule = "mean of the two best on the hold-out"
    else:
        f = forecaster(method, degree=poly_degree if method in ("lm-poly", "lm(poly)") else None)
        rule = "chosen by the user"
    f = f.fit(xa, ya)
    value = float(f.predict(at))
    if value < 0:
        raise ForecastError(f"{what}: {f.label} forecasts {value:.4g} < 0 at {direction} = {at:g}, which is "
                            "nonsense; choose another method or --method auto")
    return Part(what, direction, tuple(xa), tuple(ya), at, value, f.label, rule, errors, discarded, f)


def sequential_model(table: RuntimeTable, method: str = "lm-poly", poly_degree: int = _DEFAULT.poly_degree,
                     given: Mapping[float, float] | None = None) -> Callable[[np.ndarray], np.ndarray]:
    """T(n) where measured or ``given``, else forecast from the reference times (for the farm's T(n/p))."""
    ns = table.reference_ns
    ts = table.reference_times(ns)
    known = {**dict(zip(ns, ts)), **(given or {})}
    fit = None
    if len(ns) >= 2:
        name = "lm-poly" if method in ("auto", "mean") else method
        try:
            fit = forecaster(name, degree=poly_degree if name == "lm-poly" else None).fit(ns, ts)
        except Exception:
            fit = forecaster("spline").fit(ns, ts)

    def T(n: np.ndarray) -> np.ndarray:
        n = np.atleast_1d(np.asarray(n, dtype=float))
        out = np.array([known.get(float(v), math.nan) for v in n])
        missing = np.isnan(out)
        if missing.any():
            if fit is None:
                raise ForecastError("T(n) is needed where it was not measured, and fewer than 2 reference "
                                    "times exist to forecast it")
            out[missing] = fit.predict(n[missing])
        return out

    return T


def penalties(table: RuntimeTable, skeleton: Skeleton = Skeleton(),
              T: Callable[[np.ndarray], np.ndarray] | None = None) -> dict[tuple[float, int], float]:
    """Ā(n, p) = T(n, p) − share(n, p) at every measured point whose T(n) is known."""
    T = T or sequential_model(table)
    out = {}
    for (n, p), t in sorted(table.times.items()):
        if p == SEQ or (p == 1 and not table.absolute):
            continue  # Ā(n, 1) = 0 by definition at the relative reference point
        if skeleton.kind != "farm" and table.sequential(n) is None:
            continue
        out[(n, p)] = t - float(np.ravel(skeleton.share(T, n, p))[0])
    return out


def estimate(table: RuntimeTable, n: float, p: int, *, skeleton: Skeleton = Skeleton(),
             method_t: str = _DEFAULT.method_t, method_a: str = _DEFAULT.method_a,
             direction: str = _DEFAULT.direction, epsilon: float = _DEFAULT.epsilon,
             poly_degree: int = _DEFAULT.poly_degree, strategy: Strategy = _DEFAULT.strategy,
             training: int = _DEFAULT.training, train: Window | None = None,
             diagnostics: bool = True) -> Estimate:
    """Forecast T(n, p) = share + Ā(n, p); a measured T(n, p) is left out and compared.

    ``strategy``: how a part whose method is ``auto`` picks one (:func:`choose`); ``train``
    restricts the points learnt from (``Window.parse("n<=9689")``); without ``diagnostics`` a part
    whose method the user chose skips the hold-out errors it would only report."""
    ForecastOptions(method_t, method_a, direction, epsilon, poly_degree, strategy, training)  # refuses bad ones
    if p < 1:
        raise InputError(f"p = {p}: the number of PEs must be at least 1")
    n, p = float(n), int(p)
    measured = table.times.get((n, p))
    work = table.without_all([(n, p)]) if measured is not None else table
    if train is not None:
        work = train.restrict(work)
    ref_n = work.reference_ns
    t_seq = work.sequential(n)
    if t_seq is not None:
        seq = Part("T(n)", "measured", (n,), (t_seq,), n, t_seq, "measured")
    else:
        seq = _estimate_part("T(n)", "n", ref_n, work.reference_times(ref_n), n, method_t, epsilon,
                             poly_degree, strategy, training, diagnostics)
    T = sequential_model(work, method_t, poly_degree, {n: seq.value})

    share = float(np.ravel(skeleton.share(T, n, p))[0])
    if p == 1 and not work.absolute:
        a = Part("Ā(n, p)", "measured", (), (), 1.0, 0.0, "zero at the relative reference point")
        return Estimate(n, p, skeleton, seq, a, share, share, measured, work.absolute)
    pen = penalties(work, skeleton, T)
    along_n = sorted((k[0], v) for k, v in pen.items() if k[1] == p)
    along_p = sorted((k[1], v) for k, v in pen.items() if k[0] == n)
    if not work.absolute and work.sequential(n) is not None:
        along_p = sorted(along_p + [(1, 0.0)])  # Ā(n, 1) = 0 at the relative reference point
    chosen = direction
    if chosen == "auto":
        chosen = "n" if len(along_n) >= 2 else ("p" if len(along_p) >= 2 else "")
    if not chosen:
        raise ForecastError(f"cannot forecast Ā({n:g}, {p}): fewer than 2 penalties known at p = {p} "
                            f"({len(along_n)}) and at n = {n:g} ({len(along_p)}); measure T(n, {p}) for more n, "
                            f"or T({n:g}, p) for more p")
    pts = along_n if chosen == "n" else along_p
    at = n if chosen == "n" else float(p)
    a = _estimate_part("Ā(n, p)", chosen, [k for k, _ in pts], [v for _, v in pts], at, method_a, epsilon,
                       poly_degree, strategy, training, diagnostics)
    return Estimate(n, p, skeleton, seq, a, share, share + a.value, measured, work.absolute)


@dataclass(frozen=True)
class QualityRow:
    """Ā(n, p), the Karp-Flatt serial fraction and the speedup at one measured point."""

    n: float
    p: int
    time: float
    sequential: float
    penalty: float
    serial_fraction: float
    speedup: float


def quality(table: RuntimeTable) -> list[QualityRow]:
    """Ā(n, p) and f(n, p) at every measured p > 1 whose reference time T(n) is known (section 5)."""
    rows = []
    for (n, p), t in sorted(table.times.items()):
        t_seq = table.sequential(n)
        if p == SEQ or t_seq is None or (p == 1 and not table.absolute):
            continue
        f = float(serial_fraction(t, t_seq, p)) if p > 1 else math.nan
        rows.append(QualityRow(n, p, t, t_seq, float(penalty(t, t_seq, p)), f, t_seq / t))
    if not rows:
        raise InputError("no point has both T(n, p) for p > 1 and its reference time T(n)",
                         path=table.source or None, hint="measure T(n, p) at an n whose T(n) or T(n, 1) is known")
    return rows

