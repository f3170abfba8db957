"""The binary heap of the compiled simulators (LogGP's event queues, PAMELA's arrival heap), on
flat arrays: (key, tie-break, id) triples stored from ``base`` in three arrays, so that one
allocation can hold a heap per processor. The smallest key comes first, equal keys in the order
of their tie-breaks (equal tie-breaks in heap order). Imports nothing but Numba (through
:mod:`perfcompose._jit`: plain Python where it is not installed), so that every simulator can share
it without pulling in another one."""
from __future__ import annotations

from perfcompose._jit import njit


@njit(cache=True, inline="always")
def _less(k1: float, t1: float, k2: float, t2: float) -> bool:
    return k1 < k2 or (k1 == k2 and t1 < t2)


@njit(cache=True, inline="always")
def _move(keys, tbs, ids, base, to, frm):  # pragma: no cover - compiled
    keys[base + to] = keys[base + frm]
    tbs[base + to] = tbs[base + frm]
    ids[base + to] = ids[base + frm]


@njit(cache=True, inline="always")
def _put(keys, tbs, ids, base, i, key, tb, ident):  # pragma: no cover - compiled
    keys[base + i] = key
    tbs[base + i] = tb
    ids[base + i] = ident


@njit(cache=True)
def heap_push(keys, tbs, ids, base, n, key, tb, ident):  # pragma: no cover - compiled
    """Add (key, tb, ident) to the heap of ``n`` entries at ``base``; returns the new size."""
    i = n
    while i > 0:
        parent = (i - 1) >> 1
        if not _less(key, tb, keys[base + parent], tbs[base + parent]):
            break
        _move(keys, tbs, ids, base, i, parent)
        i = parent
    _put(keys, tbs, ids, base, i, key, tb, ident)
    return n + 1


@njit(cache=True)
def heap_replace_root(keys, tbs, ids, base, n, key, tb, ident):  # pragma: no cover - compiled
    """Put (key, tb, ident) in place of the root of a heap of ``n`` entries and sift it down."""
    i = 0
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and _less(keys[base + c + 1], tbs[base + c + 1], keys[base + c], tbs[base + c]):
            c += 1
        if not _less(keys[base + c], tbs[base + c], key, tb):
            break
        _move(keys, tbs, ids, base, i, c)
        i = c
    _put(keys, tbs, ids, base, i, key, tb, ident)
