"""The measurement advisor: where the best hypotheses part ways, in noise widths."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from perfcompose.errors import FitError
from perfcompose.fit import PMNFFitter, advise
from perfcompose.fit.advisor import candidate_points

X = np.array([4.0, 8, 16, 32, 64])


def _noisy(law, seed, noise=0.03, reps=5):
    rng = np.random.default_rng(seed)
    return law(X)[:, None] * (1 + noise * rng.standard_normal((len(X), reps)))


def test_candidates_are_unmeasured_midpoints_and_a_continuation():
    cand = candidate_points(X[:, None], extend=4.0)[:, 0]
    assert not set(cand) & set(X)
    assert np.allclose(sorted(cand), [np.sqrt(32), np.sqrt(128), np.sqrt(512), np.sqrt(2048), 128, 256])


def test_two_parameter_candidates_cover_the_grid_beyond_both_ranges():
    grid = np.array([(p, n) for p in (2.0, 4, 8) for n in (10.0, 20, 40)])
    cand = candidate_points(grid, extend=2.0)
    assert {tuple(r) for r in grid}.isdisjoint({tuple(r) for r in cand})
    assert (16.0, 80.0) in {tuple(r) for r in cand}


@pytest.mark.parametrize("seed", range(4))
def test_best_point_lies_where_growth_laws_part_ways(seed):
    values = _noisy(lambda x: 3 + x * np.log2(x), seed)
    suggestions = advise(X, values, ["x"], PMNFFitter(aggregate="mean"), count=12)
    assert suggestions[0].point[0] > X.max()           # extrapolation separates growth laws
    assert [s.separation for s in suggestions] == sorted((s.separation for s in suggestions), reverse=True)
    assert suggestions[0].separation > 1.0


def test_separation_is_the_capped_pairwise_gap_in_noise_widths():
    values = _noisy(lambda x: 2 + 0.5 * x ** 1.5, 9)
    for s in advise(X, values, ["x"], PMNFFitter(aggregate="mean"), top=3, enough=5.0, count=5):
        preds = [p for _, p in s.predictions]
        gaps = [abs(a - b) / (s.noise * abs(preds[0])) for a, b in itertools.combinations(preds, 2)]
        assert s.separation == pytest.approx(sum(min(g, 5.0) for g in gaps))
        assert s.widest == pytest.approx(max(gaps))
        assert s.cost == pytest.approx(preds[0])
        assert "noise widths" in s.reason()


def test_more_noise_means_fewer_noise_widths_at_the_same_point():
    law = lambda x: 3 + x * np.log2(x)  # noqa: E731
    rng = np.random.default_rng(4)
    shape = 1 + rng.standard_normal((len(X), 5))
    far = [[256.0]]
    quiet = advise(X, law(X)[:, None] * (1 + 0.01 * shape), ["x"], candidates=far)[0]
    loud = advise(X, law(X)[:, None] * (1 + 0.04 * shape), ["x"], candidates=far)[0]
    assert loud.noise > quiet.noise


def test_explicit_candidates_are_ranked():
    values = _noisy(lambda x: 3 + x * np.log2(x), 1)
    got = advise(X, values, ["x"], candidates=[[5.0], [1024.0], [48.0]], count=3)
    assert {s.point for s in got} == {(5.0,), (1024.0,), (48.0,)}
    assert got[0].point == (1024.0,)


def test_exact_data_leave_nothing_to_separate():
    assert advise(X, np.outer(3 + X * np.log2(X), [1.0, 1.0, 1.0]), ["x"]) == []


def test_bad_requests_are_clear_errors():
    values = _noisy(lambda x: 3 + x, 0)
    with pytest.raises(FitError, match="at least 2"):
        advise(X, values, ["x"], top=1)
    with pytest.raises(FitError, match="extend"):
        advise(X, values, ["x"], extend=0.5)
    with pytest.raises(FitError, match="coordinates"):
        advise(X, values, ["x"], candidates=[[1.0, 2.0]])
