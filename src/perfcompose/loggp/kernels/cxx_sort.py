"""libstdc++'s ``std::sort`` on operation indices keyed by their kind, reproduced exactly: LogGOPSim sorts newly
executable operations with it, and as it is not stable beyond 16 elements, the order it leaves among operations of one
kind decides which one is issued first. Plain Python: the reference of the compiled loops' ``_cxx_sort.h``."""
from __future__ import annotations

import numpy as np

__all__ = ["sort_like_cxx"]


def _linear_insert(a, kind, last):
    val = a[last]
    nxt = last - 1
    while kind[val] < kind[a[nxt]]:
        a[last] = a[nxt]
        last = nxt
        nxt -= 1
    a[last] = val


def _insertion_sort(a, kind, first, last):
    if first == last:
        return
    for i in range(first + 1, last):
        if kind[a[i]] < kind[a[first]]:
            val = a[i]
            for j in range(i, first, -1):
                a[j] = a[j - 1]
            a[first] = val
        else:
            _linear_insert(a, kind, i)


def _swap(a, i, j):
    a[i], a[j] = a[j], a[i]


def sort_like_cxx(a, kind, first, last):
    """Sort the operations a[first:last] by kind the way LogGOPSim's ``std::sort`` does with
    libstdc++ (introsort, median-of-three pivot, insertion sort below 17 elements): not stable,
    and the order it leaves among operations of one kind decides which is issued first."""
    n = last - first
    if n < 2:
        return
    if n <= 16:
        _insertion_sort(a, kind, first, last)
        return
    depth = 0
    while (1 << (depth + 1)) <= n:
        depth += 1
    stack = np.empty((2 * 64 + 2, 3), np.int64)
    sp = 0
    stack[0, 0], stack[0, 1], stack[0, 2] = first, last, 2 * depth
    sp = 1
    while sp > 0:
        sp -= 1
        lo, hi, lim = stack[sp, 0], stack[sp, 1], stack[sp, 2]
        while hi - lo > 16:
            if lim == 0:  # libstdc++ switches to heap sort here; a stable sort stands in for it
                keys = np.empty(hi - lo, np.int64)
                for j in range(lo, hi):
                    keys[j - lo] = np.int64(kind[a[j]]) * (1 << 40) + (j - lo)
                order = np.argsort(keys)
                tmp = a[lo:hi].copy()
                for j in range(hi - lo):
                    a[lo + j] = tmp[order[j]]
                break
            lim -= 1
            mid = lo + (hi - lo) // 2
            x, y, z = lo + 1, mid, hi - 1  # move the median of three to lo
            kx, ky, kz = kind[a[x]], kind[a[y]], kind[a[z]]
            if kx < ky:
                m = y if ky < kz else (z if kx < kz else x)
            else:
                m = x if kx < kz else (z if ky < kz else y)
            _swap(a, lo, m)
            pivot = kind[a[lo]]
            f, l_ = lo + 1, hi
            while True:
                while kind[a[f]] < pivot:
                    f += 1
                l_ -= 1
                while pivot < kind[a[l_]]:
                    l_ -= 1
                if not f < l_:
                    break
                _swap(a, f, l_)
                f += 1
            stack[sp, 0], stack[sp, 1], stack[sp, 2] = f, hi, lim
            sp += 1
            hi = f
    if n > 16:
        _insertion_sort(a, kind, first, first + 16)
        for i in range(first + 16, last):
            _linear_insert(a, kind, i)
    else:
        _insertion_sort(a, kind, first, last)
