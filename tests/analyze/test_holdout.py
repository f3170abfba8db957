"""Held-out points: those at the largest value of any parameter, when enough points remain."""
from __future__ import annotations

import numpy as np

from perfcompose.analyze.holdout import relative_error, split


def test_the_largest_value_of_every_parameter_is_held_out() -> None:
    grid = [(float(p), float(n)) for p in (1, 2, 4, 8) for n in (10, 20, 30, 40)]
    s = split(grid, ["p", "n"])
    assert s.held_out == {c for c in grid if c[0] == 8 or c[1] == 40}
    assert s.kept == {c for c in grid if c[0] < 8 and c[1] < 40}
    assert s.why == ""


def test_nothing_is_held_out_when_a_parameter_would_keep_two_values() -> None:
    grid = [(float(p), float(n)) for p in (1, 2, 4, 8) for n in (10, 20, 30)]
    s = split(grid, ["p", "n"])
    assert s.held_out == frozenset() and "n has 2 values" in s.why


def test_the_error_is_relative_to_the_measurement_and_skips_zeros() -> None:
    assert relative_error(np.array([12.0, 5.0, 3.0]), np.array([10.0, 5.0, 0.0])) == 10.0
