"""The whole-profile analysis: every call path x metric fitted, composed along the call tree and
evaluated at a target point (docs/analyze.md).

Bottom up, each call path gets the model fitted to its inclusive values and, for a caller, the
model composed from its own and its callees' (``seq``); where both exist, the one predicting the
held-out points better (:mod:`perfcompose.analyze.holdout`) is kept and passed up. Shares are of
the run (the root, or in a flat profile the region largest at the target). Call paths at 1 % of
the run or more come first, ranked by the time they add between the largest measured point and
the target (3 significant digits, ties by share); a chain of callers that merely wrap a single
callee is one entry."""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from perfcompose.analyze.callpaths import DEVICE_TAGS, THREAD_TAG, region
from perfcompose.analyze.holdout import Split, relative_error, restrict, split
from perfcompose.analyze.members import bootstrap_members
from perfcompose.analyze.pmnf_sum import Columns, PMNFSum, order_text
from perfcompose.analyze.result import Analysis, CallNode, Composition, Estimate, MetricAnalysis, Picture, Ranked
from perfcompose.analyze.values import MetricValues, ValueKind, read_values
from perfcompose.choices import Scaling
from perfcompose.data.experiment import Experiment, Series
from perfcompose.ensemble import percentile_interval
from perfcompose.errors import FitError, InputError
from perfcompose.fit import PMNFFitter
from perfcompose.fit.pmnf import FitResult, predict
from perfcompose.fit.profile import fit_profile

Progress = Callable[[str, int, int], None]

#: relative difference at the target above which a composed and a fitted model disagree
THRESHOLD = 0.1
#: how much smaller (relatively) the composed model's held-out error must be for it to be kept
TIE = 0.01
#: the central probability of the intervals
LEVEL = 0.9
#: digits of the model texts the analysis holds
DIGITS = 6
#: share of the run at the target below which a call path is negligible (ranked after the others)
NEGLIGIBLE = 0.01
#: ranked call paths whose scaling is drawn
PICTURES = 10
#: points of a drawn curve
GRID = 40
#: relative difference within which a caller and its only callee hold the same values (a wrapper)
SAME = 1e-3

_OWN = "own"
Key = tuple[str, str, str]


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


def _finite(v: float) -> float | None:
    return v if math.isfinite(v) else None


def _share(part: float, whole: float) -> float:
    return part / whole if whole else 0.0


def _holding(value: float, low: float, high: float, floor: float = -math.inf) -> Estimate:
    """The estimate with an interval that holds its value (members of an exact fit scatter by rounding),
    never below ``floor`` (0 for a value a call path has, which no member makes negative)."""
    low, high = float(low), float(high)
    if not (math.isfinite(low) and math.isfinite(high)):
        return Estimate(value)
    low = min(low, value)
    return Estimate(value, max(low, floor) if value >= floor else low, max(high, value))


def _fit(parameters: tuple[str, ...], metrics: Sequence[MetricValues], source: str, fitter: Any,
         scheduler: str | None, progress: Progress | None,
         keep: frozenset[tuple[float, ...]] | None = None) -> dict[Key, tuple[FitResult, Series]]:
    """Each fitted series' result and the series, by (metric, kind, call path)."""
    series: list[Series] = []
    keys: list[Key] = []
    can: dict[bytes, bool] = {}    # whether series at these coordinates are fittable
    for mv in metrics:
        # every inclusive series and the callers' own; for the fits without the held-out points only
        # those the choice between composition and fit compares
        callers = [p for p in mv.tree.callees if mv.tree.summed(p)]
        inclusive = (mv.inclusive if keep is None
                     else dict.fromkeys(q for p in callers for q in (p, *mv.tree.summed(p)) if q in mv.inclusive))
        wanted = ([("inclusive", p, mv.inclusive[p]) for p in inclusive]
                  + [("exclusive", p, mv.exclusive[p]) for p in callers if p in mv.exclusive])
        for kind, path, s in wanted:
            if keep is not None:
                s = restrict(s, keep)
            X = s.coordinates()
            at = X.tobytes() + repr(X.shape).encode()
            if at not in can:  # a PMNF model is fitted to at least 3 distinct values of every parameter
                can[at] = len(X) >= 3 and all(len(set(X[:, k].tolist())) >= 3 for k in range(len(parameters)))
            if can[at]:
                series.append(Series(f"{mv.metric} ({kind})", s.points, path, s.unit))
                keys.append((mv.metric, kind, path))
    if not series:
        return {}
    results = fit_profile(Experiment(parameters, tuple(series), source=source), fitter=fitter,
                          scheduler=scheduler, progress=progress, alternatives=False)
    return {k: (r, s) for k, r, s in zip(keys, results, series)}


