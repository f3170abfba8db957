"""A prediction of a designed program: computed once, shown by every renderer.

:func:`predict` composes the program, accounts for more workers than cores, and evaluates at
every point the prediction (with its interval where a component carries one), the bottleneck
path and each component's time; :class:`Prediction` holds the result, and the console tables,
the JSON record (:meth:`Prediction.to_json`), the HTML report and the plot all read it, none
computes again. The JSON record says what was predicted, not how to simulate it: the composed
model as text, as an expression over the named components, and as a model record where every
part of it has one (a LogGP program's or a skeleton table's record rides along with the function
it defines), each component with its source, unit and record.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from perfcompose.compose.components import PREDICTION_FORMAT
from perfcompose.compose.explore import bottleneck
from perfcompose.compose.interval import _follow_choices, with_interval
from perfcompose.compose.operators import Composer
from perfcompose.compose.oversubscription import Oversubscription, accounted
from perfcompose.compose.terms import Component, Term
from perfcompose.ensemble import DEFAULT_LEVEL
from perfcompose.errors import InputError, ModelError, PerfcomposeError
from perfcompose.model import Model, symbol

__all__ = ["PREDICTION_FORMAT", "ComponentValue", "PointPrediction", "Prediction", "predict", "model_record"]


@dataclass(frozen=True)
class ComponentValue:
    """One component's time per data element at a point, in the prediction's unit."""

    name: str
    value: float
    unit: str
    source: str


@dataclass(frozen=True)
class PointPrediction:
    """The predicted time at one point, its interval where known, the pointwise max where the
    asymptotic rule dropped a stage, the bottleneck path and every component's time."""

    point: Mapping[str, float]
    value: float
    low: float | None = None
    high: float | None = None
    exact: float | None = None
    bottleneck: tuple[str, ...] = ()
    components: tuple[ComponentValue, ...] = ()


@dataclass(frozen=True)
class Prediction:
    """What ``predict`` found for a program over the points asked for."""

    program: Term
    composer: Composer
    #: the prediction: the operators' model with its interval, floored where workers share cores
    model: Model
    #: the operators' model alone
    operators: Model
    points: tuple[PointPrediction, ...]
    parameters: Mapping[str, float] = field(default_factory=dict)
    #: the pointwise max, where the asymptotic rule dropped a stage that is larger at a point
    exact: Model | None = None
    #: where the asymptotic rule dropped the larger stage (one text per pipe)
    warnings: tuple[str, ...] = ()
    oversubscription: Oversubscription | None = None
    title: str = ""
    design: Path | None = None
    level: float = DEFAULT_LEVEL

    @property
    def unit(self) -> str:
        return self.model.unit

    @property
    def components(self) -> tuple[str, ...]:
        """The components the program uses, in order of first use."""
        return self.program.components()

    def leaf(self, name: str) -> Model:
        """A component's model in the prediction's unit."""
        return self.composer.leaf(Component(name))

    def over_components(self) -> Model | None:
        """The composed model as an expression over the components' names (``Max(solve, halo,
        post + checksum)``): the structure of the prediction without the components' models."""
        return _over_components(self.composer, self.program, self.oversubscription is not None)

    def to_json(self) -> dict[str, Any]:
        """The prediction as a JSON-ready record (``format``: :data:`PREDICTION_FORMAT`)."""
        structure = self.over_components()
        over = self.oversubscription
        record: dict[str, Any] = {
            "format": PREDICTION_FORMAT,
            "title": self.title,
            "design": None if self.design is None else str(self.design),
            "program": str(self.program),
            "pipe": self.composer.pipe,
            "unit": self.unit,
            "parameters": dict(self.parameters),
            "level": self.level,
            "model": {"text": str(self.model), "operators": str(self.operators),
                      "over_components": None if structure is None else str(structure),
                      **model_record(self.model)},
            "workers": None if over is None else {"workers": over.workers, "cores": over.cores, "note": str(over)},
            "components": {},
            "points": [],
            "warnings": list(self.warnings),
        }
        for name in self.components:
            leaf, own = self.leaf(name), self.composer.components[name]
            record["components"][name] = {"source": leaf.source or "expression", "unit": leaf.unit,
                                          "own_unit": own.unit, "model": str(leaf), **model_record(leaf)}
        for p in self.points:
            record["points"].append({
                "point": dict(p.point), "value": _number(p.value),
                "interval": None if p.low is None or p.high is None else [_number(p.low), _number(p.high)],
                "pointwise_max": None if p.exact is None else _number(p.exact),
                "bottleneck": list(p.bottleneck),
                "components": {c.name: {"value": _number(c.value), "unit": c.unit, "source": c.source}
                               for c in p.components}})
        return record


def model_record(model: Model) -> dict[str, Any]:
    """``record``: the model's JSON record (:meth:`Model.to_json`; ``-c NAME=FILE`` reads it back,
    and it carries the record of every function known only numerically), or None where such a
    function has no record (a spline, a PAMELA sum without closed form); then ``functions``
    describes what can be: every numeric part by name with its source's record, or None."""
    try:
        return {"parameters": list(model.params), "record": model.to_json()}
    except ModelError:
        try:
            parts = model.numeric_parts()
        except ModelError:  # two functions of one name: the text alone says what the model is
            return {"parameters": list(model.params), "record": None, "functions": None}
        return {"parameters": list(model.params), "record": None,
                "functions": {name: None if rec is None else dict(rec()) for name, rec in parts.items()}}


def _number(value: float) -> float | None:
    """A value as JSON holds it: None for one that is not a finite number."""
    return float(value) if np.isfinite(value) else None


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
        model = symbolic(_follow_choices(term, kept))
        if accounted_for_cores:
            model, _ = accounted(symbolic, term, model)
    except (PerfcomposeError, KeyError):
        return None
    return model


def predict(program: Term, composer: Composer, xs: Sequence[float], parameters: Mapping[str, float] | None = None,
            *, title: str = "", design: Path | None = None) -> Prediction:
    """Predict ``program`` at every size in ``xs`` with the other parameters at ``parameters``.

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
        low = np.broadcast_to(np.asarray(bounds[0], dtype=float), (count,))
        high = np.broadcast_to(np.asarray(bounds[1], dtype=float), (count,))
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
    return Prediction(program, composer, model, operators, tuple(out), fixed, exact,
                      tuple(str(w) for w in pipe_warnings), over, title=title, design=design)
