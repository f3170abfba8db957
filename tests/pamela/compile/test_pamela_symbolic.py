"""perfcompose.pamela.compile.symbolic: free symbols of reductions and maxima holding reductions."""
from __future__ import annotations

import sympy as sp

from perfcompose.model import symbol
from perfcompose.pamela.compile.symbolic import MaxOver, VMax, extremum, free_symbols, index_symbol
from perfcompose.pamela.compile.symbolic_evaluation import evaluate

N, P = symbol("N"), symbol("P")
k, p = index_symbol("k"), index_symbol("p")
#: a Gauss elimination's step: the part of a block of rows right of column k
BODY = (N - k) * (sp.ceiling(N / P) - sp.Min(sp.ceiling(N / P), sp.Max(0, k + 1 - p * sp.ceiling(N / P))))


def test_free_symbols_of_nested_reductions_are_sympys_with_the_indices_bound():
    inner = sp.Sum(BODY, (k, 0, N - 2))
    for expr in (inner, MaxOver(inner, (p, 0, P - 1)), VMax(inner), sp.Sum(k * p, (k, 0, p)) + N):
        assert free_symbols(expr) == expr.free_symbols
    assert MaxOver(inner, (p, 0, P - 1)).free_symbols == {N, P}


def test_a_maximum_holding_a_reduction_is_flattened_and_keeps_its_value():
    steps = MaxOver(sp.Sum(BODY, (k, 0, N - 2)), (p, 0, P - 1))
    built = extremum(sp.Max, sp.Max(N, 40 * P), steps, 0)
    assert isinstance(built, sp.Max) and set(built.args) == {N, 40 * P, steps, sp.Integer(0)}
    for n, procs in ((12, 2), (9, 1), (200, 3)):
        values = {"N": n, "P": procs}
        assert evaluate(built, values) == max(n, 40 * procs, evaluate(steps, values))
    assert extremum(sp.Max, N, 2 * N) == 2 * N  # without reductions SymPy compares as before
