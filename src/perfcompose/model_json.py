"""A model's JSON record (``perfcompose-model/1``): written with SymPy's exact ``srepr``, read as data."""
from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy as sp

from perfcompose.ensemble import LinearEnsemble
from perfcompose.errors import ModelError, ModelSyntaxError
from perfcompose.expression_reader import ExpressionRefused, nowhere_finite, read_srepr
from perfcompose.model_parsing import parse_expression
from perfcompose.units import ROLES

if TYPE_CHECKING:
    from perfcompose.model import Model

__all__ = ["MODEL_FORMAT", "FIT_FORMAT", "model_record", "model_from_record"]

MODEL_FORMAT = "perfcompose-model/1"
#: the records of ``perfcompose fit --json``: one fitted model of a region and metric each
FIT_FORMAT = "perfcompose-fit/1"


def _json_number(v: Any) -> Any:
    if isinstance(v, (float, np.floating)):
        return float(v) if math.isfinite(v) else None
    return int(v) if isinstance(v, (int, np.integer)) else v


def model_record(model: Model) -> dict[str, Any]:
    """The JSON-ready record of ``model`` (see :meth:`perfcompose.model.Model.to_json`)."""
    parts = model.numeric_parts()
    unwritable = [name for name, rec in parts.items() if rec is None]
    if unwritable:
        raise ModelError(f"model {model} contains {', '.join(unwritable)}, known only by numbers that no record "
                         "describes, and cannot be written to JSON; write the records of its parts instead "
                         "(fit --json, pamela compile --json, loggp simulate --model-json, skeleton forecast "
                         "--json) and compose them where they are read")
    record: dict[str, Any] = {"format": MODEL_FORMAT, "text": str(model), "expr": sp.srepr(model.expr),
                              "parameters": list(model.params), "unit": model.unit}
    if parts:
        record["functions"] = {name: dict(rec()) for name, rec in parts.items() if rec is not None}
    for key in ("source", "name"):
        if getattr(model, key):
            record[key] = getattr(model, key)
    if model.stats:
        record["stats"] = {k: _json_number(v) for k, v in model.stats.items()}
    if model.roles:
        record["roles"] = dict(model.roles)
    if model.ensemble is not None and (ensemble := model.ensemble.to_json()) is not None:
        record["ensemble"] = ensemble
    return record


def _from_srepr(text: str, functions: Mapping[str, Any] | None = None) -> sp.Expr:
    """The expression of a model file's ``expr`` field, read as data (never evaluated as code);
    ``functions`` are the numerically known functions it may apply, by name."""
    try:
        expr = read_srepr(text, functions)
    except ExpressionRefused as exc:
        raise ModelSyntaxError(f"invalid model expression in JSON: {exc.message}",
                               hint="the 'expr' field must be SymPy srepr as written by perfcompose") from None
    if nowhere_finite(expr):
        raise ModelSyntaxError("invalid model expression in JSON: not a finite real expression",
                               hint="a model's value must be a finite real number for positive parameters")
    return expr


def model_from_record(cls: type[Model], record: Mapping[str, Any] | str,
                      functions: Mapping[str, Any] | None = None) -> Model:
    """The model of a record (see :meth:`perfcompose.model.Model.from_json`)."""
    if isinstance(record, str):
        try:
            record = json.loads(record)
        except json.JSONDecodeError as exc:
            raise ModelSyntaxError(f"not JSON: {exc.msg}", line=exc.lineno, column=exc.colno) from None
    if not isinstance(record, Mapping):
        raise ModelSyntaxError("a model record must be a JSON object")
    wanted = record.get("functions") or {}
    if not isinstance(wanted, Mapping):
        raise ModelSyntaxError("'functions' must map function names to their records")
    missing = [name for name in wanted if name not in (functions or {})]
    if missing:
        raise ModelSyntaxError(f"the model holds {', '.join(missing)}, known only numerically; read it as a "
                               "component (-c NAME=FILE or a design's file = ...), which rebuilds "
                               f"{'them' if len(missing) > 1 else 'it'} from the records in the file")
    if "expr" in record:
        expr = _from_srepr(str(record["expr"]), {k: v for k, v in (functions or {}).items() if k in wanted})
    elif "text" in record:
        expr = parse_expression(str(record["text"]))
    else:
        raise ModelSyntaxError("a model record needs 'expr' or 'text'")
    raw_stats = record.get("stats", {})
    if not isinstance(raw_stats, Mapping) or not all(
            v is None or isinstance(v, (int, float)) and not isinstance(v, bool) for v in raw_stats.values()):
        raise ModelSyntaxError("'stats' must map names to numbers (or null)", hint="e.g. \"stats\": {\"rss\": 0.5}")
    stats = {str(k): float(v) if v is not None else math.nan for k, v in raw_stats.items()}
    roles = record.get("roles", {})
    if not isinstance(roles, Mapping) or not all(isinstance(v, str) for v in roles.values()):
        raise ModelSyntaxError("'roles' must map parameter names to roles", hint="roles: " + ", ".join(ROLES))
    ensemble = (LinearEnsemble.from_json(record["ensemble"], lambda text, names: cls.parse(text, params=names))
                if "ensemble" in record else None)
    params = record.get("parameters", ())
    if not isinstance(params, (list, tuple)) or not all(isinstance(p, str) for p in params):
        raise ModelSyntaxError("'parameters' must be a list of parameter names")
    return cls(expr, params=tuple(params), unit=str(record.get("unit", "s")),
               source=str(record.get("source", "")), name=str(record.get("name", "")), stats=stats,
               roles=dict(roles), ensemble=ensemble)
