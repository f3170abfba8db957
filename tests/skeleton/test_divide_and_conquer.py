"""Flat divide and conquer, 001 section 2.2:

    T(n)    = r^d·T(n/r^d) + O(n, n/r^d, 1)
    T(n, p) = Σ_{i<d} r^i·Ā(n/r^i, p) + r^d/p·T(n/r^d) + O(n, n/r^d, p)
"""
from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from perfcompose.model import Model, symbol
from perfcompose.skeleton import RuntimeTable, Skeleton, estimate


def test_time_formula_derived_symbolically():
    n, p = symbol("n"), symbol("p")
    T = Model.parse("3*n^2 + 5*n")                 # not linear: T(n) != l·T(n/l)
    A = Model.parse("0.5*n + 7*p")                 # the penalty of one level of the descent
    r, d = 3, 2
    dc = Skeleton("dc", r=r, d=d)
    def t(v):
        return 3 * v ** 2 + 5 * v
    def a(v):
        return sp.Rational(1, 2) * v + 7 * p
    leaves = r ** d
    divide_merge = t(n) - leaves * t(n / leaves)   # O(n, n/r^d, p) = O(n, n/r^d, 1)
    paper = sum(r ** i * a(n / r ** i) for i in range(d)) + sp.Rational(leaves) / p * t(n / leaves) + divide_merge
    assert sp.simplify(dc.time(T, A).expr - paper) == 0
    assert sp.simplify(dc.work(T, A).expr - sp.expand(p * paper)) == 0   # W(n, p) = p·T(n, p)
    assert sp.simplify(dc.overhead(T).expr - divide_merge) == 0
    general = Skeleton().time(T, A).expr
    assert sp.simplify(dc.time(T, A).expr - general) != 0


def test_linear_work_without_overhead_reduces_to_the_general_law_plus_the_level_sum():
    # T linear: O = 0, r^d/p·T(n/r^d) = T(n)/p; only the penalty sum over the levels remains
    T, A = Model.parse("2*n"), Model.parse("p")
    dc = Skeleton("dc", r=2, d=3)
    assert dc.overhead(T)(n=100) == pytest.approx(0.0, abs=1e-12)
    assert dc.time(T, A)(n=100, p=4) == pytest.approx(200 / 4 + (1 + 2 + 4) * 4)


def test_share_uses_the_leaf_time_not_a_fraction_of_t():
    def T(v):
        return np.asarray(v, float) ** 2 / 100
    dc = Skeleton("dc", r=2, d=1)
    # leaves: 2/4·T(20) = 2; divide and merge: T(40) − 2·T(20) = 8
    assert float(dc.share(T, 40, 4)) == pytest.approx(10.0)
    assert float(Skeleton().share(T, 40, 4)) == pytest.approx(4.0)
    assert float(dc.share(T, 40, 1)) == pytest.approx(16.0)     # Ā(n, 1) = 0 at the reference point


def test_estimate_recovers_a_divide_and_conquer_program():
    r, d = 2, 1
    def t(v):
        return v * v / 100 + v / 10
    def a(v, q):
        return 0.01 * v + 0.05 * q
    def time(v, q):
        return (sum(r ** i * a(v / r ** i, q) for i in range(d)) + r ** d / q * t(v / r ** d)
                             + t(v) - r ** d * t(v / r ** d))
    ns = (10, 20, 30, 40, 50, 60)
    rows = [(v, 0, t(v)) for v in ns] + [(v, q, time(v, q)) for v in ns for q in (2, 4)]
    table = RuntimeTable.from_rows(rows)
    est = estimate(table, 80, 4, skeleton=Skeleton("dc", r=r, d=d), method_t="lm-poly", method_a="lm")
    assert est.value == pytest.approx(time(80, 4), rel=1e-9)
    flat = estimate(table, 80, 4, method_t="lm-poly", method_a="lm")
    assert abs(flat.value - time(80, 4)) > 1e-3 * time(80, 4)
