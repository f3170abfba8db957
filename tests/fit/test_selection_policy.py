"""``PMNFFitter(policy=SelectionPolicy(...))``: the selection heuristics are one frozen value;
``__init__`` only stores it, a fit checks it and follows it."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from perfcompose.data import Experiment
from perfcompose.errors import FitError
from perfcompose.fit import PMNFFitter, SelectionPolicy, fit_profile
from perfcompose.fit.base import clone
from perfcompose.fit.result import predict

X = np.array([[2.0 ** k] for k in range(6, 13)])


def noisy(seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (3.0 + 0.5 * X[:, 0] ** 1.5)[:, None] * (1 + 0.03 * rng.standard_normal((len(X), 5)))


def test_init_stores_the_policy_and_a_fit_checks_it():
    bad = SelectionPolicy(plausible=-1.0)
    fitter = PMNFFitter(policy=bad)
    assert fitter.get_params()["policy"] is bad and clone(fitter).get_params()["policy"] == bad
    with pytest.raises(FitError, match="plausible -1.0: a number at least 0"):
        fitter.fit_arrays(X, noisy(), ["x"])


@pytest.mark.parametrize("setting, message", [
    ({"overshoot_risk": 1.0}, "overshoot_risk 1.0: a number at least 0 and below 1"),
    ({"lack_of_fit": -0.1}, "lack_of_fit -0.1"),
    ({"horizon": 0.5}, "horizon 0.5: a number at least 1"),
    ({"term_penalty": (8.0, -1.0)}, "term_penalty"),
    ({"term_penalty": ()}, "term_penalty"),
])
def test_a_setting_out_of_range_is_named(setting, message):
    with pytest.raises(FitError, match=message):
        PMNFFitter(policy=SelectionPolicy(**setting)).fit_arrays(X, noisy(), ["x"])


def test_a_whole_profile_is_checked_before_it_is_fitted():
    e = Experiment.single(["x"], [((x,), tuple(v)) for x, v in zip(X[:, 0], noisy())])
    with pytest.raises(FitError, match="multi_overshoot_spread"):
        fit_profile(e, fitter=PMNFFitter(policy=SelectionPolicy(multi_overshoot_spread=-2.0)))


def test_the_policy_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        SelectionPolicy().plausible = 1.0  # type: ignore[misc]


def test_the_fit_follows_the_policy():
    values = noisy()
    default = PMNFFitter().fit_arrays(X, values, ["x"])
    assert default.chosen.n_terms == 1
    priced_out = PMNFFitter(policy=SelectionPolicy(term_penalty=1e12)).fit_arrays(X, values, ["x"])
    assert priced_out.chosen.n_terms == 0  # no term is worth that price
    same = PMNFFitter(policy=SelectionPolicy()).fit_arrays(X, values, ["x"])
    assert same.chosen.hypothesis == default.chosen.hypothesis and same.chosen.constant == default.chosen.constant


def test_the_old_flat_keywords_are_gone():
    with pytest.raises(TypeError):
        PMNFFitter(plausible=2.0)  # type: ignore[call-arg]


N = 2.0 ** np.arange(10, 17)


def _cache_step(seed: int) -> np.ndarray:
    """5e-5 + 2e-8 n log2(n) measured 5 times a size at 2 % noise, where the largest size outgrows a
    cache and takes 1.3 times as long."""
    law = 5e-5 + 2e-8 * N * np.log2(N)
    law[-1] *= 1.3
    return law[:, None] * (1 + 0.02 * np.random.default_rng(seed).standard_normal((len(N), 5)))


def test_a_term_only_the_largest_points_show_is_no_hypothesis():
    """A second term fitted to the last step alone (x^(9/4) beside a linear one) extrapolates that step
    as a law: 11 of 30 seeds miss the next size by more than 20 % with it, at most 8 without."""
    truth = (5e-5 + 2e-8 * 2.0 ** 17 * 17) * 1.3

    def misses(policy: SelectionPolicy) -> np.ndarray:
        chosen = [PMNFFitter(aggregate="mean", policy=policy).fit_arrays(N, _cache_step(s), ["n"]).chosen
                  for s in range(30)]
        return np.abs(np.array([predict(c, np.array([[2.0 ** 17]]))[0] for c in chosen]) / truth - 1)

    # the rule alone, without the forward choice among the plausible hypotheses
    seen = misses(SelectionPolicy(forward_choice=False))
    any_term = misses(SelectionPolicy(forward_choice=False, term_points=0))
    assert np.sum(seen > 0.2) <= 8 and seen.max() < 0.5
    assert np.sum(any_term > 0.2) >= 10 and any_term.max() > 0.5


def test_an_exact_law_keeps_a_second_term_that_is_small_at_every_point():
    y = 3 + 2 * N + 1e-6 * N ** 2     # the square is 0.1-3 % of the value
    chosen = PMNFFitter().fit_arrays(N, y, ["x"]).chosen
    assert [shape[0][1] for _, shape in chosen.terms] == [(2, 0), (1, 0)]


def _cache_cliff(n: np.ndarray) -> np.ndarray:
    """n log2(n) whose cost per element triples as the data outgrow a cache around 2^15."""
    return 1e-8 * n * np.log2(n) * (1 + 2 / (1 + np.exp(-2.5 * (np.log2(n) - 15))))


def test_where_no_hypothesis_fits_the_one_that_predicts_its_largest_points_is_chosen():
    """n log2(n) at 1 % noise whose cost per element triples as the data outgrow a cache around
    2^15: every hypothesis misses the points by more than the runs' noise, so the scores do not rank
    the extrapolations. Chosen by how well they predict the largest size from the smaller ones, the
    plausible hypotheses miss the next size by 31 % at the median of 20 draws; by their scores, 40 %."""
    x = 2.0 ** np.arange(10, 18)

    def median_miss(policy: SelectionPolicy) -> float:
        misses = []
        for seed in range(20):
            runs = _cache_cliff(x)[:, None] * (1 + 0.01 * np.random.default_rng(seed).standard_normal((len(x), 5)))
            chosen = PMNFFitter(aggregate="mean", policy=policy).fit_arrays(x, runs, ["n"]).chosen
            misses.append(abs(predict(chosen, np.array([[2.0 ** 18]]))[0] / _cache_cliff(np.array(2.0 ** 18)) - 1))
        return float(np.median(misses))

    assert median_miss(SelectionPolicy()) < median_miss(SelectionPolicy(forward_choice=False)) - 0.05


def test_a_model_chosen_where_no_hypothesis_fits_says_so():
    x = 2.0 ** np.arange(10, 18)
    noise = 1 + 0.01 * np.random.default_rng(0).standard_normal((len(x), 5))
    stepped = PMNFFitter(aggregate="mean").fit_arrays(x, _cache_cliff(x)[:, None] * noise, ["n"])
    lawful = PMNFFitter(aggregate="mean").fit_arrays(x, (1e-8 * x * np.log2(x))[:, None] * noise, ["n"])
    assert any("extrapolate with care" in w for w in stepped.warnings)
    assert not any("extrapolate with care" in w for w in lawful.warnings)
