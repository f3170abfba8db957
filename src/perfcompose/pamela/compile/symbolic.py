"""The SymPy vocabulary of compiled PAMELA models: a load vector (delta) is a linear combination of
:class:`UnitVec` atoms (``[4, 8]`` is ``4*UnitVec(0) + 8*UnitVec(1)``), so a vector of symbolic
length is an ordinary ``Sum``; :class:`MaxOver`/:class:`MinOver` reduce over an index, and
:class:`VMax` is the largest element of a vector (omega).
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import sympy as sp
from sympy.concrete.expr_with_limits import ExprWithLimits

__all__ = ["UnitVec", "MaxOver", "MinOver", "VMax", "is_vector", "indicator", "LoadTerm", "load_terms",
           "index_symbol", "choose", "extremum", "rebuilt", "free_symbols"]


class UnitVec(sp.Function):
    """The unit vector along resource index ``k`` (base 0): the paper's ``unitvec(k)``."""

    nargs = 1


def _exact_evalf(expr: sp.Expr, prec: int) -> sp.Float | None:
    """A reduction without free symbols evaluated exactly (SymPy's Max asks when comparing)."""
    if free_symbols(expr):
        return None
    from perfcompose.pamela.compile.symbolic_evaluation import evaluate  # evaluate builds on this module

    try:
        return sp.Float(evaluate(expr, {}), precision=prec)
    except Exception:  # noqa: BLE001 - an expression SymPy cannot compare stays symbolic
        return None


class _RealExact:
    """Real valued, and evaluated numerically by exact evaluation (:func:`_exact_evalf`)."""

    __slots__ = ()

    def _eval_is_extended_real(self) -> bool:
        return True

    def _eval_evalf(self, prec: int) -> sp.Float | None:
        return _exact_evalf(self, prec)


class VMax(_RealExact, sp.Function):
    """The largest element of a load vector: ``omega = max(delta)``."""

    nargs = 1


class _Reduction(_RealExact, ExprWithLimits):
    """A reduction over integer indices (plain symbols)."""

    __slots__ = ()

    @property
    def free_symbols(self) -> set[sp.Basic]:
        return free_symbols(self)


class MaxOver(_Reduction):
    """``max (i = a, b) body``: the largest value of ``body`` over the integers ``a..b``."""

    __slots__ = ()


class MinOver(_Reduction):
    """``min (i = a, b) body``: the smallest value of ``body`` over the integers ``a..b``."""

    __slots__ = ()


def free_symbols(expr: sp.Basic) -> set[sp.Basic]:
    """The free symbols of ``expr``, the indices of its reductions bound. SymPy's own rebuild the body
    of every ``Sum`` to find them, comparing every max in it again (seconds for a Gauss elimination's
    model); indices here are plain symbols, which need no rebuilding."""
    if isinstance(expr, ExprWithLimits):
        symbols = free_symbols(expr.function)
        for index, *bounds in expr.limits:
            symbols.discard(index)
            symbols.update(*(free_symbols(b) for b in bounds))
        return symbols
    return set(expr.free_symbols) if expr.is_Atom else set().union(*(free_symbols(a) for a in expr.args))


def extremum(cls: type[sp.Max] | type[sp.Min], *args: sp.Expr) -> sp.Expr:
    """``cls(*args)`` (``sp.Max`` or ``sp.Min``), nested ones flattened; SymPy's comparison of every pair
    is skipped where an argument holds a reduction (it rebuilds the reduction's body: slow, same value)."""
    flat = [b for a in args for b in (a.args if isinstance(a, cls) else (a,))]
    return cls(*flat, evaluate=not any(a.has(sp.Sum, MaxOver, MinOver, VMax) for a in flat))


def rebuilt(expr: sp.Basic, args: list[sp.Basic]) -> sp.Basic:
    """``expr`` with new arguments, a max or min through :func:`extremum`."""
    return extremum(expr.func, *args) if isinstance(expr, (sp.Max, sp.Min)) else expr.func(*args)


def index_symbol(name: str) -> sp.Symbol:
    """A loop index: an integer symbol (parameters are positive reals, indices may be 0)."""
    return sp.Symbol(name, integer=True)


def is_vector(expr: sp.Basic) -> bool:
    """True when ``expr`` is a load vector: it holds a unit vector outside any ``max(vector)``."""
    if isinstance(expr, UnitVec):
        return True
    if isinstance(expr, VMax) or not expr.has(UnitVec):
        return False
    return any(is_vector(a) for a in expr.args)


def indicator(condition: sp.Basic) -> sp.Expr:
    """1 where ``condition`` holds and 0 elsewhere: how PAMELA turns ``==``/``<`` into numbers."""
    return sp.Piecewise((sp.Integer(1), condition), (sp.Integer(0), True))


def choose(cond: sp.Expr, then: sp.Expr, other: sp.Expr) -> sp.Expr:
    """``if (cond) then else other`` as ``cond*then + (1-cond)*other`` (a 0/1 indicator: a Piecewise)."""
    if cond == 1:
        return then
    if cond == 0:
        return other
    if (isinstance(cond, sp.Piecewise) and len(cond.args) == 2 and cond.args[0].expr == 1
            and cond.args[1].expr == 0 and cond.args[1].cond is sp.true
            and not is_vector(then) and not is_vector(other)):
        return sp.Piecewise((then, cond.args[0].cond), (other, True))
    return cond * then + (1 - cond) * other


@dataclass(frozen=True)
class LoadTerm:
    """One term of a load vector: ``sum over limits of weight * unitvec(key)``; ``limits``:
    ``(index, lo, hi)``, innermost first (SymPy's order)."""

    weight: sp.Expr
    key: sp.Expr
    limits: tuple[tuple[sp.Symbol, sp.Expr, sp.Expr], ...] = ()


def load_terms(vector: sp.Expr) -> Iterator[LoadTerm]:
    """Split a load vector into its terms; raises ValueError if it is not linear in unit vectors."""
    if vector == 0:
        return
    if isinstance(vector, UnitVec):
        yield LoadTerm(sp.Integer(1), vector.args[0])
    elif isinstance(vector, sp.Add):
        for arg in vector.args:
            yield from load_terms(arg)
    elif isinstance(vector, sp.Mul):
        vec = [a for a in vector.args if is_vector(a)]
        if len(vec) != 1:
            raise ValueError(f"not a load vector: {vector}")
        scale = sp.Mul(*[a for a in vector.args if not is_vector(a)])
        for term in load_terms(vec[0]):
            yield LoadTerm(scale * term.weight, term.key, term.limits)
    elif isinstance(vector, sp.Sum):
        for term in load_terms(vector.function):
            yield LoadTerm(term.weight, term.key, term.limits + tuple(tuple(lim) for lim in vector.limits))
    elif isinstance(vector, sp.Piecewise):
        taken: list[sp.Basic] = []
        for branch in vector.args:
            cond = sp.And(branch.cond, *[sp.Not(c) for c in taken])
            taken.append(branch.cond)
            if cond is sp.false or branch.expr == 0:
                continue
            scale = indicator(cond)
            for term in load_terms(branch.expr):
                yield LoadTerm(scale * term.weight, term.key, term.limits)
    else:
        raise ValueError(f"not a load vector: {vector}")
