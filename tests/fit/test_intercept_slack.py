"""The constant of an approximation is judged by its own standard error where the points scatter
beyond the noise of their repetitions, and by the noise of the smallest value where they do not."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from perfcompose.fit import PMNFFitter
from perfcompose.fit.noise import aggregated, constant_slack, intercept_slack

P = np.array([32.0, 45, 64, 90, 128, 181, 256])
LOG_SQUARED = (((0, (Fraction(0), Fraction(2))),),)


def _direct(F: np.ndarray, y: np.ndarray, sigma: float, cols: list[int]) -> float:
    """Two standard errors of the constant from the covariance of the relative least-squares fit."""
    A = np.column_stack([np.ones(len(y)), *(F[c] for c in cols)]) / y[:, None]
    return 2.0 * sigma * float(np.sqrt(np.linalg.inv(A.T @ A)[0, 0]))


@pytest.mark.parametrize("index", [[[0], [1], [2]], [[1, 0], [2, 0], [2, 1]]])
def test_intercept_slack_is_two_standard_errors_of_the_constant(index):
    rng = np.random.default_rng(3)
    x = np.array([2.0, 4, 8, 16, 32, 64])
    F = np.vstack([np.log2(x), x ** 0.5, x * np.log2(x)])
    y = 5.0 + 3.0 * x * rng.lognormal(0.0, 0.1, len(x))
    got = intercept_slack(F, y, 0.07, np.array(index))
    expected = [_direct(F, y, 0.07, cols) for cols in index]
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_a_constant_read_off_far_from_the_points_has_the_wider_slack():
    """log2(p) on 32 ... 256 meets its constant at p = 1; a power term's constant near p = 0
    with points from p = 1 on is pinned by the smallest values."""
    y = np.linspace(100.0, 400.0, len(P))
    far = intercept_slack(np.log2(P)[None, :], y, 0.05, np.array([[0]]))[0]
    near = intercept_slack((P / 32.0)[None, :], y, 0.05, np.array([[0]]))[0]
    assert far > 3 * near
    assert far > constant_slack(y, 0.05)


def _scored_constants(law: np.ndarray, between: float, within: float, seed: int) -> tuple[list, np.ndarray, float]:
    """3 repetitions per point of ``law``: an offset per point of ``between`` and the
    repetitions' own noise ``within``; every hypothesis scored, the aggregates and their noise."""
    rng = np.random.default_rng(seed)
    values = law[:, None] * rng.lognormal(0.0, between, (len(P), 1)) * rng.lognormal(0.0, within, (len(P), 3))
    fitter = PMNFFitter(aggregate="mean")
    result = fitter.fit_arrays(P, values, ["p"])
    y, sigma = aggregated(values, fitter.aggregate)
    return [result.chosen, *result.alternatives], y, sigma


def test_scattered_points_admit_a_negative_constant_within_its_standard_error():
    """Points scatter by 5 % around a concave law while their repetitions agree within 0.2 %:
    the slower-growing log2(p)^2 form, whose constant is negative but within two of its standard
    errors, is among the scored hypotheses on every seed."""
    found = []
    for seed in range(8):
        scored, _, _ = _scored_constants(300.0 * np.log2(P) - 1000.0, 0.05, 0.002, seed)
        found.append([c.constant for c in scored if c.hypothesis == LOG_SQUARED])
    assert all(found)
    assert sum(c[0] < 0 for c in found) >= 4


def test_without_lack_of_fit_a_constant_keeps_within_the_noise_of_the_smallest_value():
    """The law is a hypothesis (100 + 80 * p^(1/2)) and the repetitions measure all the noise:
    slower-growing forms that would need a negative constant stay out."""
    for seed in range(8):
        scored, y, sigma = _scored_constants(100.0 + 80.0 * np.sqrt(P), 0.0, 0.05, seed)
        assert all(c.constant >= -constant_slack(y, sigma) for c in scored if c.n_terms)
