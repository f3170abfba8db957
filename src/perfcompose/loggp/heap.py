"""Binary heaps on flat arrays for the compiled simulators: a heap of (key, tie-break, id)
triples stored from ``base`` in three arrays, so that one allocation holds a heap per processor.
The smallest key comes first, equal keys in the order of their tie-breaks."""
from __future__ import annotations

from numba import njit

__all__ = ["heap_push", "heap_pop"]

@njit(cache=True, inline="always")
def _less(k1: float, t1: float, k2: float, t2: float) -> bool:
    return k1 < k2 or (k1 == k2 and t1 < t2)


@njit(cache=True)
def heap_push(keys, tbs, ids, base, n, key, tb, ident):  # pragma: no cover - compiled
    i = n
    while i > 0:
        parent = (i - 1) >> 1
        if not _less(key, tb, keys[base + parent], tbs[base + parent]):
            break
        keys[base + i] = keys[base + parent]
        tbs[base + i] = tbs[base + parent]
        ids[base + i] = ids[base + parent]
        i = parent
    keys[base + i] = key
    tbs[base + i] = tb
    ids[base + i] = ident
    return n + 1


@njit(cache=True)
def heap_pop(keys, tbs, ids, base, n):  # pragma: no cover - compiled
    n -= 1
    if n == 0:
        return 0
    key = keys[base + n]
    tb = tbs[base + n]
    ident = ids[base + n]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and _less(keys[base + c + 1], tbs[base + c + 1], keys[base + c], tbs[base + c]):
            c += 1
        if not _less(keys[base + c], tbs[base + c], key, tb):
            break
        keys[base + i] = keys[base + c]
        tbs[base + i] = tbs[base + c]
        ids[base + i] = ids[base + c]
        i = c
    keys[base + i] = key
    tbs[base + i] = tb
    ids[base + i] = ident
    return n


