"""Numba's compiler where it is installed (perfcompose's ``numba`` extra), plain Python where it is
not. The kernels written for Numba (PAMELA's event loop, the heaps, the Gaussian elimination
study's operations, the reference tasks) take :func:`njit` from here, so that without Numba the
very same functions run as Python: slower, with the same results.

>>> @njit(cache=True)
... def twice(x):
...     return 2 * x
>>> int(twice(21))
42
"""
from __future__ import annotations

from typing import Any

try:
    import numba

    #: whether Numba compiles the kernels in this process
    HAVE_NUMBA = True
except ImportError:  # the numba extra is not installed: the kernels run as Python
    HAVE_NUMBA = False


def njit(*args: Any, **options: Any) -> Any:
    """``numba.njit`` where Numba is installed; otherwise the function unchanged, whether written
    ``@njit`` or ``@njit(cache=True, ...)`` (the options are Numba's and mean nothing to Python)."""
    if HAVE_NUMBA:
        return numba.njit(*args, **options)
    if len(args) == 1 and callable(args[0]) and not options:
        return args[0]
    return lambda function: function
