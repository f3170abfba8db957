"""Extra-P's text form of a PMNF model, ``c0 + c1 * x^(i) * log2(x)^(j) + ...``, without SymPy.

A fitted model is printed from its coefficients and exponents alone, so that ``perfcompose fit``
need not load SymPy; :meth:`perfcompose.model.Model.to_extrap` prints through the same function,
so both read alike. Terms are written from the one in the fewest parameters and the slowest
growth to the fastest, parameters in the model's order.
"""
from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

# One term: its coefficient and, per parameter it contains, (name, i, j).
TermText = tuple[float, Sequence[tuple[str, Fraction, Fraction]]]


def fraction_text(f: Fraction) -> str:
    """``3`` or ``3/2``."""
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def float_text(value: float) -> str:
    """The shortest text that reads back as the same double."""
    return repr(float(value))


def pmnf_factors(name: str, i: Fraction, j: Fraction) -> list[str]:
    """The factors ``name^(i)`` and ``log2(name)^(j)`` of a PMNF term as Extra-P writes them
    (a factor whose exponent is 0 is left out)."""
    out = []
    if i:
        out.append(f"{name}^({fraction_text(Fraction(i))})")
    if j:
        out.append(f"log2({name})^({fraction_text(Fraction(j))})")
    return out


def extrap_text(constant: float, terms: Sequence[TermText], params: Sequence[str], digits: int | None = None,
                implicit_one: bool = False) -> str:
    """``constant + terms`` in Extra-P's syntax; coefficients exact (shortest round-trip form)
    unless ``digits`` asks for fewer; with ``implicit_one`` a coefficient of exactly 1 is left
    out (a model typed as ``x * log2(x)``). Terms with a zero coefficient are left out."""
    def num(v: float) -> str:
        return float_text(v) if digits is None else f"{float(v):.{digits}g}"

    order = {p: k for k, p in enumerate(params)}

    def in_order(exps: Sequence[tuple[str, Fraction, Fraction]]) -> list[tuple[str, Fraction, Fraction]]:
        return sorted(exps, key=lambda e: order.get(e[0], len(order)))

    def key(term: TermText) -> tuple:
        exps = in_order(term[1])
        return (len(exps), [(order.get(n, len(order)), Fraction(i), Fraction(j)) for n, i, j in exps])

    kept = sorted((t for t in terms if t[0] != 0.0), key=key)
    pieces = [] if constant == 0.0 and kept else [num(constant)]
    for coefficient, exps in kept:
        factors = [] if implicit_one and coefficient == 1.0 else [num(coefficient)]
        for name, i, j in in_order(exps):
            factors += pmnf_factors(name, i, j)
        pieces.append(" * ".join(factors))
    return " + ".join(pieces)
