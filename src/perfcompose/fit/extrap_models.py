"""perfcompose's fitted models as an Extra-P model set, so that Extra-P's GUI shows them beside its own.

A model set is one entry of a saved experiment's ``modelers`` (see
:mod:`perfcompose.data.extrap_saved`): a name, the modeler's settings and, per call path and
metric, a hypothesis (Extra-P's function types, with the fit statistics Extra-P shows). A
two-piece model becomes Extra-P's segmented function.

>>> from perfcompose.data import Experiment
>>> from perfcompose.fit import PMNFFitter
>>> e = Experiment.single(["x"], [((x,), (3 + 2 * x,)) for x in (4, 8, 16, 32, 64)])
>>> s = model_set(e, PMNFFitter().fit(e).results_)
>>> s["models"]["main"]["time"]["hypothesis"]["function"]["compound_terms"][0]["simple_terms"]
[{'term_type': 'polynomial', 'exponent': '1'}]
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from perfcompose.choices import Aggregate
from perfcompose.data.experiment import Experiment, Series
from perfcompose.fit.hypotheses import Factor
from perfcompose.fit.pmnf import Candidate, FitResult, predict

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
    if not c.hypothesis:
        return {"constant_coefficient": c.constant, "$type": "ConstantFunction"}
    if n_params == 1:
        terms = [{"coefficient": coef, "simple_terms": _simple_terms(shape[0][1])}
                 for coef, shape in zip(c.coefficients, c.hypothesis)]
        return {"constant_coefficient": c.constant, "compound_terms": terms, "$type": "SingleParameterFunction"}
    terms = [{"coefficient": coef,
              "parameter_term_pairs": {str(k): {"coefficient": 1.0, "simple_terms": _simple_terms(f)}
                                       for k, f in shape}}
             for coef, shape in zip(c.coefficients, c.hypothesis)]
    return {"constant_coefficient": c.constant, "compound_terms": terms, "$type": "MultiParameterFunction"}


def _statistics(y: np.ndarray, pred: np.ndarray, coefficients: int) -> dict[str, float]:
    """The statistics Extra-P keeps with a hypothesis, as it defines them (RE and rRSS relative to
    the measured value, nRSS the root of the RSS over the mean value)."""
    rel = (pred - y) / np.where(y != 0, y, 1.0)
    rss = float(np.sum((y - pred) ** 2))
    tss = float(np.sum((y - y.mean()) ** 2))
    dof = len(y) - coefficients
    ar2 = 1.0 - (rss / dof) / (tss / (len(y) - 1)) if tss > 0 and dof > 0 else 1.0
    denom = np.abs(y) + np.abs(pred)
    smape = float(np.mean(np.where(denom > 0, 2 * np.abs(y - pred) / np.where(denom > 0, denom, 1), 0)) * 100)
    mean = float(np.mean(y))
    return {"RSS": rss, "rRSS": float(np.sum(rel ** 2)), "nRSS": float(np.sqrt(rss) / mean) if mean else 0.0,
            "SMAPE": smape, "AR2": float(ar2), "RE": float(np.mean(np.abs(rel)))}


def _hypothesis(function: dict[str, Any], stats: dict[str, float], measure: str) -> dict[str, Any]:
    kind = {"ConstantFunction": "ConstantHypothesis", "MultiParameterFunction": "MultiParameterHypothesis"}
    return {"function": function, **stats, "_use_median": measure == "MEDIAN", "_use_measure": measure,
            "_costs_are_calculated": True, "$type": kind.get(function["$type"], "SingleParameterHypothesis")}


def _entry(result: Any, series: Series, n_params: int, aggregate: Aggregate) -> dict[str, Any]:
    X, y = series.coordinates(), series.aggregated(aggregate)
    measure = _MEASURES[aggregate]
    if getattr(result, "segmented", False) and result.left is not None and result.right is not None:
        b, x = result.breakpoint, X[:, 0]
        pred = np.where(x <= b, predict(result.left.chosen, X), predict(result.right.chosen, X))
        function = {"segments": [_function(result.left.chosen, 1), _function(result.right.chosen, 1)],
                    "intervals": [["-inf", float(b)], [float(b), "inf"]], "$type": "SegmentedFunction"}
        coefficients = 3 + result.left.chosen.n_terms + result.right.chosen.n_terms
    else:
        chosen = (result.single if hasattr(result, "single") else result).chosen
        pred, function, coefficients = predict(chosen, X), _function(chosen, n_params), 1 + chosen.n_terms
    return {"hypothesis": _hypothesis(function, _statistics(y, pred, coefficients), measure), "annotations": []}


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
