"""The one test of whether a value read from a file or given by a caller is a finite number.

JSON and Python both let through what is not a measurement: ``true`` (a ``bool`` is an ``int``
in Python), ``NaN`` and ``Infinity`` (Python's ``json`` reads them). Every reader asks here and
raises its own located error.

>>> [is_finite_number(v) for v in (3, 2.5, True, float("nan"), float("inf"), "1")]
[True, True, False, False, False, False]
"""
from __future__ import annotations

import math
from typing import Any, TypeGuard


def is_number(value: Any) -> TypeGuard[int | float]:
    """An ``int`` or ``float`` that is not a ``bool``."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_finite_number(value: Any) -> TypeGuard[int | float]:
    """A number (see :func:`is_number`) that is neither NaN nor infinite."""
    return is_number(value) and math.isfinite(value)


def is_time(value: Any) -> bool:
    """A finite number at or above zero: what a model's time must be (NumPy's floats included)."""
    return is_finite_number(value) and value >= 0
