"""The bootstrap members of many call paths at once give the intervals the one-series bootstrap
of :mod:`perfcompose.fit.uncertainty` gives, from the same method with shared draws."""
from __future__ import annotations

import numpy as np
import pytest

from perfcompose.analyze.members import RESAMPLES, bootstrap_members
from perfcompose.analyze.pmnf_sum import PMNFSum
from perfcompose.data.experiment import Point, Series
from perfcompose.ensemble import percentile_interval
from perfcompose.fit import uncertainty
from perfcompose.model import Model

X = np.array([4.0, 8.0, 16.0, 32.0, 64.0, 128.0])


@pytest.mark.parametrize("aggregate", ["mean", "median"])
def test_the_batched_bootstrap_gives_the_one_series_interval(aggregate: str) -> None:
    rng = np.random.default_rng(3)
    reps = (2 + 0.5 * X)[:, None] * (1 + 0.05 * rng.standard_normal((len(X), 5)))
    series = Series("time", tuple(Point((x,), tuple(r)) for x, r in zip(X, reps)), "a")
    one = uncertainty.bootstrap(Model.parse("2 + 0.5 * p", params=("p",)), series, aggregate=aggregate)
    low, high = np.percentile(one.members(p=1024.0), [5, 95])
    model = PMNFSum.of_terms(("p",), 2.0, [(0.5, (("p", 1, 0),))])
    many = bootstrap_members([model.design(X[:, None])] * 3, [model.coefficients] * 3, [reps, reps, None],
                             aggregate=aggregate)
    assert many[2] is None and np.array_equal(many[0], many[1]) and many[0].shape == (RESAMPLES, 2)
    assert RESAMPLES == uncertainty.RESAMPLES
    batched = percentile_interval(model.with_members(many[0]).member_values([[1024.0]])[:, 0], 0.9)
    width = high - low
    assert batched[0] == pytest.approx(low, abs=0.2 * width) and batched[1] == pytest.approx(high, abs=0.2 * width)
