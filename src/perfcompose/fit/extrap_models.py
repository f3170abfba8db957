"""Extra-P model sets (one entry of a saved experiment's ``modelers``, :mod:`perfcompose.data.extrap_saved`):
perfcompose's models written as one for Extra-P's GUI, and a saved experiment's read back as
Models; a two-piece model is Extra-P's segmented function, and back.

>>> from perfcompose.data import Experiment
>>> from perfcompose.fit import PMNFFitter
>>> e = Experiment.single(["x"], [((x,), (3 + 2 * x,)) for x in (4, 8, 16, 32, 64)])
>>> s = model_set(e, PMNFFitter().fit(e).results_)
>>> s["models"]["main"]["time"]["hypothesis"]["function"]["compound_terms"][0]["simple_terms"]
[{'term_type': 'polynomial', 'exponent': '1'}]
"""
from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from perfcompose.choices import Aggregate
from perfcompose.data.experiment import Experiment, Series
from perfcompose.data.extrap_saved import document, split_tags
from perfcompose.errors import DataFormatError
from perfcompose.finite import is_finite_number
from perfcompose.fit.hypotheses import Factor
from perfcompose.fit.result import Candidate, FitResult, fit_statistics, predict
from perfcompose.fit.segmented import piecewise_model
from perfcompose.model import Model

NAME = "perfcompose PMNF"
_MEASURES = {"median": "MEDIAN", "mean": "MEAN", "min": "MINIMUM", "max": "MAXIMUM"}


def _simple_terms(factor: Factor) -> list[dict[str, Any]]:
    i, j = factor
    terms: list[dict[str, Any]] = []
    if i:
        terms.append({"term_type": "polynomial", "exponent": str(i)})
    if j:
        terms.append({"term_type": "logarithm", "exponent": float(j)})
    return terms


def _function(c: Candidate, n_params: int) -> dict[str, Any]:
    """A fitted hypothesis as Extra-P's function: constant, single-parameter or multi-parameter."""
    if not c.terms:
        return {"constant_coefficient": c.constant, "$type": "ConstantFunction"}
    pairs = [{str(k): {"coefficient": 1.0, "simple_terms": _simple_terms(f)} for k, f in shape} for _, shape in c.terms]
    terms = [{"coefficient": coef, "simple_terms": _simple_terms(shape[0][1])} if n_params == 1 else
             {"coefficient": coef, "parameter_term_pairs": pair} for (coef, shape), pair in zip(c.terms, pairs)]
    kind = "SingleParameterFunction" if n_params == 1 else "MultiParameterFunction"
    return {"constant_coefficient": c.constant, "compound_terms": terms, "$type": kind}


def _statistics(y: np.ndarray, pred: np.ndarray, coefficients: int) -> dict[str, float]:
    """The statistics Extra-P keeps with a hypothesis, as it defines them (RE and rRSS relative to
    the measured value, nRSS the root of the RSS over the mean value); an adjusted R² that is
    undefined (flat data fitted inexactly) is left out, as Extra-P leaves it at its default."""
    base = fit_statistics(y, pred, coefficients)
    rel = (pred - y) / np.where(y != 0, y, 1.0)
    mean = float(np.mean(y))
    stats = {"RSS": base["rss"], "rRSS": float(np.sum(rel ** 2)),
             "nRSS": float(np.sqrt(base["rss"]) / mean) if mean else 0.0, "SMAPE": base["smape"],
             "AR2": base["adj_r2"], "RE": float(np.mean(np.abs(rel)))}
    return {k: v for k, v in stats.items() if np.isfinite(v)}


def _entry(result: Any, series: Series, n_params: int, aggregate: Aggregate) -> dict[str, Any]:
    X, y = series.coordinates(), series.aggregated(aggregate)
    measure = _MEASURES[aggregate]
    if getattr(result, "segmented", False) and result.left is not None and result.right is not None:
        b, x = result.breakpoint, X[:, 0]
        pred = np.where(x <= b, predict(result.left.chosen, X), predict(result.right.chosen, X))
        function: dict[str, Any] = {"segments": [_function(result.left.chosen, 1), _function(result.right.chosen, 1)],
                                    "intervals": [["-inf", float(b)], [float(b), "inf"]], "$type": "SegmentedFunction"}
        coefficients = 3 + result.left.chosen.n_terms + result.right.chosen.n_terms
    else:
        chosen = (result.single if hasattr(result, "single") else result).chosen
        pred, function, coefficients = predict(chosen, X), _function(chosen, n_params), 1 + chosen.n_terms
    kind = {"ConstantFunction": "ConstantHypothesis", "MultiParameterFunction": "MultiParameterHypothesis"}
    return {"hypothesis": {"function": function, **_statistics(y, pred, coefficients),
                           "_use_median": measure == "MEDIAN", "_use_measure": measure, "_costs_are_calculated": True,
                           "$type": kind.get(function["$type"], "SingleParameterHypothesis")}, "annotations": []}


def model_set(experiment: Experiment, results: Sequence[FitResult | Any], aggregate: Aggregate = "median",
              name: str = NAME) -> dict[str, Any]:
    """The fit ``results`` of ``experiment``'s series (``FitResult`` or two-piece ``SegmentedFit``,
    matched by region and metric) as one Extra-P model set named ``name``; ``aggregate`` is the
    combination of repetitions the models were fitted to."""
    n = len(experiment.parameters)
    series = {(s.region, s.metric): s for s in experiment.series}
    models: dict[str, dict[str, Any]] = {}
    for r in results:
        s = series[(r.region, r.metric)]
        models.setdefault(s.region or "main", {})[s.metric] = _entry(r, s, n, aggregate)
    modeler = {"use_median": aggregate == "median", "use_measure": _MEASURES[aggregate],
               "$type": "SingleParameterModeler" if n == 1 else "MultiParameterModeler"}
    return {"name": name, "modeler": modeler, "models": models}


