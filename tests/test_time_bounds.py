"""A reported interval of a time is never below zero and holds the value."""
from __future__ import annotations

import numpy as np

from perfcompose.ensemble import time_bounds


def test_time_bounds_clip_at_zero_and_hold_the_value():
    assert time_bounds(2.8, -2.6, 2.9) == (0.0, 2.9)
    assert time_bounds(5.0, 1.0, 4.0) == (1.0, 5.0)   # members all below the value
    assert time_bounds(1.0, 2.0, 3.0) == (1.0, 3.0)   # members all above it
    lo, hi = time_bounds(np.array([1.0, 2.0]), np.array([-1.0, 1.5]), np.array([0.5, 3.0]))
    assert lo.tolist() == [0.0, 1.5] and hi.tolist() == [1.0, 3.0]
