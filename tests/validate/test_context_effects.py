"""Context effects: a part that costs otherwise on its predecessor's output than on fresh input;
what the rounds' co-runs show."""
from __future__ import annotations

import numpy as np
import pytest

from perfcompose.compose.context import Stage
from perfcompose.compose.terms import Component, TPool
from perfcompose.validate.in_context import ContextPlan, context_effects, corun_name, measured


def _effects(context: np.ndarray, fresh: np.ndarray):
    plan = ContextPlan({}, ("pack@smooth",), (), (), ())
    runs = {"pack@smooth": context, "pack": fresh}
    return context_effects(plan, runs.__getitem__, runs.__contains__, [1024.0, 4096.0],
                           lambda m: np.median(m, axis=1))


def test_a_part_six_times_faster_in_context_is_named_however_much_its_rounds_scatter():
    # rounds that scatter by half their median between quartiles: 1 - ratio could never exceed
    # three times that, the logarithm of the ratio does
    fresh = np.array([[6.0, 8.0, 12.0, 14.0], [24.0, 32.0, 48.0, 56.0]])
    effects = _effects(fresh / 6, fresh)
    assert [(e.part, round(e.ratio, 3), e.x) for e in effects] == [("pack@smooth", 0.167, 1024.0)]


def test_a_difference_within_the_scatter_of_the_rounds_is_not_named():
    fresh = np.array([[6.0, 8.0, 12.0, 14.0], [24.0, 32.0, 48.0, 56.0]])
    assert _effects(fresh * 1.3, fresh) == []
    steady = np.array([[10.0, 10.1, 9.9, 10.0], [40.0, 40.2, 39.8, 40.0]])
    assert [e.part for e in _effects(steady * 1.3, steady)] == ["pack@smooth"]


def test_two_copies_side_by_side_count_only_where_other_programs_left_their_cores_alone():
    # pinned copies beside another program's work stall as a pool's workers, free to move, do
    # not: at the size where the co-run was crowded its time does not stand for the pool's
    a = Stage(("a",))
    plan = ContextPlan({"tpool_2(a)": TPool(2, Component("a"))}, (), ((a, a),), (), ())
    runs = {"a": np.array([[1e-5], [2e-5]]), corun_name(a, a): np.array([[3e-5], [5e-5]]),
            corun_name(a, None): np.array([[1e-5], [2e-5]])}
    shares = {corun_name(a, a): np.array([0.0, 0.6])}
    m = measured(plan, runs.__getitem__, runs.__contains__, lambda v: np.median(v, axis=1),
                 lambda name: shares.get(name, np.zeros(2)))
    assert m.together[a][0] == pytest.approx(3e4) and np.isnan(m.together[a][1])
    assert measured(plan, runs.__getitem__, runs.__contains__, lambda v: np.median(v, axis=1)).together == {}


def test_two_chains_that_share_a_lock_unevenly_count_the_median_round_not_each_its_fastest():
    # two pure-Python stages side by side: in each run one holds the GIL longer than the other,
    # so each chain's fastest co-run is from the run it led; per round the two slowdowns go
    # together (1/F[a|b] + 1/F[b|a] = 1), and the typical round is what a pipe of them meets
    a, b = Stage(("a",)), Stage(("b",))
    plan = ContextPlan({}, (), ((a, b), (b, a)), (), ())
    share = np.array([0.7, 0.3, 0.6, 0.4, 0.5])  # a's share of the lock, run by run
    alone = np.full((1, 5), 1e-4)
    runs = {corun_name(a, None): alone, corun_name(b, None): alone,
            corun_name(a, b): alone / share, corun_name(b, a): alone / (1 - share)}
    m = measured(plan, runs.__getitem__, runs.__contains__, lambda v: np.min(v, axis=1))
    # (each chain's fastest co-run would read 1/0.7 = 1.43 and 1/0.6 = 1.67: a pipe of the two as
    # if they overlapped)
    assert m.slowdown[(a, b)][0] == pytest.approx(2.0) and m.slowdown[(b, a)][0] == pytest.approx(2.0)
