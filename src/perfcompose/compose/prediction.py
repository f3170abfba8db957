"""A prediction of a designed program: computed once, shown by every renderer.

:func:`predict_design` reads a design file and predicts it; :func:`predict` composes a program,
accounts for more workers than cores, and evaluates at every point the prediction (with its
interval where a component carries one), the bottleneck path and each component's time. The
result, a frozen :class:`perfcompose.prediction_result.Prediction`, also holds the per-part
models, the term as a tree with each node's time, the composed model over the components' names
and the measurements it is set against: the console tables, the JSON record, the HTML report
and the plot (:mod:`perfcompose.report`) all read it, and none composes again.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from perfcompose.compose import oversubscription
from perfcompose.compose.design import load_design
from perfcompose.compose.explore import bottleneck
from perfcompose.compose.interval import follow_choices, with_interval
from perfcompose.compose.operators import Composer
from perfcompose.compose.oversubscription import accounted
from perfcompose.compose.terms import Component, Pipe, Seq, Term, TPool
from perfcompose.data import load
from perfcompose.ensemble import time_bounds
from perfcompose.errors import InputError, PerfcomposeError
from perfcompose.model import Model, symbol
from perfcompose.prediction_result import (
    ComponentValue,
    MeasuredSeries,
    PartPrediction,
    PointPrediction,
    Prediction,
    SharedCores,
    TermNode,
)
from perfcompose.units import conversion

__all__ = ["ComponentValue", "PointPrediction", "Prediction", "predict", "predict_design", "term_times"]


def _over_components(composer: Composer, term: Term, accounted_for_cores: bool) -> Model | None:
    """The program composed from one symbol per component (named as the component), with the
    choices the asymptotic rule made on the real models, and the floor of the cores where the
    prediction has one; None where the names cannot stand for the components (a component named
    like a parameter) or the program cannot be composed so (a MapReduce whose shuffle is a model)."""
    names = term.components()
    leaves = {name: Model(symbol(name), unit=composer.unit) for name in names}
    taken = set(composer(term).params)
    if taken & set(names):
        return None
    kept = {c.term: c.kept for c in composer.pipe_choices(term) if c.dropped is not None}
    try:
        symbolic = Composer(leaves, pipe="pointwise", size=composer.size)
        model = symbolic(follow_choices(term, kept))
        if accounted_for_cores:
            model, _ = accounted(symbolic, term, model)
    except (PerfcomposeError, KeyError):
        return None
    return model


def _flat(term: Term) -> list[Term]:
    """The children of ``term``, nested pipes in a pipe and seqs in a seq lifted to its level."""
    kind = type(term)
    if kind not in (Pipe, Seq):
        return list(term.children())
    out: list[Term] = []
    for c in term.children():
        out += _flat(c) if type(c) is kind else [c]
    return out


def term_times(term: Term, composer: Composer, at: Mapping[str, float]) -> TermNode:
    """``term`` as a tree, every node with its time per element at ``at`` by the operators."""
    def time(t: Term) -> float | None:
        try:
            m = composer.model(t)
            return float(np.asarray(m(**{p: at[p] for p in m.params})))
        except Exception:  # a node that cannot be evaluated alone is drawn without its time
            return None

    if isinstance(term, Component):
        return TermNode(term.name, str(term), time(term), composer.leaf(term).source or "expression")
    names: dict[type, str] = {Pipe: "pipe", Seq: "seq"}
    label = f"tpool_{term.threads}" if isinstance(term, TPool) else names.get(type(term), type(term).__name__.lower())
    return TermNode(label, str(term), time(term), None, tuple(term_times(c, composer, at) for c in _flat(term)))


def _order(model: Model, size: str) -> str:
    """The model's order in ``size`` as the tables print it: O(1), O(x log2(x)) or not PMNF."""
    try:
        order = model.order(size)
    except Exception:  # numeric models have no closed order
        order = None
    if order is None:
        return "not PMNF"
    return "O(1)" if (order.i, order.j) == (0, 0) else f"O({order})"


def _fitted_medians(leaf: Model) -> tuple[tuple[float, float], ...]:
    """The medians a component was fitted to (its source says 'fit of FILE[:REGION]'), in the
    component's unit, where the file has one series of one parameter; none for other sources."""
    src = leaf.source or ""
    if not src.startswith("fit of "):
        return ()
    path, _, region = src[len("fit of "):].partition(":")
    if not Path(path).is_file() and ":" in src[len("fit of "):]:
        path, region = src[len("fit of "):], ""
    try:
        exp = load(Path(path))
        series = exp.select(region=region or None).series if region else exp.series
        if len(series) != 1 or len(exp.parameters) != 1:
            return ()
        s = series[0]
        factor = conversion(s.unit, leaf.unit) if s.unit and leaf.unit else 1.0
        xs, med = s.coordinates()[:, 0], s.aggregated("median") * factor
        return tuple((float(x), float(y)) for x, y in zip(xs, med))
    except Exception:  # measurements are shown where they can be read back, the prediction stands without
        return ()


