"""Fit statistics and the warning on a low adjusted R² (documented threshold)."""
from __future__ import annotations

import numpy as np
import pytest

from perfcompose.fit import PMNFFitter
from perfcompose.fit.result import ADJ_R2_WARNING, FLAT_SMAPE, fit_statistics, low_fit_warnings

P = np.array([1000.0, 2000, 4000, 8000, 16000])


def test_statistics_of_an_exact_fit():
    y = np.array([1.0, 2, 4, 8, 16])
    stats = fit_statistics(y, y, 2)
    assert stats["rss"] == 0 and stats["smape"] == 0 and stats["adj_r2"] == 1 and stats["points"] == 5


def test_adjusted_r2_counts_the_coefficients():
    y = np.array([1.0, 2, 4, 8, 16])
    pred = y * np.array([1.02, 0.98, 1.01, 0.99, 1.0])
    assert fit_statistics(y, pred, 3)["adj_r2"] < fit_statistics(y, pred, 2)["adj_r2"] < 1


def test_a_constant_on_steeply_falling_data_is_flagged():
    y = 2.56e8 / P ** 2
    result = PMNFFitter(allow_negative_exponents=False).fit_arrays(P, y, ["p"])
    assert result.stats["adj_r2"] < ADJ_R2_WARNING
    assert len(result.warnings) == 1 and f"below {ADJ_R2_WARNING}" in result.warnings[0]


def test_a_constant_on_flat_noisy_data_is_not_flagged():
    values = np.array([[4.1, 3.9, 4.0, 4.0, 4.1], [4.1, 3.9, 4.0, 4.0, 4.1], [4.1, 3.9, 4.3, 4.0, 4.1],
                       [4.1, 3.9, 4.0, 4.0, 4.1], [4.1, 3.9, 4.9, 4.0, 4.1]])
    result = PMNFFitter().fit_arrays(P, values, ["p"])
    assert not result.model.terms()[1] and result.stats["adj_r2"] < ADJ_R2_WARNING
    assert result.stats["smape"] < FLAT_SMAPE and result.warnings == ()


@pytest.mark.parametrize("ar2,constant,smape,flagged", [(0.49, False, 1.0, True), (0.51, False, 50.0, False),
                                                         (-0.5, True, 4.0, False), (-0.5, True, 6.0, True),
                                                         (float("nan"), False, 1.0, False)])
def test_warning_threshold(ar2, constant, smape, flagged):
    assert bool(low_fit_warnings({"adj_r2": ar2, "smape": smape}, constant)) is flagged


def test_a_constant_whose_points_scatter_as_their_repetitions_do_is_not_flagged():
    # the nop timings of examples/tasks.txt: 15-35 % between repetitions, SMAPE 12 % around the constant
    from pathlib import Path

    from perfcompose.data import load

    nop = load(Path(__file__).resolve().parents[2] / "examples" / "tasks.txt").get(region="nop")
    result = PMNFFitter().fit_arrays(nop.coordinates(), [p.values for p in nop.points], ["x"])
    assert not result.model.terms()[1] and result.stats["smape"] > FLAT_SMAPE
    assert result.warnings == ()
    assert low_fit_warnings(result.stats, constant=True)   # without the repetitions' noise it would be


@pytest.mark.parametrize("smape, noise, flagged", [(12.0, 0.1, False), (40.0, 0.1, True), (12.0, 0.01, True)])
def test_noise_widths_excuse_a_constant(smape, noise, flagged):
    assert bool(low_fit_warnings({"adj_r2": -0.1, "smape": smape}, True, noise=noise)) is flagged
