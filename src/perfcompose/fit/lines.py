"""Lines of points along one parameter, the others fixed: where the candidate factors of a
parameter are voted on, and whether a parameter can be modelled at all."""
from __future__ import annotations

from functools import lru_cache

import numpy as np

__all__ = ["distinct", "line_layout", "diagonal_lead"]

Layout = list[tuple[np.ndarray, np.ndarray]]


def distinct(v: np.ndarray) -> int:
    """The number of distinct values of a few coordinates (a set is faster than np.unique there)."""
    return len(set(v.tolist()))


def line_layout(X: np.ndarray, k: int) -> Layout:
    """The lines along parameter ``k`` (every other parameter fixed, at least 3 distinct values of
    ``k``) grouped by their coordinates: per group the (L, rows) point indices in increasing order
    of ``k`` and the coordinates of ``k`` there (rows). It depends only on the coordinates, which
    repeat from series to series, so it is cached."""
    return _layout(X.shape, X.dtype.str, X.tobytes(), k)


@lru_cache(maxsize=64)
def _layout(shape: tuple[int, ...], dtype: str, data: bytes, k: int) -> Layout:
    X = np.frombuffer(data, dtype=dtype).reshape(shape)
    _, inverse = np.unique(np.delete(X, k, axis=1), axis=0, return_inverse=True)
    inverse = inverse.ravel()
    by_x: dict[bytes, list[np.ndarray]] = {}
    for g in range(inverse.max() + 1):
        idx = np.flatnonzero(inverse == g)
        if len(np.unique(X[idx, k])) >= 3:
            order = idx[np.argsort(X[idx, k], kind="stable")]
            by_x.setdefault(X[order, k].tobytes(), []).append(order)
    return [(np.stack(same), X[same[0], k]) for same in by_x.values()]


def diagonal_lead(X: np.ndarray) -> int | None:
    """The first parameter with at least 3 distinct values that determines every other one
    (points on a diagonal), or None."""
    for k in range(X.shape[1]):
        keys, inverse = np.unique(X[:, k], return_inverse=True)
        if len(keys) < 3:
            continue
        inverse = inverse.ravel()
        if all(len(np.unique(X[inverse == g], axis=0)) == 1 for g in range(len(keys))):
            return k
    return None
