"""Parsimonious selection on timing-like data: a term must be earned against the scatter of the
points, not only against the spread of one point's repetitions.

Timings scatter from size to size (cache, alignment, a busy minute) by more than each size's
repetitions vary; the grid is the validation study's (33 sizes, 2^10 ... 2^18, a quarter power
of two apart), each size repeated 11 times with lognormal noise of the stated coefficient of
variation and an offset per size of half that.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from perfcompose.fit import PMNFFitter, SelectionPolicy

X = np.array(sorted({float(round(2 ** (k / 4))) for k in range(40, 73)}))


def timings(law, cv: float, seed: int, between: float | None = None) -> np.ndarray:
    """11 repetitions per size of coefficient of variation ``cv``, and an offset per size of
    ``between`` (default cv / 2)."""
    rng = np.random.default_rng(seed)
    per_size = rng.lognormal(0.0, cv / 2 if between is None else between, size=(len(X), 1))
    return law(X)[:, None] * per_size * rng.lognormal(0.0, cv, size=(len(X), 11))


def factors_chosen(values: np.ndarray, **options) -> tuple:
    result = PMNFFitter(**options).fit_arrays(X, values, ["x"])
    return tuple(f for shape in result.chosen.hypothesis for _, f in shape)


OPTIONS = [{"max_terms": 1}, {"max_terms": 2}, {"aggregate": "mean"}]


@pytest.mark.parametrize("cv", [0.05, 0.1, 0.2])
@pytest.mark.parametrize("options", OPTIONS)
def test_noisy_constant_timings_get_a_constant(cv, options):
    chosen = [factors_chosen(timings(lambda x: 80.0 + 0 * x, cv, seed), **options) for seed in range(8)]
    assert chosen == [()] * 8


@pytest.mark.parametrize("cv", [0.05, 0.1])
@pytest.mark.parametrize("options", OPTIONS)
def test_noisy_linear_timings_get_linear(cv, options):
    chosen = [factors_chosen(timings(lambda x: 300.0 + 6 * x, cv, seed), **options) for seed in range(8)]
    assert chosen == [((Fraction(1), Fraction(0)),)] * 8


@pytest.mark.parametrize("cv", [0.05, 0.1, 0.2])
@pytest.mark.parametrize("options", OPTIONS)
def test_noisy_x_log_x_timings_get_x_log_x(cv, options):
    chosen = [factors_chosen(timings(lambda x: 3000.0 + 3.7 * x * np.log2(x), cv, seed), **options)
              for seed in range(8)]
    assert chosen == [((Fraction(1), Fraction(1)),)] * 8


def test_scatter_between_sizes_would_buy_a_term_without_the_lack_of_fit_rule():
    """The rule is what keeps the constant: scored against the repetitions alone (2 %), the
    scatter between sizes (10 %) buys a growing term."""
    values = [timings(lambda x: 80.0 + 0 * x, 0.02, seed, between=0.1) for seed in range(8)]
    assert any(factors_chosen(v, policy=SelectionPolicy(lack_of_fit=0.0)) for v in values)
    assert not any(factors_chosen(v) for v in values)


@pytest.mark.parametrize("noise", [0.0, 0.001])
def test_clean_one_parameter_1_like_data_gets_x_squared_under_median_and_mean(noise):
    """Like Extra-P's one_parameter_1 (0.213 + 0.2012*x^2 on x = 20 ... 60, 6 repetitions)."""
    x = np.array([20.0, 30, 40, 50, 60])
    for seed in range(10):
        rng = np.random.default_rng(seed)
        values = (0.213 + 0.2012 * x ** 2)[:, None] * (1 + noise * rng.standard_normal((5, 6)))
        for aggregate in ("median", "mean"):
            result = PMNFFitter(aggregate=aggregate).fit_arrays(x, values, ["x"])
            assert result.chosen.hypothesis == (((0, (Fraction(2), Fraction(0))),),), (seed, aggregate)