def _factor_of(simple: Any, where: str, path: Path) -> tuple[Fraction, Fraction]:
    """(i, j) of one Extra-P compound term's simple terms."""
    i, j = Fraction(0), Fraction(0)
    for t in simple if isinstance(simple, list) else [None]:
        kind = t.get("term_type") if isinstance(t, dict) else None
        e = None
        if isinstance(t, dict) and kind in ("polynomial", "logarithm"):
            try:
                e = Fraction(str(t["exponent"]))
            except (ValueError, ZeroDivisionError, KeyError):
                e = None
            if e is not None and abs(e) > 10:
                raise DataFormatError(f"{where}: an exponent of {t['exponent']}; PMNF exponents lie within ±10",
                                      path=path)
        if e is None:
            raise DataFormatError(f"{where}: a simple term is not a polynomial or logarithm with an exponent",
                                  path=path)
        i, j = (i + e, j) if kind == "polynomial" else (i, j + e)
    return i, j


def _coefficient(value: Any, where: str, path: Path) -> float:
    if not is_finite_number(value):
        raise DataFormatError(f"{where}: a coefficient is not a finite number", path=path)
    return float(value)


def _saved_model(function: Any, params: tuple[str, ...], where: str, path: Path) -> Model:
    """One saved Extra-P function as a Model."""
    kind = function.get("$type") if isinstance(function, dict) else None
    if kind == "SegmentedFunction":
        segments, intervals = function.get("segments"), function.get("intervals")
        if not (isinstance(segments, list) and len(segments) == 2 and isinstance(intervals, list)
                and len(intervals) == 2 and isinstance(intervals[0], list) and len(intervals[0]) == 2):
            raise DataFormatError(f"{where}: a segmented function needs two segments and two intervals", path=path)
        left, right = (_saved_model({**f, "$type": "SingleParameterFunction"}, params, where, path)
                       if isinstance(f, dict) else _saved_model(f, params, where, path) for f in segments)
        return piecewise_model(params[0], _coefficient(intervals[0][1], where, path), left, right)
    if kind not in ("ConstantFunction", "SingleParameterFunction", "MultiParameterFunction"):
        raise DataFormatError(f"{where}: unknown function type {kind!r}", path=path)
    terms = []
    for term in function.get("compound_terms") or []:
        if not isinstance(term, dict):
            raise DataFormatError(f"{where}: a compound term is not an object", path=path)
        coef = _coefficient(term.get("coefficient"), where, path)
        pairs = term.get("parameter_term_pairs") if kind == "MultiParameterFunction" else {"0": term}
        if not isinstance(pairs, dict):
            raise DataFormatError(f"{where}: a term without parameter_term_pairs", path=path)
        exps = {}
        for k, pair in pairs.items():
            if not (str(k).isdigit() and int(k) < len(params) and isinstance(pair, dict)):
                raise DataFormatError(f"{where}: a term of parameter {k!r}, not one of {len(params)}", path=path)
            coef *= _coefficient(pair.get("coefficient", 1.0), where, path) if kind == "MultiParameterFunction" \
                else 1.0
            exps[params[int(k)]] = _factor_of(pair.get("simple_terms"), where, path)
        terms.append((coef, exps))
    return Model.from_terms(_coefficient(function.get("constant_coefficient", 0.0), where, path), terms,
                            params=params, unit="", source="Extra-P")


def saved_model_sets(path: Path) -> dict[str, dict[tuple[str, str], Model]]:
    """The model sets of an Extra-P saved experiment, by name: per (call path, metric), the model
    Extra-P (or perfcompose) saved, as a :class:`~perfcompose.model.Model`.

    >>> saved_model_sets(Path("run.extra-p"))["New model"][("solve", "time")](p=1024)  # doctest: +SKIP
    """
    doc = document(path)
    params = doc.get("parameters") if isinstance(doc, dict) else None
    if not isinstance(params, list) or not params or not all(isinstance(p, str) and p for p in params):
        raise DataFormatError("experiment.json: missing or invalid 'parameters' (a list of names)", path=path)
    params = tuple(params)
    sets: dict[str, dict[tuple[str, str], Model]] = {}
    for k, entry in enumerate(doc.get("modelers") or [] if isinstance(doc, dict) else []):
        name = str(entry.get("name", f"model set {k + 1}")) if isinstance(entry, dict) else ""
        models = entry.get("models") if isinstance(entry, dict) else None
        if not isinstance(models, dict):
            raise DataFormatError(f"experiment.json: modelers[{k}] has no models", path=path)
        found = sets.setdefault(name, {})
        for tagged, metrics in models.items():
            callpath = split_tags(str(tagged))[0]   # named as the measurements are read
            for metric, model in (metrics.items() if isinstance(metrics, dict) else []):
                where = f"experiment.json: model set {name!r}, {callpath}/{metric}"
                hypothesis = model.get("hypothesis") if isinstance(model, dict) else None
                function = hypothesis.get("function") if isinstance(hypothesis, dict) else None
                found[(callpath, str(metric))] = _saved_model(function, params, where, path)
    return sets
