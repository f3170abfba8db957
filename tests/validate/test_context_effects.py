"""Context effects: a part that costs otherwise on its predecessor's output than on fresh input."""
from __future__ import annotations

import numpy as np

from perfcompose.validate.in_context import ContextPlan, context_effects


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