def _sums(parameters: tuple[str, ...], fits: Mapping[Key, tuple[FitResult, Series]],
          aggregate: str) -> dict[Key, PMNFSum]:
    """Every fit as a :class:`PMNFSum` carrying its bootstrap members."""
    sums = {k: PMNFSum.of_terms(parameters, r.chosen.constant,
                                [(c, tuple((parameters[i], f[0], f[1]) for i, f in shape))
                                 for c, shape in r.chosen.terms])
            for k, (r, _) in fits.items()}
    columns: dict[bytes, Columns] = {}
    designs = []
    for k, (_, s) in fits.items():
        X = s.coordinates()
        at = columns.setdefault(X.tobytes() + repr(X.shape).encode(), Columns(parameters, X))
        designs.append(at.design(sums[k].keys))
    members = bootstrap_members(designs, [sums[k].coefficients for k in fits],
                                [s.repetitions() for _, s in fits.values()], aggregate=aggregate)
    return {k: m.with_members(b) for (k, m), b in zip(sums.items(), members)}


def _beside(mv: MetricValues, path: str) -> str:
    """Why ``path`` is not summed into its caller ("" where it is)."""
    if path not in mv.tree.beside:
        return ""
    tags = {**(mv.exclusive[path].tags if path in mv.exclusive else {}),
            **(mv.inclusive[path].tags if path in mv.inclusive else {})}
    if any(tags.get(t) for t in DEVICE_TAGS):
        return "on a device"
    return f"on thread {tags.get(THREAD_TAG)}" if THREAD_TAG in tags else "on another thread"


@dataclass(frozen=True)
class _Evaluated:
    """A model's values at the rows of :class:`_Where`, its estimate at the target and the time it
    adds from the largest measured point to the target."""

    values: np.ndarray
    target: Estimate
    added: Estimate


class _Where:
    """The points every model is evaluated at: the target, the largest measured point, and the
    largest with one parameter moved to its target value (one row per parameter)."""

    def __init__(self, parameters: tuple[str, ...], X: np.ndarray, level: float):
        self.X, self.level = X, level
        self.columns = Columns(parameters, X)

    def evaluate(self, model: PMNFSum) -> _Evaluated:
        return self.evaluate_all([model])[0]

    def evaluate_all(self, models: Sequence[PMNFSum]) -> list[_Evaluated]:
        """Every model evaluated, the intervals of all read off their members in one pass."""
        designs = [self.columns.design(m.keys) for m in models]
        values = [D @ m.coefficients for D, m in zip(designs, models)]
        members = {k: m.members @ D[:2].T for k, (D, m) in enumerate(zip(designs, models)) if m.members is not None}
        bands: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        for size in {m.shape[0] for m in members.values()}:
            ks = [k for k, m in members.items() if m.shape[0] == size]
            stacked = np.stack([members[k] for k in ks], axis=2)  # (members, 2, models)
            both = np.stack([stacked[:, 0], stacked[:, 0] - stacked[:, 1]], axis=1)  # (members, 2, models)
            low, high = percentile_interval(both, self.level)
            lows, highs = low.T.tolist(), high.T.tolist()
            bands.update({k: (lows[i], highs[i]) for i, k in enumerate(ks)})
        out = []
        for k, v in enumerate(values):
            at, largest = float(v[0]), float(v[1])
            target, added = Estimate(at), Estimate(float(v[0] - v[1]))
            if k in bands:
                low, high = bands[k]
                target = _holding(at, low[0], high[0], floor=0.0)
                added = _holding(added.value, low[1], high[1], floor=-max(largest, 0.0))
            out.append(_Evaluated(v, target, added))
        return out


