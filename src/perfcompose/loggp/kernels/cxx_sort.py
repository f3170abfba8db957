"""libstdc++'s ``std::sort`` on operation indices keyed by their kind, reproduced exactly: LogGOPSim sorts newly
executable operations with it, and as it is not stable beyond 16 elements, the order it leaves among operations of one
kind decides which one is issued first. Plain Python: the reference of the compiled loops' ``_cxx_sort.h``."""
from __future__ import annotations

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
            a[first:i + 1] = [a[i], *a[first:i]]
        else:
            _linear_insert(a, kind, i)


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
    stack = [(first, last, 2 * (n.bit_length() - 1))]
    while stack:
        lo, hi, lim = stack.pop()
        while hi - lo > 16:
            if lim == 0:  # libstdc++ switches to heap sort here; a stable sort stands in for it
                a[lo:hi] = sorted(a[lo:hi], key=kind.__getitem__)
                break
            lim -= 1
            mid = lo + (hi - lo) // 2
            x, y, z = lo + 1, mid, hi - 1  # move the median of three to lo
            kx, ky, kz = kind[a[x]], kind[a[y]], kind[a[z]]
            if kx < ky:
                m = y if ky < kz else (z if kx < kz else x)
            else:
                m = x if kx < kz else (z if ky < kz else y)
            a[lo], a[m] = a[m], a[lo]
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
                a[f], a[l_] = a[l_], a[f]
                f += 1
            stack.append((f, hi, lim))
            hi = f
    _insertion_sort(a, kind, first, first + 16)
    for i in range(first + 16, last):
        _linear_insert(a, kind, i)
