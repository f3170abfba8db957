"""The larger of two models: by asymptotic order (the papers' pipeline rule) or pointwise."""
from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

import sympy as sp

from perfcompose.choices import PipeRule
from perfcompose.errors import ModelError
from perfcompose.model import Model, pmnf_terms
from perfcompose.units import merge_roles

__all__ = ["maximum", "compare_order", "max_expression"]


def compare_order(a: Model, b: Model, param: str | None = None) -> int | None:
    """Compare the asymptotic order of two models: 1 if ``a`` grows faster, -1 if slower, 0 if equal.

    With several parameters and no ``param``, ``a`` must be at least as fast in every parameter
    (and faster in one) to win; ``None`` means the orders are incomparable (``a`` wins in one
    parameter, ``b`` in another).
    """
    names = [param] if param else list(dict.fromkeys(a.params + b.params))
    signs = set()
    for name in names:
        oa, ob = a.order(name), b.order(name)
        if oa is None or ob is None:
            raise ModelError(f"cannot compare asymptotic orders in {name}: "
                             f"{'first' if oa is None else 'second'} model is not PMNF",)
        signs.add((oa > ob) - (oa < ob))
    signs.discard(0)
    return None if len(signs) > 1 else (signs.pop() if signs else 0)


def max_expression(a: sp.Expr, b: sp.Expr) -> sp.Expr:
    """``Max(a, b)`` (nested maxima flattened), an argument dropped where the assumptions prove
    another at least as large. SymPy's own ``Max`` also searches factorings of every pair it
    cannot order, most of the time a pipeline's model takes to build; the value is the same."""
    kept: list[sp.Expr] = []
    for e in (arg for m in (a, b) for arg in (m.args if isinstance(m, sp.Max) else (m,))):
        if any(_at_least(k, e) for k in kept):
            continue
        kept = [k for k in kept if not _at_least(e, k)] + [e]
    return kept[0] if len(kept) == 1 else sp.Max(*kept, evaluate=False)


#: the largest power whose sign the assumptions are asked about: ordering x**-476149643230
#: against another term builds a polynomial of that degree (minutes, gigabytes)
_ORDERED_POWER = 64


def _at_least(a: sp.Expr, b: sp.Expr) -> bool:
    """True where ``a >= b`` for every positive value of the parameters, as the assumptions show;
    False (both kept in the maximum) where a power beyond _ORDERED_POWER would have to be ordered."""
    if a == b:
        return True
    difference = a - b
    if any(p.exp.is_Number and abs(p.exp) > _ORDERED_POWER for p in difference.atoms(sp.Pow)):
        return False
    return bool(difference.is_nonnegative)


def maximum(a: Model, b: Model, how: PipeRule = "asymptotic",
            param: str | None = None, fixed: Iterable[str] | None = None) -> Model:
    """The larger of two models.

    ``asymptotic`` (eq. 3 of 003): the model of higher asymptotic order; ``param`` names the
    parameter that grows (the input size x), the others being held fixed; without it the order
    must be higher in every parameter. On a tie of orders the model larger at 2^40 wins, provided
    it wins for every value of the other parameters tried (1, 2, 8, 64, 2^20); otherwise, and when
    the orders are incomparable or not PMNF, the exact pointwise ``Max`` is returned.
    Given ``fixed`` (the parameters held fixed, such as thread counts), a model that wins in
    ``param`` but grows more slowly than the other in a parameter not listed there is no single
    winner: the pointwise ``Max`` is returned, so no part is lost.
    ``pointwise``: always the exact ``Max(a, b)``, right also where the asymptotic choice is
    wrong at small parameter values.

    >>> str(maximum(Model.parse("536.185*x"), Model.parse("1034.17*x*log2(x)")))
    '1034.17*x*log2(x)'
    """
    if how == "pointwise":
        if a.unit != b.unit:
            b = b.in_unit(a.unit)
        roles = merge_roles(a.roles, b.roles, first_name=a.label, second_name=b.label)
        return Model(max_expression(a.expr, b.expr), params=a.params + b.params, unit=a.unit, roles=roles)
    if how != "asymptotic":
        raise ModelError(f"maximum(how={how!r}): choose 'asymptotic' or 'pointwise'")
    try:
        cmp = compare_order(a, b, param)
    except ModelError:
        cmp = None
    if cmp is None or (cmp != 0 and param and fixed is not None and
                       _loses_elsewhere(a if cmp > 0 else b, b if cmp > 0 else a, param, set(fixed))):
        return maximum(a, b, how="pointwise")
    if cmp != 0:
        return a if cmp > 0 else b
    names = list(dict.fromkeys(a.params + b.params))
    if param:
        lead = _leading_sign(a.expr - b.expr, param)
        if lead is not None:
            return b if lead < 0 else a
    grown = [param] if param else names
    others = [p for p in names if p not in grown]
    verdicts = set()
    for other in ((1.0, 2.0, 8.0, 64.0, 2.0 ** 20) if others else (1.0,)):
        point = {p: (2.0 ** 40 if p in grown else other) for p in names}
        va = a(**{p: point[p] for p in a.params})
        vb = b(**{p: point[p] for p in b.params})
        verdicts.add(bool(vb > va))
    return maximum(a, b, how="pointwise") if len(verdicts) > 1 else (b if verdicts.pop() else a)


def _loses_elsewhere(winner: Model, loser: Model, param: str, fixed: set[str]) -> bool:
    """True when ``winner`` grows more slowly than ``loser`` in a parameter besides ``param`` (or
    the orders there cannot be compared): then neither model is larger everywhere."""
    for name in dict.fromkeys(winner.params + loser.params):
        if name == param or name in fixed:
            continue
        ow, ol = winner.order(name), loser.order(name)
        if ow is None or ol is None or ow < ol:
            return True
    return False


def _leading_sign(diff: sp.Expr, param: str) -> int | None:
    """The sign of ``diff`` as ``param`` grows, from its leading PMNF terms (0 when it vanishes).

    The other parameters are positive, so the leading terms decide when their coefficients share
    a sign; None otherwise, or when ``diff`` is not PMNF.
    """
    expanded = sp.expand(diff)
    decomposed = pmnf_terms(expanded, {s.name for s in expanded.free_symbols})
    if decomposed is None:
        return None
    constant, terms = decomposed
    parts = [((Fraction(0), Fraction(0)), constant)] if constant else []
    parts += [(t.exponent(param), t.coefficient) for t in terms]
    if not parts:
        return 0
    top = max(p[0] for p in parts)
    signs = {p[1] > 0 for p in parts if p[0] == top}
    if len(signs) != 1:
        return None  # the other (positive) parameters decide which term leads
    return 1 if signs.pop() else -1