class _Tree:
    """The bottom-up pass over one metric's call trees (see the module)."""

    def __init__(self, mv: MetricValues, parameters: tuple[str, ...], full: Mapping[Key, PMNFSum],
                 results: Mapping[Key, FitResult], train: Mapping[Key, FitResult], held: Split,
                 where: _Where, threshold: float, aggregate: str):
        self.mv, self.parameters, self.full, self.results, self.train = mv, parameters, full, results, train
        self.held, self.where, self.threshold, self.aggregate = held, where, threshold, aggregate
        self.kept: dict[str, PMNFSum] = {}
        self.fitted: dict[str, PMNFSum] = {}
        self.composed: dict[str, PMNFSum] = {}
        #: each call path's kept model fitted without the held-out points, as its values at them
        self.held_coords = np.array(sorted(held.held_out), dtype=float)
        self.kept_train: dict[str, np.ndarray] = {}
        self.compositions: dict[str, Composition] = {}
        self.evaluated: dict[str, _Evaluated] = {}
        #: call paths measured at too few points to fit, taken as constants
        self.constants: set[tuple[str, str]] = set()

    def _model(self, kind: str, path: str) -> PMNFSum | None:
        fitted = self.full.get((self.mv.metric, kind, path))
        if fitted is not None:
            return fitted
        values = (self.mv.inclusive if kind == "inclusive" else self.mv.exclusive).get(path)
        if values is None:
            return None
        # too few points to fit: the median of its measured aggregates, as a constant
        self.constants.add((kind, path))
        return PMNFSum.constant(self.parameters, float(np.median(values.aggregated(self.aggregate))))  # type: ignore[arg-type]

    def _train_values(self, kind: str, path: str) -> np.ndarray | None:
        """The values at the held-out points of the model fitted to the other points."""
        result = self.train.get((self.mv.metric, kind, path))
        return None if result is None else predict(result.chosen, self.held_coords)

    def visit(self, path: str) -> None:
        summed = self.mv.tree.summed(path)
        fitted = self._model("inclusive", path)
        if fitted is not None:
            self.fitted[path] = fitted
        train_fitted = self._train_values("inclusive", path)
        if not summed:
            if fitted is None:
                raise FitError(f"{path} ({self.mv.metric}): no measurements shared by its points")
            self.kept[path] = fitted
            if train_fitted is not None:
                self.kept_train[path] = train_fitted
            return
        own = self._model("exclusive", path) if path in self.mv.exclusive else None
        composed = PMNFSum.total(([own] if own is not None else []) + [self.kept[c] for c in summed])
        self.composed[path] = composed
        shown = f"seq({', '.join(([_OWN] if own is not None else []) + [region(c) for c in summed])})"
        train_composed = self._train_composed(path, summed)
        errors = self._heldout_errors(path, train_fitted, train_composed)
        at_c = self.where.evaluate(composed).target
        at_f = float(fitted.values(self.where.X[:1])[0]) if fitted is not None else None
        diff = (at_c.value - at_f) / abs(at_f) if at_f else None
        disagrees = diff is not None and abs(diff) > self.threshold
        crude = ("exclusive", path) in self.constants or any(("inclusive", c) in self.constants for c in summed)
        kept, reason = self._choose(fitted is not None and ("inclusive", path) not in self.constants, errors, crude)
        self.kept[path] = composed if kept == "composed" else fitted  # type: ignore[assignment]
        chosen_train = train_composed if kept == "composed" else train_fitted
        if chosen_train is not None:
            self.kept_train[path] = chosen_train
        self.compositions[path] = Composition(
            shown, composed.text(DIGITS), own.text(DIGITS) if own is not None else None,
            at_c, at_f, _finite(diff) if diff is not None else None, disagrees,
            errors[0], errors[1], errors[2], kept, reason)

    def _train_composed(self, path: str, callees: Sequence[str]) -> np.ndarray | None:
        """The composition seq(own, callees) of the models fitted without the held-out points, at
        them: seq adds, so its value is the sum of its parts' values."""
        if not self.train or any(c not in self.kept_train for c in callees):
            return None
        own_key = (self.mv.metric, "exclusive", path)
        own = self._train_values("exclusive", path)
        if own is None and own_key in self.full:
            return None  # the own part was measured, but too few of its points remain
        parts = ([own] if own is not None else []) + [self.kept_train[c] for c in callees]
        return np.sum(parts, axis=0)

    def _heldout_errors(self, path: str, fitted: np.ndarray | None, composed: np.ndarray | None
                        ) -> tuple[float | None, float | None, int]:
        series = self.mv.inclusive.get(path)
        if series is None or not self.held.held_out:
            return None, None, 0
        points = [p for p in series.points if p.coordinate in self.held.held_out]
        if not points:
            return None, None, 0
        index = {tuple(c): k for k, c in enumerate(self.held_coords.tolist())}
        rows = [index[tuple(float(v) for v in p.coordinate)] for p in points]
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

    def source(self, path: str) -> str:
        composition = self.compositions.get(path)
        return ("composed" if composition is not None and composition.kept == "composed"
                else "constant" if ("inclusive", path) in self.constants else "fit")

    def evaluate(self, path: str) -> _Evaluated:
        """The kept model of ``path`` evaluated (once)."""
        if path not in self.evaluated:
            self.evaluated[path] = self.where.evaluate(self.kept[path])
        return self.evaluated[path]

    def node(self, path: str, parent: float | None, run: tuple[float, float]) -> CallNode:
        model = self.kept[path]
        evaluated = self.evaluate(path)
        est, at_largest = evaluated.target, float(evaluated.values[1])
        result = self.results.get((self.mv.metric, "inclusive", path))
        quality = () if result is None else tuple((k, _finite(float(result.stats[k])))
                                                  for k in ("smape", "adj_r2", "cv_error") if k in result.stats)
        children = tuple(self.node(c, est.value, run) for c in self.mv.tree.callees.get(path, ()))
        text = model.text(DIGITS)
        fitted = None if result is None else text if model is self.fitted.get(path) else result.text(digits=DIGITS)
        return CallNode(path, region(path), path in self.mv.tree.measured, text, self.source(path),
                        fitted, quality, est, at_largest,
                        None if parent is None else _share(est.value, parent), _share(est.value, run[0]),
                        _share(at_largest, run[1]),
                        tuple((p, order_text(model.order(p), p)) for p in self.parameters), self.compositions.get(path),
                        children, _beside(self.mv, path))


