"""Without repetitions the noise is estimated from the scatter of the points around the best
simple hypothesis, and the choice is made as with repetitions: noise no longer buys terms."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from perfcompose.data import Experiment, load
from perfcompose.fit import PMNFFitter, SelectionPolicy

TASKS = load(Path(__file__).resolve().parents[2] / "examples" / "tasks.txt")


@pytest.mark.parametrize("region, expected", [("nop", ()), ("inc", (((0, (1, 0)),),)),
                                               ("qsort", (((0, (1, 1)),),))])
def test_one_value_per_point_gets_the_class_the_repetitions_give(region, expected):
    series = TASKS.get(region=region)
    X = series.coordinates()
    single = PMNFFitter().fit_arrays(X, series.aggregated("median"), ["x"]).chosen.hypothesis
    repeated = PMNFFitter().fit_arrays(X, [p.values for p in series.points], ["x"]).chosen.hypothesis
    assert single == repeated == expected


def test_cross_validation_alone_lets_the_noise_of_single_values_buy_terms():
    series = TASKS.get(region="inc")   # linear, 2 % scatter
    fitter = PMNFFitter(policy=SelectionPolicy(scatter_noise=False))
    hypothesis = fitter.fit_arrays(series.coordinates(), series.aggregated("median"), ["x"]).chosen.hypothesis
    assert len(hypothesis) == 2


@pytest.mark.parametrize("law, text", [
    (lambda x: 3 + 2 * x + 0.5 * x ** 2 * math.log2(x), "3 + 2 * x^(1) + 0.5 * x^(2) * log2(x)^(1)"),
    (lambda x: x - 1.0, "-1 + 1 * x^(1)"),   # p - 1 messages: exact, its constant below zero
])
def test_exact_single_values_keep_the_exact_law(law, text):
    e = Experiment.single(["x"], [((x,), (law(x),)) for x in (1, 2, 4, 8, 16, 32, 64)])
    assert PMNFFitter().fit(e).model_.to_extrap(digits=4) == text


def test_two_parameters_without_repetitions_keep_the_law_under_noise():
    rng = np.random.default_rng(7)
    X = np.array([(p, n) for p in (4.0, 8.0, 16.0, 32.0, 64.0) for n in (10.0, 20.0, 40.0, 80.0, 160.0)])
    y = (5 + 0.01 * X[:, 0] * X[:, 1]) * (1 + 0.05 * rng.standard_normal(len(X)))
    chosen = PMNFFitter().fit_arrays(X, y, ["p", "n"]).chosen
    assert chosen.hypothesis == (((0, (1, 0)), (1, (1, 0))),)
