"""A prediction of a designed program: computed once, shown by every renderer.

:func:`predict_design` reads a design file and predicts it; :func:`predict` composes a program
once (:meth:`~perfcompose.compose.operators.Composer.evaluate`: its model, its interval's members,
the pointwise max and the model over the components' names in one pass, read from the evaluated
tree), accounts for more workers than cores, and evaluates at every point the prediction (with its
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
from perfcompose.compose.interval import interval_of, members_lane
from perfcompose.compose.operators import Composer, Evaluated, Lane
from perfcompose.compose.oversubscription import shared
from perfcompose.compose.terms import Component, MapReduce, Term
from perfcompose.data import Experiment, Series, load
from perfcompose.ensemble import time_bounds
from perfcompose.errors import InputError, PerfcomposeError
from perfcompose.finite import is_time
from perfcompose.model import Model, symbol
from perfcompose.prediction_result import (
    ComponentValue,
    MeasuredSeries,
    PartPrediction,
    PointPrediction,
    Prediction,
    TermNode,
)
from perfcompose.units import conversion

__all__ = ["ComponentValue", "PointPrediction", "Prediction", "predict", "predict_design", "term_times"]


#: the lanes of the prediction's composition pass beside its members
EXACT, STRUCTURE = "exact", "structure"


def _lanes(composer: Composer, program: Term) -> tuple[Lane, ...]:
    """What predict folds beside the operators' model: the members of the interval; the pointwise
    max where the rule is asymptotic; the program over one symbol per component (named as the
    component), following the choices the asymptotic rule made on the real models."""
    members = members_lane(composer, program)
    exact = Composer(composer.components, pipe="pointwise", size=composer.size)
    symbolic = Composer({n: Model(symbol(n), unit=composer.unit) for n in program.components()}, pipe="pointwise",
                        size=composer.size)
    return (*(() if members is None else (members,)),
            *((Lane(EXACT, exact),) if composer.pipe == "asymptotic" else ()),
            Lane(STRUCTURE, symbolic, follow=True, tolerant=True))


def _over_components(tree: Evaluated, accounted_for_cores: bool) -> Model | None:
    """The program over one symbol per component, with the floor of the cores where the
    prediction has one; None where the names cannot stand for the components (a component named
    like a parameter) or the program cannot be composed so (a MapReduce whose shuffle is a model)."""
    model = tree.lanes[STRUCTURE]
    if model is None or set(tree.model.params) & set(tree.term.components()):
        return None
    model = model.with_meta(name=str(tree.term), source="composed")
    try:
        return shared(tree, model, lane=STRUCTURE)[0] if accounted_for_cores else model
    except PerfcomposeError:
        return None


def term_times(node: Evaluated, at: Mapping[str, float]) -> TermNode:
    """The evaluated term as a tree, every node with its time per element at ``at``."""
    try:
        time: float | None = node.at(at)
    except Exception:  # a node that cannot be evaluated alone is drawn without its time
        time = None
    if not node.children:
        return TermNode(node.label, str(node.term), time, node.model.source or "expression")
    children = tuple(term_times(c, at) for c in node.parts())
    if isinstance(node.term, MapReduce):  # its shuffle is drawn, without a model of its own
        children = (children[0], TermNode("shuffle", str(node.term.shuffle), None), children[1])
    return TermNode(node.label, str(node.term), time, None, children)


def _series(spec: str) -> tuple[Experiment, tuple[Series, ...], str, str]:
    """``FILE[:REGION]`` read: the experiment, its series (of the region, if named), the file and the region."""
    path, _, region = spec.partition(":")
    if not Path(path).is_file() and ":" in spec:
        path, region = spec, ""
    exp = load(Path(path))
    return exp, exp.select(region=region).series if region else exp.series, path, region


def _medians(s: Series, k: int, unit: str) -> list[tuple[float, float]]:
    """The median of each point of ``s`` in ``unit`` (where both have one), beside its ``k``-th coordinate."""
    factor = conversion(s.unit, unit) if s.unit and unit else 1.0
    return [(float(x), float(y)) for x, y in zip(s.coordinates()[:, k], s.aggregated("median") * factor)]


def _fitted_medians(leaf: Model) -> tuple[tuple[float, float], ...]:
    """The medians a component was fitted to (its source says 'fit of FILE[:REGION]'), in the
    component's unit, where the file has one series of one parameter; none for other sources."""
    src = leaf.source or ""
    if not src.startswith("fit of "):
        return ()
    try:
        exp, series, _, _ = _series(src[len("fit of "):])
        return tuple(_medians(series[0], 0, leaf.unit)) if len(series) == 1 and len(exp.parameters) == 1 else ()
    except Exception:  # measurements are shown where they can be read back, the prediction stands without
        return ()


