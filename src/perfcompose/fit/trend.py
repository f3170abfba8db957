"""Whether measured values rise or fall with a parameter beyond chance: Mann and Kendall's rank
test. It counts the pairs of points out of order (a later point lower), not how far out of order
(a point pulled up by one slow run counts once for each point it overtakes), and compares the count
with its distribution when every order is equally likely (the Mahonian numbers: permutations of n
points by their inversions).

>>> monotone([1, 2, 3, 4, 5, 6, 7], [1.0, 1.3, 1.2, 1.5, 2.0, 4.0, 8.0], 0.01)
True
>>> monotone([1, 2, 3, 4, 5, 6, 7], [1.0, 1.1, 0.9, 1.05, 1.0, 0.95, 1.1], 0.01)
False
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

__all__ = ["EXACT", "MOST", "inversions", "monotone"]

EXACT = 16   #: up to so many points the count's distribution is the exact one
MOST = 2000  #: of more points, so many evenly spaced ones are counted


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