def _ranking(tree: _Tree, nodes: Sequence[CallNode], run: str) -> tuple[Ranked, ...]:
    parameters = tree.parameters
    values = {n.path: tree.evaluate(n.path).values for n in nodes}
    run_values = values[run]
    run_orders = {p: tree.kept[run].order(p) for p in parameters}
    # each caller that merely wraps its only callee (the same values at every evaluated point), by callee
    wraps: dict[str, str] = {}
    for path, callees in tree.mv.tree.callees.items():
        if len(callees) == 1 and callees[0] in values and path in values and callees[0] not in tree.mv.tree.beside:
            a, b = values[path], values[callees[0]]
            if np.all(np.abs(a - b) <= SAME * np.maximum(np.abs(a), np.abs(b))):
                wraps[callees[0]] = path
    wrappers = set(wraps.values())
    out = []
    for node in nodes:
        if node.path == run or node.path in wrappers:
            continue
        v = values[node.path]
        base = float(_share(v[1], run_values[1]))
        share_target = float(_share(v[0], run_values[0]))
        growth = _finite(share_target / base) if base > 0 else None
        by_param = tuple((p, _finite(float(_share(v[2 + k], run_values[2 + k]) / base)) if base > 0 else None)
                         for k, p in enumerate(parameters))
        model = tree.kept[node.path]
        faster = tuple(p for p in parameters if model.order(p) > run_orders[p])
        chain, up = [], wraps.get(node.path)
        while up is not None:
            chain.append(up)
            up = wraps.get(up)
        out.append(Ranked(node.path, base, share_target, tree.evaluate(node.path).added, growth, by_param,
                          node.orders, faster, tuple(chain)))
    return tuple(sorted(out, key=lambda r: (r.share_target < NEGLIGIBLE, -float(f"{r.added.value:.3g}"),
                                            -r.share_target, r.path)))


