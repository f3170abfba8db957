"""Points that rise with their parameter beyond chance are not a constant, however noisy their runs."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from perfcompose.data import load
from perfcompose.fit import PMNFFitter, SelectionPolicy
from perfcompose.fit.trend import inversions, monotone

# dense linear algebra timed on a busy machine (data/README.md)
DENSE = Path(__file__).resolve().parent / "data" / "dense_loaded.txt"


@pytest.mark.parametrize("n", [1, 2, 5, 8])
def test_the_orders_of_n_points_by_their_inversions_are_all_of_them(n):
    counts = inversions(n)
    assert sum(counts) == math.factorial(n) and len(counts) == n * (n - 1) // 2 + 1
    assert counts == counts[::-1]


def test_a_rise_with_one_point_out_of_order_is_a_trend_and_scatter_is_not():
    x = np.arange(1, 8)
    assert monotone(x, [1.0, 1.3, 1.2, 1.5, 2.0, 4.0, 8.0], 0.01)
    assert monotone(x[::-1], [1.0, 1.3, 1.2, 1.5, 2.0, 4.0, 8.0], 0.01)    # falling
    assert not monotone(x, [1.0, 1.1, 0.9, 1.05, 1.0, 0.95, 1.1], 0.01)
    assert not monotone(x[:4], [1.0, 2.0, 3.0, 4.0], 0.01)   # 4 points never reach 1 %
    assert not monotone(x, np.arange(7.0), 0.0)


def test_a_linear_solve_disturbed_at_its_first_sizes_is_not_fitted_as_a_constant():
    e = load(DENSE, "extrap-text")
    lu = e.get(region="solve")
    below = [p for p in lu.points if p.coordinate[0] < 768]
    x = np.array([p.coordinate[0] for p in below])
    means = [float(np.mean(p.values)) for p in below]
    # of the means alone, only the trend keeps the rise from being taken for scatter
    untrended = PMNFFitter(aggregate="mean", policy=SelectionPolicy(trend=0.0))
    assert untrended.fit_arrays(x, means, ["m"]).chosen.n_terms == 0
    for values in (means, [p.values for p in below]):   # with the runs, their scatter says which points to trust
        chosen = PMNFFitter(aggregate="mean").fit_arrays(x, values, ["m"]).chosen
        assert chosen.n_terms >= 1 and chosen.hypothesis[0][0][1][0] >= 2


def test_many_points_are_judged_by_the_normal_approximation_and_a_selection():
    rng = np.random.default_rng(5)
    x = np.arange(100.0)
    assert monotone(x, x + 30 * rng.standard_normal(100), 0.01)
    flat = [monotone(x, rng.standard_normal(100), 0.01) for _ in range(200)]
    assert sum(flat) <= 8        # about 1 % of flat series, never most
    assert monotone(np.arange(50_000.0), np.arange(50_000.0), 0.01)
