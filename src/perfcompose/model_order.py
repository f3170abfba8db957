"""A model's PMNF structure: its terms ``c * prod(p^i * log2(p)^j)`` and its asymptotic order per parameter."""
from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

import sympy as sp

from perfcompose.model_printing import Log2, display_form
from perfcompose.pmnf_text import pmnf_factors

__all__ = ["Order", "PMNFTerm", "NotPMNF", "order_of", "pmnf_terms"]


class Order(NamedTuple):
    """The growth ``x^i * log2(x)^j`` of a model in one parameter, compared lexicographically."""

    i: Fraction
    j: Fraction

    def __str__(self) -> str:
        return " * ".join(pmnf_factors("x", self.i, self.j)) or "1"


@dataclass(frozen=True)
class PMNFTerm:
    """One PMNF term ``coefficient * prod(p^i * log2(p)^j)``; ``exponents`` maps parameter -> (i, j)."""

    coefficient: float
    exponents: tuple[tuple[str, Fraction, Fraction], ...]

    def exponent(self, param: str) -> tuple[Fraction, Fraction]:
        return next(((i, j) for name, i, j in self.exponents if name == param), (Fraction(0), Fraction(0)))


class NotPMNF(Exception):
    """The expression is not of the performance model normal form."""


def _fraction(value: sp.Expr) -> Fraction:
    if not value.is_Rational:
        raise NotPMNF
    return Fraction(int(value.p), int(value.q))


def order_of(expr: sp.Expr, x: sp.Symbol) -> Order:
    """The dominant ``(i, j)`` of ``x^i * log2(x)^j`` in ``expr``; NotPMNF where it has none."""
    if not expr.has(x):
        return Order(Fraction(0), Fraction(0))
    if expr == x:
        return Order(Fraction(1), Fraction(0))
    if isinstance(expr, (sp.Add, sp.Max)):
        return max(order_of(a, x) for a in expr.args)
    if isinstance(expr, sp.Min):
        return min(order_of(a, x) for a in expr.args)
    if isinstance(expr, sp.Mul):
        orders = [order_of(a, x) for a in expr.args]
        return Order(sum((o.i for o in orders), Fraction(0)), sum((o.j for o in orders), Fraction(0)))
    if isinstance(expr, sp.Pow):
        base, exp = expr.args
        if exp.has(x):
            raise NotPMNF
        e = _fraction(exp)
        i, j = order_of(base, x)
        return Order(i * e, j * e)
    if isinstance(expr, sp.log):
        if order_of(expr.args[0], x).i != 0:
            return Order(Fraction(0), Fraction(1))
        raise NotPMNF  # log(log(x)) and the like
    if isinstance(expr, sp.Piecewise):
        # pieces bounded above in x (a two-piece model's x <= b) leave the last piece for large x
        *bounded, (last, cond) = expr.args
        if cond == sp.true and all(c.free_symbols == {x} and isinstance(c, (sp.LessThan, sp.StrictLessThan))
                                   and c.lhs == x for _, c in bounded):
            return order_of(last, x)
    raise NotPMNF


def pmnf_terms(expr: sp.Expr, names: Set[str]) -> tuple[float, tuple[PMNFTerm, ...]] | None:
    """The PMNF decomposition ``(constant, terms)`` of ``expr`` in the parameters ``names``, or
    None when it is not PMNF."""
    constant = 0.0
    collected: dict[tuple, float] = {}
    for term in sp.Add.make_args(sp.expand(display_form(expr))):
        coef = 1.0
        exps: dict[str, list[Fraction]] = {}
        for base, exp in term.as_powers_dict().items():
            if base.is_number and not exp.is_number:
                return None
            if base.is_number:
                value = complex(sp.N(base ** exp))
                if value.imag:
                    return None
                coef *= value.real
                continue
            try:
                e = _fraction(exp)
            except NotPMNF:
                return None
            if isinstance(base, sp.Symbol) and base.name in names:
                exps.setdefault(base.name, [Fraction(0), Fraction(0)])[0] += e
            elif isinstance(base, Log2) and isinstance(base.args[0], sp.Symbol):
                exps.setdefault(base.args[0].name, [Fraction(0), Fraction(0)])[1] += e
            else:
                return None
        key = tuple(sorted((n, v[0], v[1]) for n, v in exps.items() if v[0] or v[1]))
        if not key:
            constant += coef
        else:
            collected[key] = collected.get(key, 0.0) + coef
    return constant, tuple(PMNFTerm(c, k) for k, c in collected.items() if c != 0.0)