def _picture(tree: _Tree, path: str, target: dict[str, float], largest: dict[str, float],
             coords: np.ndarray) -> Picture:
    """How ``path`` scales along the parameter that moves farthest (in ratio) to the target."""
    params = tree.parameters
    k = max(range(len(params)), key=lambda q: abs(math.log(target[params[q]] / largest[params[q]])))
    name = params[k]
    series = tree.mv.inclusive.get(path)
    mx: list[float] = []
    my: list[float] = []
    low_x = float(coords[:, k].min()) if len(coords) else largest[name]
    if series is not None:
        X = series.coordinates()
        near = np.ones(len(X), dtype=bool)
        for q, p in enumerate(params):
            if q != k:
                measured = np.unique(X[:, q])
                nearest = measured[np.argmin(np.abs(np.log(measured / target[p])))]
                near &= X[:, q] == nearest
        ys = series.aggregated(tree.aggregate)  # type: ignore[arg-type]
        order = np.argsort(X[near, k])
        mx, my = X[near, k][order].tolist(), ys[near][order].tolist()
        low_x = min(low_x, *mx) if mx else low_x
    grid = np.geomspace(low_x, max(target[name], largest[name]), GRID)
    G = np.array([[g if p == name else target[p] for p in params] for g in grid])
    kept = tree.kept[path]
    members = kept.member_values(G)
    if members is not None and np.isfinite(members).all():
        lo, hi = percentile_interval(members, tree.where.level)
        low, high = tuple(np.maximum(lo, np.minimum(kept.values(G), 0.0)).tolist()), tuple(hi.tolist())
    else:
        low = high = ()
    fitted = tree.fitted.get(path)
    composed = tree.composed.get(path)
    return Picture(path, name, tuple((p, target[p]) for p in params if p != name), tuple(mx), tuple(my),
                   tuple(grid.tolist()), tuple(kept.values(G).tolist()), low, high,
                   tuple(fitted.values(G).tolist()) if fitted is not None and composed is not None else (),
                   tuple(composed.values(G).tolist()) if composed is not None else ())


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
    grids = {X.tobytes() + repr(X.shape).encode(): X
             for mv in chosen for X in (s.coordinates() for s in mv.inclusive.values())}
    coords = sorted({tuple(c) for X in grids.values() for c in X.tolist()})
    # the measured coordinate farthest out (largest sum of logarithms; ties: the larger values)
    largest = dict(zip(parameters, max(coords, key=lambda c: (sum(math.log(v) for v in c), c))))
    held = split(coords, parameters)
    full = _fit(parameters, chosen, source, fitter, scheduler, progress)
    if progress is not None:
        progress("bootstrap of every model", 0, 1)
    sums = _sums(parameters, full, fitter.aggregate)
    train: dict[Key, FitResult] = {}
    if held.held_out and any(mv.tree.callees for mv in chosen):
        try:
            train = {k: r for k, (r, _) in _fit(parameters, chosen, source, fitter, scheduler, progress,
                                                keep=held.kept).items()}
        except FitError as exc:
            held = Split(held.kept, frozenset(), f"a fit to the remaining points failed: {exc}")
    rows = [target, largest] + [{**largest, p: target[p]} for p in parameters]
    where = _Where(parameters, np.array([[r[p] for p in parameters] for r in rows], dtype=float), level)
    results = {k: r for k, (r, _) in full.items()}
    out = []
    total, done = sum(len(mv.tree.postorder()) for mv in chosen), 0
    for mv in chosen:
        tree = _Tree(mv, parameters, sums, results, train, held, where, threshold, fitter.aggregate)
        for node in mv.tree.postorder():
            if progress is not None and done % 100 == 0:
                progress(f"composing {mv.metric}: {node}", done, total)
            tree.visit(node)
            done += 1
        tree.evaluated.update(zip(tree.kept, where.evaluate_all(list(tree.kept.values()))))
        roots = mv.tree.roots
        run = max(roots, key=lambda r: tree.evaluate(r).values[0]) if mv.tree.flat else mv.tree.root
        run_values = (float(tree.evaluate(run).values[0]), float(tree.evaluate(run).values[1]))
        nodes = tuple(tree.node(r, None, run_values) for r in roots)
        note = mv.note
        if tree.constants:
            note += (f"; {len({p for _, p in tree.constants})} call path(s) measured at too few points to fit "
                     "(3 values of every parameter), taken as the constant median of their values")
        if mv.tree.flat:
            note += f"; the run: {run}"
        ranking = _ranking(tree, [n for r in nodes for n in r.walk()], run)
        coordinates = np.array(coords, dtype=float)
        pictures = tuple(_picture(tree, r.path, target, largest, coordinates) for r in ranking[:PICTURES])
        out.append(MetricAnalysis(mv.metric, mv.unit, note, nodes, run, ranking, pictures))
    if progress is not None:
        progress("composed", total, total)
    holdout = (f"{len(held.held_out)} point(s) at the largest value of a parameter held out, fitted on the other "
               f"{len(held.kept)}" if held.held_out else f"no points held out: {held.why}")
    return Analysis(source, parameters, tuple(target.items()), tuple(largest.items()), level, threshold, holdout,
                    tuple(out))
