"""The whole-profile analysis: every call path x metric fitted, composed along the call tree and
evaluated at a target point.

For every metric the call tree is walked bottom up. Each call path gets the model fitted to its
inclusive values; a caller also gets the model composed from its own (exclusive) model and its
callees' models by ``seq`` (a sum, :func:`perfcompose.compose.operators.seq_model`). Where both
exist, the one that predicts the held-out points better (see :mod:`perfcompose.analyze.holdout`)
is kept and passed up to its own caller. Shares of caller and root follow from the kept models;
call paths are ranked by how much their share of the root grows from the largest measured point
to the target.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from perfcompose.analyze.callpaths import region
from perfcompose.analyze.holdout import Split, held_points, relative_error, restrict, split
from perfcompose.analyze.result import Analysis, CallNode, Composition, Estimate, MetricAnalysis, Ranked
from perfcompose.analyze.values import MetricValues, ValueKind, read_values
from perfcompose.choices import Aggregate, Scaling
from perfcompose.compose.interval import with_interval
from perfcompose.compose.operators import Composer
from perfcompose.compose.terms import Component, Seq, Term
from perfcompose.data.experiment import Experiment, Series
from perfcompose.errors import FitError, InputError
from perfcompose.fit import PMNFFitter
from perfcompose.fit.pmnf import predict
from perfcompose.fit.profile import fit_profile
from perfcompose.fit.uncertainty import with_uncertainty
from perfcompose.model import Model, Order

Progress = Callable[[str, int, int], None]

#: relative difference at the target above which a composed and a fitted model disagree
THRESHOLD = 0.1
#: how much smaller (relatively) the composed model's held-out error must be for it to be kept
TIE = 0.01
#: the central probability of the intervals
LEVEL = 0.9
#: digits of the model texts the analysis holds
DIGITS = 6

_OWN = "own"


def check_target(parameters: Sequence[str], at: Mapping[str, float]) -> dict[str, float]:
    """The target point, one value per parameter, or an error naming what is missing or unknown.

    >>> check_target(["p", "n"], {"n": 2.0, "p": 64.0})
    {'p': 64.0, 'n': 2.0}
    """
    missing = [p for p in parameters if p not in at]
    unknown = [p for p in at if p not in parameters]
    if missing or unknown:
        what = "; ".join(x for x in (f"no value for {', '.join(missing)}" if missing else "",
                                     f"{', '.join(unknown)} is no parameter of the profile" if unknown else "") if x)
        raise InputError(f"--at: {what}", hint="give every parameter of the profile a value: --at "
                         + ",".join(f"{p}=VALUE" for p in parameters))
    return {p: float(at[p]) for p in parameters}


def order_text(order: Order | None, name: str) -> str:
    """``p^(1) * log2(p)^(1)`` for an order in ``p``; ``-`` where the model is not PMNF.

    >>> from fractions import Fraction
    >>> order_text(Order(Fraction(1, 2), Fraction(1)), "p"), order_text(Order(Fraction(0), Fraction(0)), "p")
    ('p^(1/2) * log2(p)^(1)', '1')
    """
    if order is None:
        return "-"
    parts = ([f"{name}^({order.i})"] if order.i else []) + ([f"log2({name})^({order.j})"] if order.j else [])
    return " * ".join(parts) or "1"


def _at(model: Model, point: Mapping[str, float]) -> float:
    return float(np.asarray(model(**{p: point[p] for p in model.params})))


def _estimate(model: Model, point: Mapping[str, float], level: float) -> Estimate:
    value = _at(model, point)
    band = model.interval({p: point[p] for p in model.params}, level=level) if model.ensemble is not None else None
    if band is None:
        return Estimate(value)
    low, high = float(np.asarray(band[0])), float(np.asarray(band[1]))
    return Estimate(value, low, high) if math.isfinite(low) and math.isfinite(high) else Estimate(value)


def balanced_seq(names: Sequence[str]) -> Term:
    """``seq`` of the components ``names`` as a balanced tree: seq adds, so the grouping does not
    change the sum, and a node of thousands of callees nests about log2 of that deep, not that many
    levels (a left-deep chain of 3,000 exceeded Python's recursion limit when composed)."""
    if len(names) == 1:
        return Component(names[0])
    half = len(names) // 2
    return Seq(balanced_seq(names[:half]), balanced_seq(names[half:]))


def _finite(v: float) -> float | None:
    return v if math.isfinite(v) else None


def _share(part: float, whole: float) -> float:
    return part / whole if whole else 0.0


def _largest(coordinates: Sequence[tuple[float, ...]]) -> tuple[float, ...]:
    """The measured coordinate farthest out (largest sum of logarithms; ties: the larger values)."""
    return max(coordinates, key=lambda c: (sum(math.log(v) for v in c), c))


@dataclass(frozen=True)
class _Fits:
    """Fit results by (metric, kind, call path), kind 'inclusive' or 'exclusive'."""

    results: Mapping[tuple[str, str, str], Any]
    series: Mapping[tuple[str, str, str], Series]


def _experiment(parameters: tuple[str, ...], metrics: Sequence[MetricValues], source: str,
                keep: frozenset[tuple[float, ...]] | None = None) -> tuple[Experiment, list[tuple[str, str, str]]]:
    """All series to fit as one experiment (restricted to ``keep``), and the key of each."""
    series: list[Series] = []
    keys: list[tuple[str, str, str]] = []
    for mv in metrics:
        chosen = [("inclusive", p, s) for p, s in mv.inclusive.items()]
        chosen += [("exclusive", p, s) for p, s in mv.exclusive.items() if mv.tree.callees.get(p)]
        for kind, path, s in chosen:
            if keep is not None:
                s = restrict(s, keep)
            if not fittable(s, len(parameters)):
                continue
            series.append(Series(f"{mv.metric} ({kind})", s.points, path, s.unit))
            keys.append((mv.metric, kind, path))
    return Experiment(parameters, tuple(series), source=source), keys


def fittable(series: Series, parameters: int) -> bool:
    """Whether a PMNF model can be fitted: at least 3 distinct values of every parameter."""
    coords = series.coordinates()
    return len(coords) >= 3 and all(len(set(coords[:, k].tolist())) >= 3 for k in range(parameters))


def _fit(parameters: tuple[str, ...], metrics: Sequence[MetricValues], source: str, fitter: Any,
         scheduler: str | None, progress: Progress | None, keep: frozenset[tuple[float, ...]] | None = None) -> _Fits:
    experiment, keys = _experiment(parameters, metrics, source, keep)
    results = fit_profile(experiment, fitter=fitter, scheduler=scheduler, progress=progress)
    return _Fits(dict(zip(keys, results)), dict(zip(keys, experiment.series)))


class _Tree:
    """The bottom-up pass over one metric's call tree (see the module)."""

    def __init__(self, mv: MetricValues, parameters: tuple[str, ...], full: _Fits, train: _Fits | None, held: Split,
                 target: dict[str, float], threshold: float, level: float, aggregate: Aggregate):
        self.mv, self.parameters, self.full, self.train, self.held = mv, parameters, full, train, held
        self.target, self.threshold, self.level, self.aggregate = target, threshold, level, aggregate
        self.kept: dict[str, Model] = {}
        #: each call path's kept model fitted without the held-out points, as its values at them
        self.held_coords = sorted(held.held_out)
        self.kept_train: dict[str, np.ndarray] = {}
        self.compositions: dict[str, Composition] = {}
        #: call paths measured at too few points to fit, taken as constants
        self.constants: set[tuple[str, str]] = set()
        self.fitted: dict[str, Any] = {}

    def _fitted_model(self, kind: str, path: str) -> Model | None:
        key = (self.mv.metric, kind, path)
        result = self.full.results.get(key)
        if result is None:
            values = (self.mv.inclusive if kind == "inclusive" else self.mv.exclusive).get(path)
            if values is None or (kind == "exclusive" and not self.mv.tree.callees.get(path)):
                return None
            # too few points to fit: the median of its measured medians, as a constant
            self.constants.add((kind, path))
            return Model.constant(float(np.median(values.aggregated(self.aggregate))), params=self.parameters,
                                  unit=values.unit, source="constant: too few points to fit")
        return with_uncertainty(result.model, self.full.series[key], aggregate=self.aggregate)

    def _train_values(self, kind: str, path: str) -> np.ndarray | None:
        """The values at the held-out points of the model fitted to the other points."""
        result = None if self.train is None else self.train.results.get((self.mv.metric, kind, path))
        return None if result is None else predict(result.chosen, np.array(self.held_coords, dtype=float))

    def visit(self, path: str) -> None:
        callees = self.mv.tree.callees.get(path, ())
        fitted = self._fitted_model("inclusive", path)
        self.fitted[path] = self.full.results.get((self.mv.metric, "inclusive", path))
        train_fitted = self._train_values("inclusive", path)
        if not callees:
            if fitted is None:
                raise FitError(f"{path} ({self.mv.metric}): no measurements shared by its points")
            self.kept[path] = fitted
            if train_fitted is not None:
                self.kept_train[path] = train_fitted
            return
        own = self._fitted_model("exclusive", path)
        names = ([_OWN] if own is not None else []) + [f"c{k}" for k in range(len(callees))]
        models = ([own] if own is not None else []) + [self.kept[c] for c in callees]
        composer = Composer(dict(zip(names, models)), target_unit=None)
        term = balanced_seq(names)
        composed = with_interval(composer, term)
        shown = f"seq({', '.join(([_OWN] if own is not None else []) + [region(c) for c in callees])})"
        train_composed = self._train_composed(path, callees)
        errors = self._heldout_errors(path, train_fitted, train_composed)
        at_c = _estimate(composed, self.target, self.level)
        at_f = _at(fitted, self.target) if fitted is not None else None
        diff = (at_c.value - at_f) / abs(at_f) if at_f else None
        disagrees = diff is not None and abs(diff) > self.threshold
        crude = ("exclusive", path) in self.constants or any(("inclusive", c) in self.constants for c in callees)
        kept, reason = self._choose(fitted is not None and ("inclusive", path) not in self.constants, errors, crude)
        self.kept[path] = composed if kept == "composed" else fitted  # type: ignore[assignment]
        chosen_train = train_composed if kept == "composed" else train_fitted
        if chosen_train is not None:
            self.kept_train[path] = chosen_train
        self.compositions[path] = Composition(
            shown, composed.to_extrap(digits=DIGITS), own.to_extrap(digits=DIGITS) if own is not None else None,
            at_c, at_f, _finite(diff) if diff is not None else None, disagrees,
            errors[0], errors[1], errors[2], kept, reason)

    def _train_composed(self, path: str, callees: Sequence[str]) -> np.ndarray | None:
        """The composition seq(own, callees) of the models fitted without the held-out points, at
        them: seq adds, so its value is the sum of its parts' values."""
        if self.train is None or any(c not in self.kept_train for c in callees):
            return None
        own_key = (self.mv.metric, "exclusive", path)
        own = self._train_values("exclusive", path)
        if own is None and own_key in self.full.results:
            return None  # the own part was measured, but too few of its points remain
        parts = ([own] if own is not None else []) + [self.kept_train[c] for c in callees]
        return np.sum(parts, axis=0)

    def _heldout_errors(self, path: str, fitted: np.ndarray | None, composed: np.ndarray | None
                        ) -> tuple[float | None, float | None, int]:
        series = self.mv.inclusive.get(path)
        if series is None or not self.held.held_out:
            return None, None, 0
        points = held_points(series, self.held.held_out)
        if not points:
            return None, None, 0
        index = {c: k for k, c in enumerate(self.held_coords)}
        rows = [index[p.coordinate] for p in points]
        measured = np.array([p.median for p in points])

        def error(values: np.ndarray | None) -> float | None:
            return None if values is None else _finite(relative_error(values[rows], measured))

        return error(fitted), error(composed), len(points)

    def _choose(self, has_fit: bool, errors: tuple[float | None, float | None, int], crude: bool
                ) -> tuple[str, str]:
        ef, ec, n = errors
        if not has_fit:
            return "composed", "the caller has too few values of its own to fit"
        if crude:
            return "fitted", "the composition holds parts measured at too few points to fit; the fit is kept"
        if ef is None or ec is None:
            why = self.held.why or "too few points remain once the largest are held out"
            return "composed", (f"extrapolation not tested ({why}); the composed model is kept, as it adds up "
                                "with its callees")
        if ec < ef * (1 - TIE):
            return "composed", f"extrapolates better to the {n} held-out point(s): {ec:.3g} % vs {ef:.3g} %"
        return "fitted", f"extrapolates at least as well to the {n} held-out point(s): {ef:.3g} % vs {ec:.3g} %"


def _node(tree: _Tree, path: str, parameters: tuple[str, ...], target: dict[str, float],
          largest: dict[str, float], parent_value: float, root_value: float, root_largest: float,
          level: float) -> CallNode:
    model = tree.kept[path]
    est = _estimate(model, target, level)
    at_largest = _at(model, largest)
    result = tree.fitted.get(path)
    quality: tuple[tuple[str, Any], ...] = ()
    if result is not None:
        quality = tuple((k, _finite(float(result.stats[k]))) for k in ("smape", "adj_r2", "cv_error")
                        if k in result.stats)
    composition = tree.compositions.get(path)
    source = ("composed" if composition is not None and composition.kept == "composed"
              else "constant" if ("inclusive", path) in tree.constants else "fit")
    children = tuple(_node(tree, c, parameters, target, largest, est.value, root_value, root_largest, level)
                     for c in tree.mv.tree.callees.get(path, ()))
    return CallNode(path, region(path), path in tree.mv.tree.measured, model.to_extrap(digits=DIGITS), source,
                    result.text(digits=DIGITS) if result is not None else None, quality, est,
                    at_largest, _share(est.value, parent_value), _share(est.value, root_value),
                    _share(at_largest, root_largest),
                    tuple((p, order_text(model.order(p), p)) for p in parameters), composition, children)


def _ranking(tree: _Tree, root: CallNode, parameters: tuple[str, ...], target: dict[str, float],
             largest: dict[str, float]) -> tuple[Ranked, ...]:
    root_model = tree.kept[root.path]
    root_orders = {p: root_model.order(p) for p in parameters}
    moved = {p: {**largest, p: target[p]} for p in parameters}
    root_moved = {p: _at(root_model, pt) for p, pt in moved.items()}
    out = []
    for node in root.walk():
        if node is root:
            continue
        model = tree.kept[node.path]
        base = node.share_of_root_measured
        growth = _finite(node.share_of_root / base) if base > 0 else None
        by_param = tuple((p, _finite(_share(_at(model, pt), root_moved[p]) / base) if base > 0 else None)
                         for p, pt in moved.items())
        faster = tuple(p for p in parameters if (o := model.order(p)) is not None and root_orders[p] is not None
                       and o > root_orders[p])  # type: ignore[operator]
        out.append(Ranked(node.path, base, node.share_of_root, growth, by_param, node.orders, faster))
    return tuple(sorted(out, key=lambda r: (-(r.growth if r.growth is not None else -1.0), r.path)))


def analyze(path: str | Path | Experiment, at: Mapping[str, float], *, metrics: Sequence[str] = (),
            values: ValueKind = "auto", scaling: Scaling = "weak", threshold: float = THRESHOLD, level: float = LEVEL,
            fitter: Any = None, scheduler: str | None = None, progress: Progress | None = None) -> Analysis:
    """Analyse the profile at ``path`` (or an experiment already read, e.g. from a Thicket) at the
    target point ``at`` (see the module).

    >>> a = analyze("examples/callpaths.txt", {"p": 4096})  # doctest: +SKIP
    >>> a.metrics[0].ranking[0].path  # doctest: +SKIP
    'main->solve->MPI_Allreduce'
    """
    if not threshold > 0:
        raise InputError(f"the threshold must be above 0, got {threshold}")
    read = path if isinstance(path, Experiment) else Path(path)
    parameters, chosen = read_values(read, metrics, values=values, scaling=scaling)
    target = check_target(parameters, at)
    fitter = fitter or PMNFFitter()
    source = path.source if isinstance(path, Experiment) else str(path)
    coords = sorted({p.coordinate for mv in chosen for s in mv.inclusive.values() for p in s.points})
    largest = dict(zip(parameters, _largest(coords)))
    held = split(coords, parameters)
    full = _fit(parameters, chosen, source, fitter, scheduler, progress)
    train = None
    if held.held_out:
        try:
            train = _fit(parameters, chosen, source, fitter, scheduler, progress, keep=held.kept)
        except FitError as exc:
            held = Split(held.kept, frozenset(), f"a fit to the remaining points failed: {exc}")
    out = []
    total, done = sum(len(mv.tree.postorder()) for mv in chosen), 0
    for mv in chosen:
        tree = _Tree(mv, parameters, full, train, held, target, threshold, level,
                     fitter.aggregate)
        for node in mv.tree.postorder():
            if progress is not None:
                progress(f"composing {mv.metric}: {node}", done, total)
            tree.visit(node)
            done += 1
        root_model = tree.kept[mv.tree.root]
        root_value, root_largest = _at(root_model, target), _at(root_model, largest)
        root = _node(tree, mv.tree.root, parameters, target, largest, root_value, root_value, root_largest, level)
        note = mv.note
        if tree.constants:
            note += (f"; {len({p for _, p in tree.constants})} call path(s) measured at too few points to fit "
                     "(3 values of every parameter), taken as the constant median of their values")
        out.append(MetricAnalysis(mv.metric, mv.unit, note, root, _ranking(tree, root, parameters, target, largest)))
    if progress is not None:
        progress("composed", total, total)
    if held.held_out:
        holdout = (f"{len(held.held_out)} point(s) at the largest value of a parameter held out, "
                   f"fitted on the other {len(held.kept)}")
    else:
        holdout = f"no points held out: {held.why}"
    return Analysis(source, parameters, tuple(target.items()), tuple(largest.items()), level, threshold, holdout,
                    tuple(out))


__all__ = ["analyze", "check_target", "order_text"]
