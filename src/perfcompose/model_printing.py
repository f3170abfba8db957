"""How a model's expression prints: plain text with round-trip floats, Extra-P's syntax, LaTeX; log2 shown as such."""
from __future__ import annotations

from functools import lru_cache
from typing import Any

import sympy as sp
from sympy.printing.latex import LatexPrinter
from sympy.printing.str import StrPrinter

from perfcompose.pmnf_text import float_text

__all__ = ["Log2", "display_form", "PlainPrinter", "ExtrapPrinter", "LaTeXPrinter"]


class Log2(sp.Function):
    """log2 for display only: models hold ``log(x, 2)``; printers show it as ``log2(x)``."""

    nargs = 1

    def _latex(self, printer: Any, exp: Any = None) -> str:
        arg = printer._print(self.args[0])
        return rf"\log_2^{{{exp}}}{{{arg}}}" if exp is not None else rf"\log_2{{{arg}}}"


Log2.__name__ = "log2"  # prints as log2(...)


@lru_cache(maxsize=1024)
def display_form(expr: sp.Expr) -> sp.Expr:
    """Rewrite log(a)/log(2) as log2(a) so that PMNF terms read as they are written (kept for
    the expressions printed last: a command prints a model's label many times, and rebuilding
    a ``Max`` lets SymPy compare its arguments again)."""
    return expr.replace(lambda e: isinstance(e, sp.log) and e.args[0] != 2,
                        lambda e: sp.log(2) * Log2(e.args[0]))


class PlainPrinter(StrPrinter):
    """SymPy's str printer with round-trip floats (shortest repr) and log2(x)."""

    def _print_Float(self, expr: sp.Float) -> str:  # noqa: N802 (SymPy's naming)
        return float_text(float(expr))


class ExtrapPrinter(PlainPrinter):
    """Plain printer with ``^`` for powers, as Extra-P writes them."""

    def _print_Pow(self, expr: sp.Pow, rational: bool = False) -> str:  # noqa: N802
        base, exp = expr.as_base_exp()
        if exp == -1:
            return f"1 / {self.parenthesize(base, 100)}"
        return f"{self.parenthesize(base, 100)}^({self._print(exp)})"


class LaTeXPrinter(LatexPrinter):
    """SymPy's LaTeX printer with floats to six digits and powers of ten as ``\\cdot 10^{k}``."""

    def _print_Float(self, expr: sp.Float) -> str:  # noqa: N802
        text = f"{float(expr):.6g}"
        if "e" in text:
            mant, ex = text.split("e")
            return rf"{mant} \cdot 10^{{{int(ex)}}}"
        return text
