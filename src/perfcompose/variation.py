"""The coefficient of variation of repeated measurements: how much they scatter, relative to their size.

>>> round(coefficient_of_variation([9.0, 10.0, 11.0]), 6)
0.1
>>> coefficient_of_variation([5.0])
nan
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["coefficient_of_variation"]


def coefficient_of_variation(values: Sequence[float] | np.ndarray) -> float:
    """Sample standard deviation (``ddof=1``) over the mean, as a fraction; NaN where it is not
    defined: fewer than two values, or a mean of zero."""
    v = np.asarray(values, dtype=float)
    if v.size < 2:
        return math.nan
    mean = float(np.mean(v))
    if mean == 0:
        return math.nan
    return float(np.std(v, ddof=1) / mean)
