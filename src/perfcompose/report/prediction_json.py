"""``predict --json``: what was predicted, as a JSON-ready record: the composed model (text,
expression over the components, record), each component, and per point the time, interval,
bottleneck and each component's time."""
from __future__ import annotations

from typing import Any

import numpy as np

from perfcompose.errors import ModelError
from perfcompose.model import Model
from perfcompose.prediction_result import PREDICTION_FORMAT, Prediction

__all__ = ["model_record", "prediction_record"]


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


def prediction_record(prediction: Prediction) -> dict[str, Any]:
    """The prediction as a JSON-ready record (``format``: :data:`PREDICTION_FORMAT`)."""
    p, structure = prediction, prediction.structure
    return {
        "format": PREDICTION_FORMAT,
        "title": p.title,
        "design": None if p.design is None else str(p.design),
        "program": p.program,
        "pipe": p.pipe,
        "unit": p.unit,
        "parameters": dict(p.parameters),
        "level": p.level,
        "model": {"text": str(p.model), "operators": str(p.operators),
                  "over_components": None if structure is None else str(structure),
                  **model_record(p.model)},
        "workers": None if p.shared_cores is None else {"workers": p.workers, "cores": p.cores,
                                                         "note": p.shared_cores},
        "cores": {"machine": p.cores, "workers": p.workers, "note": p.cores_text},
        "components": {part.name: {"source": part.source or "expression", "unit": part.model.unit,
                                   "own_unit": part.own.unit, "model": str(part.model), **model_record(part.model)}
                       for part in p.parts},
        "points": [{
            "point": dict(point.point), "value": _number(point.value),
            "interval": None if point.low is None or point.high is None else [_number(point.low),
                                                                              _number(point.high)],
            "pointwise_max": None if point.exact is None else _number(point.exact),
            "bottleneck": list(point.bottleneck),
            "components": {c.name: {"value": _number(c.value), "unit": c.unit, "source": c.source}
                           for c in point.components}} for point in p.points],
        "warnings": list(p.warnings),
    }
