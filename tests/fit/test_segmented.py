"""Two-piece PMNF models: a known breakpoint and both laws recovered; smooth data left whole."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from perfcompose.data import Experiment
from perfcompose.errors import FitError
from perfcompose.fit import PMNFFitter, SegmentedFitter
from perfcompose.model import Model

X = np.array([2.0, 4, 8, 16, 32, 64, 128, 256, 512, 1024])


def _law(x):
    """5 + 2x up to x = 100 (a cache holds the data), then 5 + 0.01 x^2 (it does not)."""
    return np.where(x <= 100, 5 + 2 * x, 5 + 0.01 * x ** 2)


def _lead(model):
    _, terms = model.terms()
    lead = max(terms, key=lambda t: t.exponent("x"))
    return lead.exponent("x"), lead.coefficient


def test_known_breakpoint_and_both_pieces_recovered_from_exact_data():
    fit = SegmentedFitter().fit_arrays(X, _law(X), ["x"])
    assert fit.segmented
    assert 64 < fit.breakpoint < 128
    (order_left, coef_left), (order_right, coef_right) = _lead(fit.left.model), _lead(fit.right.model)
    assert order_left == (Fraction(1), Fraction(0)) and coef_left == pytest.approx(2.0, rel=1e-6)
    assert order_right == (Fraction(2), Fraction(0)) and coef_right == pytest.approx(0.01, rel=1e-6)
    assert fit.model(x=[50.0, 400.0]) == pytest.approx(_law(np.array([50.0, 400.0])))


@pytest.mark.parametrize("seed", range(5))
def test_known_breakpoint_recovered_under_noise(seed):
    rng = np.random.default_rng(seed)
    values = _law(X)[:, None] * (1 + 0.02 * rng.standard_normal((len(X), 5)))
    fit = SegmentedFitter(PMNFFitter(aggregate="mean")).fit_arrays(X, values, ["x"])
    assert fit.segmented
    assert 64 < fit.breakpoint < 128
    assert _lead(fit.right.model)[0] == (Fraction(2), Fraction(0))
    assert fit.model(x=4096.0) == pytest.approx(5 + 0.01 * 4096 ** 2, rel=0.15)


def test_continuous_pieces_meet_where_they_cross():
    y = np.where(X <= 64, 5 + 2 * X, 5 + 0.25 * X ** 1.5)   # both give 133 at x = 64
    fit = SegmentedFitter().fit_arrays(X, y, ["x"])
    assert fit.segmented and fit.breakpoint == pytest.approx(64.0, rel=1e-6)


@pytest.mark.parametrize("seed", range(8))
def test_smooth_noisy_data_is_not_segmented(seed):
    rng = np.random.default_rng(100 + seed)
    law = 3 + 0.5 * X * np.log2(X) + 0.01 * X ** 1.5
    values = law[:, None] * (1 + 0.05 * rng.standard_normal((len(X), 5)))
    fit = SegmentedFitter(PMNFFitter(aggregate="mean")).fit_arrays(X, values, ["x"])
    assert not fit.segmented
    assert fit.model == fit.single.model


def test_smooth_exact_data_is_not_segmented():
    fit = SegmentedFitter().fit_arrays(X, 7 + 3 * X ** 2, ["x"])
    assert not fit.segmented and str(fit.model) == str(fit.single.model)


def test_too_few_points_for_two_pieces_keep_the_single_model():
    x = X[:7]
    fit = SegmentedFitter().fit_arrays(x, _law(x), ["x"])
    assert not fit.segmented and fit.criterion == np.inf


def test_segmented_model_evaluates_composes_and_round_trips():
    model = SegmentedFitter().fit_arrays(X, _law(X), ["x"]).model
    assert model.order("x") == (2, 0)
    total = model + Model.parse("3 * x")
    assert total(x=200.0) == pytest.approx(5 + 0.01 * 200 ** 2 + 600)
    again = Model.from_json(model.to_json())
    assert again(x=[10.0, 1000.0]) == pytest.approx(model(x=[10.0, 1000.0]))


def test_experiment_interface_keeps_units_and_labels():
    points = [((x,), (float(v), float(v) * 1.001)) for x, v in zip(X, _law(X))]
    fitter = SegmentedFitter().fit(Experiment.single(["x"], points, unit="us"))
    result = fitter.results_[0]
    assert result.segmented and fitter.model_.unit == "us"
    assert "if x <=" in result.describe()


def test_several_parameters_are_a_clear_error():
    Xg = np.array([(p, n) for p in (2.0, 4, 8, 16) for n in (2.0, 4, 8, 16)])
    with pytest.raises(FitError, match="one parameter"):
        SegmentedFitter().fit_arrays(Xg, Xg[:, 0] * Xg[:, 1], ["p", "n"])


def test_pieces_need_three_points():
    with pytest.raises(FitError, match="at least 3"):
        SegmentedFitter(min_points=2)


def test_statistics_are_those_of_the_two_piece_model_as_fitted():
    x = np.array([2.0, 4, 8, 16, 32, 64, 128, 256, 512, 1024])
    y = np.where(x <= 64, 5 + 2 * x, 5 + 0.25 * x ** 1.5)
    fit = SegmentedFitter().fit_arrays(x, y, ["x"])
    assert fit.segmented
    assert fit.stats["smape"] < 1e-6 and fit.stats["adj_r2"] == pytest.approx(1.0)
    assert fit.stats["cv_error"] < 1e-6 and fit.warnings == ()
    assert fit.single.stats["smape"] > 1   # the single model does not reproduce the data


def test_single_model_keeps_its_own_statistics():
    x = np.array([2.0, 4, 8, 16, 32, 64, 128, 256])
    fit = SegmentedFitter().fit_arrays(x, 3 + x, ["x"])
    assert not fit.segmented and fit.stats == fit.single.stats