def _measured(spec: str, model: Model, fixed: Mapping[str, float]) -> MeasuredSeries:
    """The measurements ``spec`` (``FILE[:REGION]``) names: the medians per x of one series, in the
    model's unit, each beside the prediction at its x."""
    exp, chosen, path, region = _series(spec)
    if len(chosen) != 1:
        raise InputError(f"{len(chosen)} series in {path}" + (f" for region '{region}'" if region else ""),
                         path=Path(path), hint="name one region: --measured FILE:REGION (regions: "
                         + ", ".join(exp.regions) + ")")
    if "x" not in exp.parameters:
        raise InputError(f"the measurements in {path} have no parameter x (parameters: "
                         f"{', '.join(exp.parameters)})", path=Path(path), hint="measure the program over x")
    seen = sorted(_medians(chosen[0], exp.parameters.index("x"), model.unit))
    predicted = tuple(float(np.asarray(model(**{p: ({**fixed, "x": xv})[p] for p in model.params})))
                      for xv, _ in seen)
    return MeasuredSeries(path + (f":{region}" if region else ""), tuple(x for x, _ in seen),
                          tuple(m for _, m in seen), predicted)


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
    tree = composer.evaluate(program, _lanes(composer, program))
    operators = tree.model.with_meta(name=str(program), source="composed")
    model, over = shared(tree, interval_of(tree, operators))
    size = composer.size
    unknown = [p for p in fixed if p not in model.params and p != size]
    if unknown:
        raise InputError(f"the program has no parameter {', '.join(map(repr, unknown))} (its parameters: "
                         f"{', '.join(sorted({*model.params, size}))})",
                         hint="remove it from --param or the design's [parameters]")
    missing = [p for p in model.params if p != size and p not in fixed]
    if missing:
        raise InputError(f"the model keeps {', '.join(missing)} symbolic: give "
                         f"{'them values' if len(missing) > 1 else 'it a value'}",
                         hint=f"--param {missing[0]}=4, or {missing[0]} = 4 under [parameters] in the design")
    points = [{size: float(x), **fixed} for x in xs]
    pipe_warnings = tree.pipe_warnings(points, composer.unit)
    exact_model = tree.lanes.get(EXACT)
    exact = exact_model.with_meta(name=str(program), source="composed") if pipe_warnings and exact_model else None
    grid: dict[str, Any] = {size: np.asarray([float(x) for x in xs]), **fixed}
    count = len(points)

    def on_grid(m: Model) -> np.ndarray:
        return np.broadcast_to(np.asarray(m(**{p: grid[p] for p in m.params}), dtype=float), (count,))

    values = on_grid(model)
    bounds = model.interval(**{p: grid[p] for p in model.params})
    low = high = None
    if bounds is not None:  # a time's interval is never below zero and holds the prediction
        low, high = time_bounds(values, *(np.broadcast_to(np.asarray(b, dtype=float), (count,)) for b in bounds))
    exact_values = None if exact is None else on_grid(exact)
    leaves = {n.label: n.model for n in tree.walk() if isinstance(n.term, Component)}
    leaf_values = {name: on_grid(leaf) for name, leaf in leaves.items()}
    for name, v in [(str(program), values), *leaf_values.items()]:
        if bad := [k for k, t in enumerate(v) if not is_time(t)]:
            k = bad[0]
            raise InputError(f"{name} is {v[k]:g} {composer.unit} at {size}={float(xs[k]):g}, not a finite time "
                             "at or above zero", hint="the model overflows a double there or leaves its domain; "
                                                      "give smaller sizes (--x)")
    out = []
    for k, point in enumerate(points):
        path = tree.bottleneck(point)
        out.append(PointPrediction(
            point, float(values[k]), None if low is None else float(low[k]), None if high is None else float(high[k]),
            None if exact_values is None else float(exact_values[k]), tuple(str(t) for t, _ in path[1:]),
            tuple(ComponentValue(name, float(leaf_values[name][k]), leaf.unit, leaf.source or "expression")
                  for name, leaf in leaves.items())))
    parts = tuple(PartPrediction(name, leaf, composer.components[name], leaf.source, _fitted_medians(leaf))
                  for name, leaf in leaves.items())
    return Prediction(
        str(program), size, composer.pipe, model, operators, tuple(out), parts,
        term_times(tree, out[-1].point) if out else TermNode(str(program), str(program), None),
        order=model.order_text(), structure=_over_components(tree, over is not None),
        parameters=fixed, exact=exact, warnings=tuple(str(w) for w in pipe_warnings),
        shared_cores=None if over is None else str(over),
        cores=over.cores if over is not None else oversubscription.machine_cores(),
        workers=tree.workers,
        notes=tuple(notes), measured=None if measured is None else _measured(measured, model, fixed),
        title=title, design=design)
