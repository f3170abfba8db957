"""The coefficient of variation of repeated measurements: how much they scatter, relative to their
size; and their mean and median, which stay finite for values near the largest double.

>>> round(coefficient_of_variation([9.0, 10.0, 11.0]), 6)
0.1
>>> coefficient_of_variation([5.0])
nan
>>> mean([1e308, 1e308]), median([1e308, 1e308])
(1e+308, 1e+308)
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

#: values up to this size are summed and squared as they are; larger ones are scaled first, so
#: that a sum of them (or of their squares) does not overflow a double
_LARGE = 1e150


def _scale(v: np.ndarray) -> float:
    """1 for values of ordinary size; for larger ones, the largest magnitude to divide by."""
    top = float(np.max(np.abs(v))) if v.size else 0.0
    return top if math.isfinite(top) and top > _LARGE else 1.0


def _scaled(statistic: Callable[[np.ndarray], Any], values: Sequence[float] | np.ndarray) -> float:
    """``statistic`` of the values, of values near the largest double computed on them scaled down."""
    v = np.asarray(values, dtype=float)
    scale = _scale(v)
    return float(statistic(v / scale) * scale) if scale != 1.0 else float(statistic(v))


def mean(values: Sequence[float] | np.ndarray) -> float:
    """The mean, finite where the values are (``np.mean([1e308, 1e308])`` overflows to inf)."""
    return _scaled(np.mean, values)


def median(values: Sequence[float] | np.ndarray) -> float:
    """The median, finite where the values are (of an even count it is the mean of the middle two)."""
    return _scaled(np.median, values)


def coefficient_of_variation(values: Sequence[float] | np.ndarray) -> float:
    """Sample standard deviation (``ddof=1``) over the mean, as a fraction; NaN where it is not
    defined: fewer than two values, or a mean of zero."""
    v = np.asarray(values, dtype=float)
    if v.size < 2:
        return math.nan
    v = v / _scale(v)  # the ratio does not change with the scale; the squares stay finite
    average = float(np.mean(v))
    return math.nan if average == 0 else float(np.std(v, ddof=1) / average)
