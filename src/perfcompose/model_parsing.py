"""Model text read into a SymPy expression: parameters are positive symbols, coefficients doubles."""
from __future__ import annotations

import io
import tokenize
from collections.abc import Callable
from functools import cache
from typing import Any

import sympy as sp

from perfcompose.errors import ModelSyntaxError
from perfcompose.expression_reader import ExpressionRefused, nowhere_finite, read_text

__all__ = ["symbol", "parse_expression", "names_in", "float64"]


@cache
def symbol(name: str) -> sp.Symbol:
    """The SymPy symbol of parameter ``name``: parameters are positive reals, always."""
    return sp.Symbol(name, positive=True)


def float64(expr: sp.Expr) -> sp.Expr:
    """Coefficients are IEEE doubles: round every Float to 53 bits so equality is exact."""
    floats = {f: sp.Float(float(f)) for f in expr.atoms(sp.Float) if f._prec != 53}
    return expr.xreplace(floats) if floats else expr


_FUNCTIONS: dict[str, Callable[..., sp.Expr]] = {
    "log2": lambda a: sp.log(a, 2), "log10": lambda a: sp.log(a, 10), "log": sp.log, "ln": sp.log, "sqrt": sp.sqrt,
    "exp": sp.exp, "max": sp.Max, "Max": sp.Max, "min": sp.Min, "Min": sp.Min}
_NOT_FINITE_NAMES = frozenset({"nan", "NaN", "oo", "zoo", "inf", "Infinity", "I"})
_KEYWORDS = frozenset({"and", "or", "not", "if", "else", "lambda", "import", "for", "in", "is"})


def names_in(text: str) -> list[tuple[str, int, bool]]:
    """Identifier tokens of ``text``: name, 1-based column, and whether a call ``(`` follows."""
    names: list[tuple[str, int, bool]] = []
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
                  if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER)]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return names  # the parser reports the syntax error with its position
    for k, tok in enumerate(tokens):
        if tok.type == tokenize.NAME:
            called = k + 1 < len(tokens) and tokens[k + 1].string == "("
            names.append((tok.string, tok.start[1] + 1, called))
    return names


def parse_expression(text: str, *, source: str | None = None, line: int | None = None) -> sp.Expr:
    """Parse model text (perfcompose or Extra-P syntax) into a SymPy expression.

    ``^`` and ``**`` are powers, ``log2(x)`` is ``log(x, 2)``, ``·`` and ``×`` multiply; every
    other name is a positive parameter. Errors point at the column with a caret.
    """
    original = text
    cleaned = text.replace("·", "*").replace("×", "*").replace("−", "-").strip()
    if not cleaned:
        raise ModelSyntaxError("empty model expression", path=source, line=line,
                               hint="write a model such as '5.2 + 0.51 * x^(3/2) * log2(x)'")
    shown = original if len(original) < 200 else None
    local: dict[str, Any] = {}
    for name, col, called in names_in(cleaned):
        where: dict[str, Any] = dict(path=source, line=line, column=col, source_line=original)
        if name in _FUNCTIONS:
            local[name] = _FUNCTIONS[name]
        elif called:
            raise ModelSyntaxError(f"unknown function {name!r}", **where,
                                   hint="known functions: " + ", ".join(sorted(set(_FUNCTIONS))))
        elif name in _KEYWORDS:
            raise ModelSyntaxError(f"'{name}' is not allowed in a model expression", **where)
        elif name.startswith("_"):
            raise ModelSyntaxError(f"parameter names may not start with '_': {name!r}", **where)
        elif name in _NOT_FINITE_NAMES:
            raise ModelSyntaxError(f"'{name}' is not a finite real number", **where,
                                   hint="a model is finite and real; these names cannot be parameters: "
                                        + ", ".join(sorted(_NOT_FINITE_NAMES)))
        else:
            local[name] = symbol(name)
    lead = len(text) - len(text.lstrip())
    try:
        expr = read_text(cleaned.replace("^", "**"), local)
    except ExpressionRefused as exc:
        at = (exc.column + lead) if exc.column else None
        raise ModelSyntaxError(exc.message, path=source, line=line, column=at, source_line=shown,
                               hint="use + - * / ^ ( ), numbers, parameter names and log2(...)") from None
    if nowhere_finite(expr):
        raise ModelSyntaxError("the model is not a finite real expression", path=source, line=line,
                               source_line=shown,
                               hint="a model's value must be a finite real number for positive parameters "
                                    "(no log of a negative number, nan, oo, I or overflowing powers)")
    return float64(expr)