def measured_series(spec: str, unit: str) -> tuple[list[tuple[float, float]], str]:
    """``FILE[:REGION]``: the medians per x of one series, in ``unit``, and a label."""
    path, _, region = spec.partition(":")
    if not Path(path).is_file() and ":" in spec:
        path, region = spec, ""
    exp = load(Path(path))
    chosen = exp.select(region=region).series if region else exp.series
    if len(chosen) != 1:
        raise InputError(f"{len(chosen)} series in {path}" + (f" for region '{region}'" if region else ""),
                         path=Path(path), hint="name one region: --measured FILE:REGION (regions: "
                         + ", ".join(exp.regions) + ")")
    if "x" not in exp.parameters:
        raise InputError(f"the measurements in {path} have no parameter x (parameters: "
                         f"{', '.join(exp.parameters)})", path=Path(path), hint="measure the program over x")
    s = chosen[0]
    k = exp.parameters.index("x")
    factor = conversion(s.unit, unit) if s.unit and unit else 1.0
    xs = s.coordinates()[:, k]
    med = s.aggregated("median") * factor
    return sorted(zip((float(v) for v in xs), (float(v) for v in med))), f"{path}" + (f":{region}" if region else "")


def _measured(spec: str, model: Model, fixed: Mapping[str, float]) -> MeasuredSeries:
    """The measurements ``spec`` names, each beside the prediction at its x."""
    seen, label = measured_series(spec, model.unit)
    predicted = tuple(float(np.asarray(model(**{p: ({**fixed, "x": xv})[p] for p in model.params})))
                      for xv, _ in seen)
    return MeasuredSeries(label, tuple(x for x, _ in seen), tuple(m for _, m in seen), predicted)


def predict_design(path: Path | str, *, x: Sequence[float] = (), parameters: Mapping[str, float] | None = None,
                   pipe: str | None = None, measured: str | None = None) -> Prediction:
    """Read the design file at ``path`` and predict its program at ``x`` (default: the design's
    sizes), its ``[parameters]`` overridden by ``parameters``, its pipe rule by ``pipe``, and set
    against the measurements ``measured`` (``FILE[:REGION]``) where given.

    An error after the design was read carries the design's notes (``__notes__``).
    """
    d = load_design(path)
    try:
        composer = Composer(d.components, pipe=pipe or d.pipe)  # type: ignore[arg-type]
        return predict(d.program, composer, list(x) or list(d.x), {**d.parameters, **(parameters or {})},
                       title=d.title, design=d.path, notes=d.notes, measured=measured)
    except PerfcomposeError as exc:
        for note in d.notes:
            exc.add_note(note)
        raise


def predict(program: Term, composer: Composer, xs: Sequence[float], parameters: Mapping[str, float] | None = None,
            *, title: str = "", design: Path | None = None, notes: Sequence[str] = (),
            measured: str | None = None) -> Prediction:
    """Predict ``program`` at every size in ``xs`` with the other parameters at ``parameters``,
    set against the measurements ``measured`` (``FILE[:REGION]``, over x) where given.

    Every parameter the composed model keeps symbolic (``tpool_n``'s n) needs a value.
    """
    fixed = dict(parameters or {})
    operators = composer(program)
    model, over = accounted(composer, program, with_interval(composer, program))
    size = composer.size
    missing = [p for p in model.params if p != size and p not in fixed]
    if missing:
        raise InputError(f"the model keeps {', '.join(missing)} symbolic: give "
                         f"{'them values' if len(missing) > 1 else 'it a value'}",
                         hint=f"--param {missing[0]}=4, or {missing[0]} = 4 under [parameters] in the design")
    points = [{size: float(x), **fixed} for x in xs]
    pipe_warnings = composer.pipe_warnings(program, points)
    exact = Composer(composer.components, pipe="pointwise", size=size)(program) if pipe_warnings else None
    grid: dict[str, Any] = {size: np.asarray([float(x) for x in xs]), **fixed}
    count = len(points)

    def on_grid(m: Model) -> np.ndarray:
        return np.broadcast_to(np.asarray(m(**{p: grid[p] for p in m.params}), dtype=float), (count,))

    values = on_grid(model)
    bounds = model.interval(**{p: grid[p] for p in model.params})
    low = high = None
    if bounds is not None:
        # a time's interval is never below zero and holds the prediction
        low, high = time_bounds(values, np.broadcast_to(np.asarray(bounds[0], dtype=float), (count,)),
                                np.broadcast_to(np.asarray(bounds[1], dtype=float), (count,)))
    exact_values = None if exact is None else on_grid(exact)
    leaves = {name: composer.leaf(Component(name)) for name in program.components()}
    leaf_values = {name: on_grid(leaf) for name, leaf in leaves.items()}
    out = []
    for k, point in enumerate(points):
        path = bottleneck(program, composer, point)
        out.append(PointPrediction(
            point, float(values[k]), None if low is None else float(low[k]), None if high is None else float(high[k]),
            None if exact_values is None else float(exact_values[k]), tuple(str(t) for t, _ in path[1:]),
            tuple(ComponentValue(name, float(leaf_values[name][k]), leaf.unit, leaf.source or "expression")
                  for name, leaf in leaves.items())))
    parts = tuple(PartPrediction(name, leaf, composer.components[name], leaf.source, _fitted_medians(leaf))
                  for name, leaf in leaves.items())
    return Prediction(
        str(program), size, composer.pipe, model, operators, tuple(out), parts,
        term_times(program, composer, out[-1].point) if out else TermNode(str(program), str(program), None),
        order=_order(model, "x"), structure=_over_components(composer, program, over is not None),
        parameters=fixed, exact=exact, warnings=tuple(str(w) for w in pipe_warnings),
        shared_cores=None if over is None else SharedCores(over.workers, over.cores, str(over)),
        cores=over.cores if over is not None else oversubscription.machine_cores(),
        workers=oversubscription.workers(program),
        notes=tuple(notes), measured=None if measured is None else _measured(measured, model, fixed),
        title=title, design=design)
