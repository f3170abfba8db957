"""Choosing by extrapolation: a hypothesis fitted without a parameter's largest points must
predict them, or a supported one that does takes its place; series measured once per point are
where they are few, fitted by least squares of the values themselves.

The call paths are shaped like those of Extra-P's LULESH profile: one value per size, sizes
8x apart (64 ... 32,768 elements), almost constant paths of some 65 ns that scatter by a few
per cent, and kernels that grow like s^(4/3).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from perfcompose.data.experiment import Experiment, Point, Series
from perfcompose.fit import PMNFFitter, SelectionPolicy
from perfcompose.fit.holdout import extrapolation_errors, forecast_shift, rechoose
from perfcompose.fit.pmnf import Candidate, predict
from perfcompose.fit.profile import fit_profile

S = np.array([64.0, 512.0, 4096.0, 32768.0])
NEXT = np.array([[262144.0]])


def steep(c: float, coef: float) -> Candidate:
    return Candidate(c, ((coef, ((0, (Fraction(7, 4), Fraction(2))),)),), 0.0)


def test_a_tiny_steep_term_on_an_almost_constant_path_gives_way_to_the_constant():
    y = np.array([6.51e-8, 6.62e-8, 6.43e-8, 6.55e-8])
    chosen = rechoose(steep(6.4e-8, 5e-19), [], S[:, None], y)
    assert chosen.n_terms == 0
    assert abs(predict(chosen, NEXT)[0] / 6.5e-8 - 1) < 0.05


def test_a_constant_chosen_for_growing_values_gives_way_to_a_supported_growing_form():
    y = 1e-9 * S ** 1.5
    grows = Candidate(0.0, ((1e-9, ((0, (Fraction(3, 2), Fraction(0))),)),), 0.0)
    chosen = rechoose(Candidate(float(y.mean()), (), 0.0), [grows], S[:, None], y)
    assert chosen.hypothesis == grows.hypothesis


def test_a_form_that_extrapolates_its_own_points_within_the_tolerance_is_kept():
    y = 2e-9 * S ** 1.5 * (1 + 0.02 * np.array([1, -1, 1, -1]))
    kept = Candidate(0.0, ((2e-9, ((0, (Fraction(3, 2), Fraction(0))),)),), 0.0)
    other = Candidate(0.0, ((4e-10, ((0, (Fraction(3, 2), Fraction(1, 1))),)),), 0.0)
    assert extrapolation_errors([kept], S[:, None], y)[0] < 0.1
    assert rechoose(kept, [other], S[:, None], y) is kept


def test_the_fitter_predicts_an_almost_constant_path_as_constant():
    rng = np.random.default_rng(3)
    for _ in range(5):
        y = 6.5e-8 * (1 + 0.03 * rng.standard_normal(len(S)))
        result = PMNFFitter(aggregate="mean").fit_arrays(S, y, ["s"])
        assert abs(predict(result.chosen, NEXT)[0] / 6.5e-8 - 1) < 0.15, result.text(4)


def test_without_the_forward_check_the_choice_is_the_score_s_own():
    y = np.array([6.51e-8, 6.62e-8, 6.43e-8, 6.55e-8])
    off = PMNFFitter(policy=SelectionPolicy(forward_check=False)).fit_arrays(S, y, ["s"])
    on = PMNFFitter().fit_arrays(S, y, ["s"])
    assert on.chosen.n_terms <= off.chosen.n_terms


def test_a_few_points_measured_once_are_fitted_by_least_squares_of_the_values():
    fitter = PMNFFitter()
    assert fitter.for_values([1.0, 2.0, 3.0]).weight_power == 0.0
    assert fitter.for_values([[1.0], [2.0], [3.0]]).weight_power == 0.0
    assert fitter.for_values([[1.0, 1.1], [2.0, 2.1], [3.0]]) is fitter
    assert fitter.for_values([float(v) for v in range(1, 9)]) is fitter   # enough points show the noise
    assert PMNFFitter(unreplicated_weight_power=None).for_values([1.0, 2.0]).weight_power == 1.0


def test_a_profile_of_series_with_and_without_repetitions_fits_as_series_do():
    rng = np.random.default_rng(5)
    once = [Series("time", tuple(Point((s,), (float(v),)) for s, v in zip(S, 1e-9 * S ** (4 / 3) * np.log2(S)
                                                                         * (1 + 0.05 * rng.standard_normal(4)))),
                   f"once{k}") for k in range(3)]
    twice = [Series("time", tuple(Point((s,), tuple(1e-9 * s ** 1.5 * (1 + 0.05 * rng.standard_normal(2))))
                                  for s in S), f"twice{k}") for k in range(3)]
    e = Experiment(("s",), tuple(once + twice))
    fitter = PMNFFitter(aggregate="mean")
    assert [r.text(6) for r in fit_profile(e, fitter=fitter)] == [fitter.fit_series(e.parameters, s).text(6)
                                                                  for s in e.series]


def test_exact_data_keep_a_term_that_shows_only_at_the_largest_point():
    x = np.array([1024.0, 4096.0, 16384.0, 65536.0, 262144.0])
    y = 1.21814 + 8.31906e-18 * x ** 3 * np.log2(x)
    assert PMNFFitter().fit_arrays(x, np.repeat(y[:, None], 3, axis=1), ["x"]).text(6) == \
        "1.21814 + 8.31906e-18 * x^(3) * log2(x)^(1)"


def test_an_uptick_at_the_last_of_a_few_single_values_is_not_extrapolated():
    # a 65 ns allocator call of LULESH: flat, 3 % higher at the largest size, flat again beyond it
    y = np.array([7.625880e-07, 7.620453e-07, 7.622580e-07, 7.870989e-07])
    leaning = PMNFFitter(policy=SelectionPolicy(forward_check=False)).fit_arrays(S, y, ["s"])
    assert predict(leaning.chosen, NEXT)[0] > 2 * 7.69e-7     # the term the uptick buys, 3x at 8x the size
    steady = PMNFFitter().fit_arrays(S, y, ["s"])
    assert abs(predict(steady.chosen, NEXT)[0] / 7.69e-7 - 1) < 0.1


def test_the_forecast_of_an_exact_law_does_not_move_without_its_largest_point():
    x = np.array([1024.0, 4096.0, 16384.0, 65536.0, 262144.0])
    law = Candidate(1.21814, ((8.31906e-18, ((0, (Fraction(3), Fraction(1))),)),), 0.0)
    assert forecast_shift(law, x[:, None], predict(law, x[:, None])) < 1e-9


def test_the_errors_of_many_candidates_at_once_are_each_one_s_alone():
    grid = np.array([(p, n) for p in (4.0, 8, 16, 32, 64) for n in (10.0, 20, 30, 40, 50)])
    rng = np.random.default_rng(5)
    Y = np.array([2.0 + 0.01 * grid[:, 0] ** 1.5 * (1 + 0.05 * rng.standard_normal(25)) for _ in range(4)])
    Y[1, :3] = 0.0                      # points not positive are left out of the refit
    shape = ((0, (Fraction(3, 2), Fraction(0))),)
    both = ((0, (Fraction(1), Fraction(0))), (1, (Fraction(1), Fraction(1))))
    candidates = [Candidate(2.0, ((0.01, shape),), 0.0), Candidate(2.0, ((0.01, shape),), 0.0),
                  Candidate(3.0, (), 0.0), Candidate(1.0, ((0.1, shape), (1e-3, both)), 0.0)]
    together = extrapolation_errors(candidates, grid, Y)
    alone = [float(extrapolation_errors([c], grid, y)[0]) for c, y in zip(candidates, Y)]
    assert together.tolist() == alone
    assert together[0] < 0.1 < together[2]
