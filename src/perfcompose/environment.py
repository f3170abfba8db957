"""Environment variables set for a block and put back after it: the workers a run starts copy them."""
from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager

#: environment that keeps NumPy's BLAS on one thread per worker (set before NumPy is imported)
SINGLE_THREAD_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


@contextmanager
def environment(values: Mapping[str, str | None], keep: Iterable[str] = ()) -> Iterator[None]:
    """``values`` set in this process's environment for the block (None: unset); afterwards those
    variables and ``keep``'s (which something else may set meanwhile) as they were, and only those."""
    saved = {key: os.environ.get(key) for key in (*values, *keep)}
    for key, value in values.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
