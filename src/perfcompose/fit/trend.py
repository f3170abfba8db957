"""Whether measured values rise or fall with a parameter beyond chance (:func:`monotone`): Mann and Kendall's rank
test. It counts the pairs of points out of order (a later point lower), not how far out of order
(a point pulled up by one slow run counts once for each point it overtakes), and compares the count
with its distribution when every order is equally likely (the Mahonian numbers: permutations of n
points by their inversions).

>>> monotone([1, 2, 3, 4, 5, 6, 7], [1.0, 1.3, 1.2, 1.5, 2.0, 4.0, 8.0], 0.01)
True
>>> monotone([1, 2, 3, 4, 5, 6, 7], [1.0, 1.1, 0.9, 1.05, 1.0, 0.95, 1.1], 0.01)
False

Whether they fall as a parameter grows (:func:`falls_rows`; strong scaling, T = c + a*p^-1), where PMNF
needs negative exponents: the value at the largest coordinate is at most ``ratio`` times the
one at the smallest, and Spearman's rank correlation is at most ``-rho``.

>>> p = np.array([1000.0, 2000, 4000, 8000, 16000])
>>> falls_rows(p, np.array([256e3 / p, 4 + 0.001 * p, [4.1, 3.9, 4.0, 4.0, 4.1]])).tolist()
[True, False, False]
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

__all__ = ["EXACT", "MOST", "inversions", "monotone", "falls_rows"]

EXACT = 16   #: up to so many points the count's distribution is the exact one
MOST = 2000  #: of more points, so many evenly spaced ones are counted
RATIO = 0.8   # the value at the largest coordinate is at most this share of the one at the smallest
RHO = 0.7     # and the ranks of values and coordinates are this strongly opposed


@lru_cache(maxsize=64)
def inversions(n: int) -> tuple[int, ...]:
    """How many permutations of ``n`` points have 0, 1, ..., n(n-1)/2 pairs out of order."""
    counts = np.ones(1, dtype=np.int64)
    for k in range(2, n + 1):      # the k-th point adds 0 to k-1 inversions
        counts = np.convolve(counts, np.ones(k, dtype=np.int64))
    return tuple(counts.tolist())


def monotone(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray, level: float) -> bool:
    """Whether ``y`` rises or falls with ``x`` (distinct values) at the two-sided ``level``: the
    share of orders of the points with as few pairs out of order as seen, or as many, is below it
    (exact up to :data:`EXACT` points, else by the count's normal approximation with a continuity
    correction; of more than :data:`MOST` points an evenly spaced selection is counted). Ties in
    ``y`` count as half a pair out of order."""
    order = np.argsort(np.asarray(x, dtype=float), kind="stable")
    v = np.asarray(y, dtype=float)[order]
    if len(v) > MOST:
        v = v[np.linspace(0, len(v) - 1, MOST).round().astype(int)]
    n = len(v)
    if n < 3 or not level > 0:
        return False
    later = (v[None, :] - v[:, None])[np.triu_indices(n, 1)]    # each pair, the later point minus the earlier
    out = float(np.sum(later < 0) + 0.5 * np.sum(later == 0))
    pairs = n * (n - 1) / 2
    if n > EXACT:
        spread = math.sqrt(n * (n - 1) * (2 * n + 5) / 72)   # of the count of pairs out of order
        return math.erfc(max(abs(out - pairs / 2) - 0.5, 0.0) / spread / math.sqrt(2)) < level
    counts = inversions(n)
    fewest = int(round(min(out, pairs - out)))       # the rising or the falling side
    return 2 * sum(counts[:fewest + 1]) / sum(counts) < level


def falls_rows(x: np.ndarray, Y: np.ndarray, ratio: float = RATIO, rho: float = RHO) -> np.ndarray:
    """Whether each row of ``Y`` (rows, len(x)) falls as ``x`` grows (at least 3 distinct
    coordinates; a row may be a line of one of many series measured at the same points)."""
    x, Y = np.asarray(x, dtype=float), np.asarray(Y, dtype=float)
    if len(x) < 3 or len(np.unique(x)) < 3:
        return np.zeros(len(Y), dtype=bool)
    lo, hi = Y[:, x == x.min()].mean(axis=1), Y[:, x == x.max()].mean(axis=1)
    out = (lo > 0) & (hi <= ratio * lo) & np.all(np.isfinite(Y), axis=1)
    if not out.any():
        return out
    rx, ry = _ranks(x[None, :])[0], _ranks(Y)
    rx, ry = rx - rx.mean(), ry - ry.mean(axis=1, keepdims=True)
    den = np.sqrt((rx @ rx) * np.einsum("lr,lr->l", ry, ry))
    rho_y = np.where(den > 0, (ry @ rx) / np.where(den > 0, den, 1.0), 0.0)
    return out & (rho_y <= -rho)


def _ranks(Y: np.ndarray) -> np.ndarray:
    """The average ranks of each row: the values below, plus the middle of the run of equal ones."""
    return np.sum(Y[:, None, :] < Y[:, :, None], axis=2) + (np.sum(Y[:, None, :] == Y[:, :, None], axis=2) + 1) / 2.0
