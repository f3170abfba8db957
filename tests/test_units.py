"""Times as people read them (:func:`perfcompose.units.human`)."""
from __future__ import annotations

import math

import pytest

from perfcompose.units import human, is_time_unit


@pytest.mark.parametrize(("value", "unit", "text"), [
    (28480000, "ns", "28.48 ms"), (5223.26, "ns", "5.223 µs"), (0.5, "ns", "0.5 ns"), (1e8, "us", "100 s"),
    (0.00281386, "s", "2.814 ms"), (3.0, "ms", "3 ms"), (0, "s", "0 s"), (-2e-3, "s", "-2 ms"),
    (42, "occ", "42 occ"), (5223.26, "", "5223"), (math.nan, "s", "n/a s"), (1e4, "cycles@2GHz", "1e+04 cycles@2GHz"),
])
def test_human_scales_times_and_leaves_other_units(value, unit, text):
    assert human(value, unit) == text


def test_time_units_are_those_perfcompose_converts():
    assert all(is_time_unit(u) for u in ("s", "ms", "us", "µs", "ns", "cycles@2.4GHz"))
    assert not any(is_time_unit(u) for u in ("", "occ", "B", "flop", "bogus"))
