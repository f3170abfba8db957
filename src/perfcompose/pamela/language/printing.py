"""Compiled models printed back as PAMELA text that parses and recompiles: reductions as
``sum (i = a, b) { ... }``, ``floor(a/b)`` as ``a div b``, load vectors as ``[l0, l1, ...]`` where
their indices are numbers and as sums of ``w * unitvec(k)`` otherwise.
"""
from __future__ import annotations

from functools import partialmethod
from typing import Any

import sympy as sp
from sympy.printing.precedence import PRECEDENCE
from sympy.printing.str import StrPrinter

from perfcompose.pamela.compile.symbolic import LoadTerm, is_vector, load_terms

__all__ = ["pamela_text", "vector_text", "decimal_form"]


class _PamelaPrinter(StrPrinter):
    """SymPy's str printer speaking PAMELA."""

    def _print_Float(self, expr: sp.Float) -> str:  # noqa: N802 - SymPy's naming
        value = float(expr)
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)

    def _print_Rational(self, expr: sp.Rational) -> str:  # noqa: N802
        """A terminating fraction as a decimal (``101/10`` -> ``10.1``), others as ``p/q``."""
        return repr(float(expr)) if _terminates(expr) else f"{expr.p}/{expr.q}"

    def _applied(self, expr: Any, word: str, by_size: bool = False) -> str:
        """``word(a, b, ...)``; ``by_size``: the arguments (of max and min) in a stable, readable
        order, fewer operations first."""
        args = sorted(expr.args, key=lambda a: (sp.count_ops(a), sp.default_sort_key(a))) if by_size else expr.args
        return f"{word}(" + ", ".join(self._print(a) for a in args) + ")"

    _print_Max = partialmethod(_applied, word="max", by_size=True)
    _print_Min = partialmethod(_applied, word="min", by_size=True)
    _print_And = partialmethod(_applied, word="min")
    _print_Or = partialmethod(_applied, word="max")
    _print_ceiling = partialmethod(_applied, word="ceil")
    _print_UnitVec = partialmethod(_applied, word="unitvec")

    def _print_floor(self, expr: Any) -> str:  # noqa: N802
        num, den = sp.fraction(expr.args[0])
        if den != 1:
            return f"({self.parenthesize(num, PRECEDENCE['Mul'])} div {self.parenthesize(den, PRECEDENCE['Mul'] + 1)})"
        return f"floor({self._print(expr.args[0])})"

    def _print_Mod(self, expr: Any) -> str:  # noqa: N802
        a, b = expr.args
        return f"({self.parenthesize(a, PRECEDENCE['Mul'])} mod {self.parenthesize(b, PRECEDENCE['Mul'] + 1)})"

    def _print_Pow(self, expr: Any, rational: bool = False) -> str:  # noqa: N802
        base, exp = expr.args
        if exp == sp.Rational(1, 2):
            return f"sqrt({self._print(base)})"
        if exp == -1:
            return f"1/{self.parenthesize(base, PRECEDENCE['Pow'])}"
        return f"{self.parenthesize(base, PRECEDENCE['Pow'])}^{self.parenthesize(exp, PRECEDENCE['Pow'])}"

    def _print_Relational(self, expr: Any) -> str:  # noqa: N802
        return f"({self._print(expr.lhs)} {expr.rel_op} {self._print(expr.rhs)})"

    def _print_Not(self, expr: Any) -> str:  # noqa: N802
        return f"(1 - {self._print(expr.args[0])})"

    def _print_BooleanTrue(self, expr: Any) -> str:  # noqa: N802
        return "1" if expr else "0"

    _print_BooleanFalse = _print_BooleanTrue

    def _print_Piecewise(self, expr: Any) -> str:  # noqa: N802
        first, rest = expr.args[0], expr.args[1:]
        if first.cond is sp.true or not rest:
            return self._print(first.expr)
        if first.expr == 1 and len(rest) == 1 and rest[0].expr == 0 and rest[0].cond is sp.true:
            return self._print(first.cond)
        other = sp.Piecewise(*[(a.expr, a.cond) for a in rest])
        return f"(if {self._print(first.cond)} {{ {self._print(first.expr)} }} else {{ {self._print(other)} }})"

    def _limits(self, expr: Any, word: str) -> str:
        text = self._print(expr.function)
        for idx, lo, hi in expr.limits:
            text = f"{word} ({self._print(idx)} = {self._print(lo)}, {self._print(hi)}) {{ {text} }}"
        return text

    _print_Sum = partialmethod(_limits, word="sum")
    _print_MaxOver = partialmethod(_limits, word="max")
    _print_MinOver = partialmethod(_limits, word="min")

    def _print_VMax(self, expr: Any) -> str:  # noqa: N802
        return f"max({vector_text(expr.args[0])})"

    def _print_Symbol(self, expr: Any) -> str:  # noqa: N802
        return expr.name


_PRINTER = _PamelaPrinter({"order": "none"})


def _terminates(r: sp.Rational) -> bool:
    q = int(r.q)
    for f in (2, 5):
        while q % f == 0:
            q //= f
    return q == 1 and sp.Rational(repr(float(r))) == r


def decimal_form(expr: sp.Basic, every: bool = False) -> sp.Basic:
    """Rational coefficients as floats (``101/10`` -> ``10.1``), those with a finite decimal
    expansion only unless ``every``; exponents stay exact."""
    if isinstance(expr, sp.Rational) and not expr.is_Integer:
        return sp.Float(expr) if (every or _terminates(expr)) else expr
    if expr.is_Atom:
        return expr
    if isinstance(expr, sp.Pow):
        return sp.Pow(decimal_form(expr.base, every), expr.exp)
    args = [decimal_form(a, every) for a in expr.args]
    return expr if all(a is b for a, b in zip(args, expr.args)) else expr.func(*args)


def pamela_text(expr: sp.Expr) -> str:
    """``expr`` as PAMELA numeric text (a load vector as a vector)."""
    expr = decimal_form(expr)
    return vector_text(expr) if is_vector(expr) else _PRINTER.doprint(expr)


def vector_text(vector: sp.Expr, limit: int = 64) -> str:
    """A load vector: ``[l0, l1, ...]`` when every index is a small whole number."""
    if vector == 0:
        return "[]"
    try:
        terms = [LoadTerm(decimal_form(t.weight), t.key, t.limits) for t in load_terms(vector)]
    except ValueError:
        return _PRINTER.doprint(vector)
    if terms and all(not t.limits and t.key.is_Integer and 0 <= int(t.key) < limit for t in terms):
        slots: dict[int, sp.Expr] = {}
        for t in terms:
            slots[int(t.key)] = slots.get(int(t.key), sp.Integer(0)) + t.weight
        return "[" + ", ".join(_PRINTER.doprint(slots.get(k, sp.Integer(0))) for k in range(max(slots) + 1)) + "]"
    parts = []
    for t in terms:
        text = f"unitvec({_PRINTER.doprint(t.key)})"
        if t.weight != 1:
            text = f"{_PRINTER.parenthesize(t.weight, PRECEDENCE['Mul'])} * {text}"
        for idx, lo, hi in t.limits:
            text = f"sum ({idx.name} = {_PRINTER.doprint(lo)}, {_PRINTER.doprint(hi)}) {{ {text} }}"
        parts.append(text)
    return " + ".join(parts)
