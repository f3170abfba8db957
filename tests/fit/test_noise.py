"""The noise of the repetitions, without their outliers: one run far from its point's others
measures a disturbance, not the scatter every hypothesis is judged against; and a point whose runs
scatter more than its series' others weighs less in the fit."""
from __future__ import annotations

import numpy as np
import pytest

from perfcompose.fit import PMNFFitter
from perfcompose.fit.noise import aggregated, point_weights, point_weights_of, relative_variances

X = 2.0 ** np.arange(10, 17)


def _with_outliers(rng: np.random.Generator) -> np.ndarray:
    """A linear law measured 4 times a size at 5 % noise, where a third of the sizes lost one run
    to other work (10 to 20 times its size's others)."""
    V = (3e-7 * X)[:, None] * (1 + 0.05 * rng.standard_normal((len(X), 4)))
    V[::3, 2] *= rng.uniform(10, 20, len(V[::3]))
    return V


def test_an_outlying_run_is_left_out_of_the_noise_but_not_of_the_mean():
    V = _with_outliers(np.random.default_rng(1))
    y, sigma = aggregated(V, "mean")
    assert np.allclose(y, V.mean(axis=1))
    clean = np.delete(V, 2, axis=1)
    assert sigma == pytest.approx(np.sqrt(np.mean(clean.var(axis=1, ddof=1) / clean.mean(axis=1) ** 2)
                                          * (np.pi / 2) / 4), rel=0.35)
    assert sigma < 0.1


def test_a_growing_law_with_outlying_runs_is_not_fitted_as_a_constant():
    result = PMNFFitter(aggregate="mean").fit_arrays(X, _with_outliers(np.random.default_rng(2)), ["n"])
    assert result.chosen.n_terms >= 1
    assert result.chosen.hypothesis[0][0][1][0] == pytest.approx(1.0, abs=0.35)


@pytest.mark.parametrize("reps", [4, 5, 10])
def test_gaussian_repetitions_keep_nearly_all_their_variance(reps):
    V = 1 + 0.1 * np.random.default_rng(reps).standard_normal((500, 8, reps))
    plain = V.var(axis=-1, ddof=1) / V.mean(axis=-1) ** 2
    assert np.mean(relative_variances(V)) / np.mean(plain) > 0.95


def test_ragged_repetitions_and_single_values():
    rows = [[1.0, 1.1, 0.9], [2.0], [4.0, 4.4, 3.6, 40.0]]
    y, sigma = aggregated(rows, "median")
    assert list(y) == [1.0, 2.0, 4.2]
    assert 0 < sigma < 0.1
    V = np.array([[1.0, 1.1, 0.9, np.nan], [2.0, np.nan, np.nan, np.nan], [4.0, 4.4, 3.6, 40.0]])
    rel = relative_variances(V)
    assert np.isnan(rel[1]) and rel[2] == pytest.approx(rel[0])


def test_points_whose_runs_scatter_alike_weigh_alike():
    """Bartlett's test at 1 %: of 200 series whose points all scatter by 1 %, few weigh unequally."""
    V = 1 + 0.01 * np.random.default_rng(3).standard_normal((200, 7, 5))
    h = point_weights(V)
    assert np.mean(np.any(h != 1.0, axis=1)) < 0.05


def test_a_point_with_an_outlying_run_weighs_less_and_one_of_few_runs_alike():
    V = (3e-7 * X)[:, None] * (1 + 0.02 * np.random.default_rng(4).standard_normal((len(X), 5)))
    V[1, 3] *= 8
    h = point_weights(V)
    assert h[1] < 0.2 and np.all((h[np.arange(len(X)) != 1] > 0.6) & (h[np.arange(len(X)) != 1] <= np.sqrt(2)))
    ragged = point_weights_of([[1.0, 1.01, 0.99, 1.0], [2.0, 2.02, 1.98], [3.0, 3.03, 2.97, 3.0],
                               [4.0, 4.04, 3.96, 4.0], [5.0, 5.0, 5.0, 9.0]])
    assert ragged[1] == 1.0 and ragged[4] < ragged[0]    # 3 runs tell no point's own scatter


def test_a_linear_law_with_outlying_runs_at_its_small_sizes_is_fitted_as_linear():
    """Runs at 2 % noise, where the smallest sizes lost a run to other work (its mean doubled):
    weighed alike, those means pull the exponent below 1 (x^(3/4) log2(x)^2 in every seed)."""
    x = 2.0 ** np.arange(4, 11)
    linear = 0
    for seed in range(10):
        V = (0.5 + 3 * x)[:, None] * (1 + 0.02 * np.random.default_rng(seed).standard_normal((7, 5)))
        V[0, 0] *= 6
        V[1, 2] *= 3
        chosen = PMNFFitter(aggregate="mean").fit_arrays(x, V, ["x"]).chosen
        linear += chosen.hypothesis == (((0, (1, 0)),),)
    assert linear >= 9
