"""The simplifier (paper 004, section 2.2): closed forms for compiled models by the rules of
docs/pamela.md, "The simplifier". Loop ranges are taken to be non-empty or exactly empty
(``hi >= lo - 1``); what no rule closes stays a reduction, evaluated exactly by
:mod:`perfcompose.pamela.compile.symbolic_evaluation`.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable

import sympy as sp

from perfcompose.pamela.compile.symbolic import (
    LoadTerm,
    MaxOver,
    MinOver,
    UnitVec,
    VMax,
    index_symbol,
    is_vector,
    load_terms,
    rebuilt,
)

__all__ = ["simplify", "simplify_vector", "omega", "count_where", "sum_over", "max_over"]

Limit = tuple[sp.Symbol, sp.Expr, sp.Expr]


def _length(lo: sp.Expr, hi: sp.Expr) -> sp.Expr:
    return hi - lo + 1


def _tidy(expr: sp.Expr) -> sp.Expr:
    """The simpler of ``expr`` and its factored form (by SymPy's operation count)."""
    if not expr.is_polynomial() or expr.has(sp.Piecewise, sp.Max, sp.Min):
        return expr
    factored = sp.factor(expr)  # total on polynomials
    return factored if sp.count_ops(factored) < sp.count_ops(expr) else expr


# ---------------------------------------------------------------------------------------------
# Counting the indices where a condition holds


def _linear(expr: sp.Expr, i: sp.Symbol) -> tuple[sp.Expr, sp.Expr] | None:
    """``(alpha, beta)`` with ``expr = alpha * i + beta`` and a numeric ``alpha != 0``, else None."""
    if not expr.has(i):
        return None
    alpha = sp.diff(expr, i)
    if alpha.has(i) or not alpha.is_number or alpha == 0:
        return None
    beta = sp.expand(expr - alpha * i)
    return None if beta.has(i) else (alpha, beta)


def _mod_form(side: sp.Expr, other: sp.Expr, i: sp.Symbol) -> tuple[sp.Expr, sp.Expr, sp.Expr] | None:
    """``(c, m, r)`` when ``side == Mod(i + c, m)`` and ``other == r`` do not depend on ``i``."""
    if not isinstance(side, sp.Mod) or other.has(i):
        return None
    u, m = side.args
    if m.has(i):
        return None
    lin = _linear(u, i)
    if lin is None or lin[0] != 1:
        return None
    return lin[1], m, other


def count_where(cond: sp.Basic, i: sp.Symbol, lo: sp.Expr, hi: sp.Expr) -> sp.Expr | None:
    """How many integers ``i`` in ``lo..hi`` satisfy ``cond``; None when no rule applies."""
    length = _length(lo, hi)
    if not cond.has(i):  # all of them or none (Piecewise folds a true or false condition)
        return sp.Piecewise((length, cond), (0, True))
    if isinstance(cond, (sp.Not, sp.Ne)):  # the indices where the opposite does not hold
        opposite = cond.args[0] if isinstance(cond, sp.Not) else sp.Eq(cond.lhs, cond.rhs, evaluate=False)
        inner = count_where(opposite, i, lo, hi)
        return None if inner is None else length - inner
    if isinstance(cond, sp.Eq):
        for side, other in ((cond.lhs, cond.rhs), (cond.rhs, cond.lhs)):
            form = _mod_form(side, other, i)
            if form is None:
                continue
            c, m, r = form
            count = sp.floor((hi + c - r) / m) - sp.floor((lo - 1 + c - r) / m)
            return sp.Piecewise((count, sp.And(sp.Ge(r, 0), sp.Lt(r, m))), (0, True))
        lin = _linear(cond.lhs - cond.rhs, i)
        if lin is None or abs(lin[0]) != 1:
            return None
        at = -lin[1] / lin[0]
        return sp.Piecewise((1, sp.And(sp.Ge(at, lo), sp.Le(at, hi))), (0, True))
    if isinstance(cond, (sp.StrictLessThan, sp.LessThan, sp.StrictGreaterThan, sp.GreaterThan)):
        lin = _linear(cond.lhs - cond.rhs, i)
        if lin is None:
            return None
        alpha, beta = lin
        c = -beta / alpha  # cond is  alpha * (i - c)  op  0
        op = cond.rel_op if alpha > 0 else {"<": ">", "<=": ">=", ">": "<", ">=": "<="}[cond.rel_op]
        if op in ("<", "<="):
            return sp.Max(0, sp.Min(hi, sp.ceiling(c) - 1 if op == "<" else sp.floor(c)) - lo + 1)
        return sp.Max(0, hi - sp.Max(lo, sp.floor(c) + 1 if op == ">" else sp.ceiling(c)) + 1)
    return None


def _as_choice(expr: sp.Expr) -> tuple[sp.Expr, sp.Basic, sp.Expr] | None:
    """``(then, cond, other)`` for ``Piecewise((then, cond), (other, True))``."""
    if isinstance(expr, sp.Piecewise) and len(expr.args) == 2 and expr.args[1].cond is sp.true:
        return expr.args[0].expr, expr.args[0].cond, expr.args[1].expr
    return None


# ---------------------------------------------------------------------------------------------
# Sums


def sum_over(body: sp.Expr, i: sp.Symbol, lo: sp.Expr, hi: sp.Expr) -> sp.Expr:
    """``sum (i = lo, hi) body`` in closed form where a rule applies, else the Sum itself."""
    if is_vector(body):
        return _vector_sum(body, i, lo, hi)
    if not body.has(i):
        return body * _length(lo, hi)
    if isinstance(body, sp.Add):
        return sp.Add(*[sum_over(a, i, lo, hi) for a in body.args])
    if isinstance(body, sp.Mul):
        fixed = [a for a in body.args if not a.has(i)]
        if fixed:
            rest = sp.Mul(*[a for a in body.args if a.has(i)])
            return sp.Mul(*fixed) * sum_over(rest, i, lo, hi)
    choice = _as_choice(body)
    if choice is not None:
        then, cond, other = choice
        if not then.has(i) and not other.has(i):
            count = count_where(cond, i, lo, hi)
            if count is not None:
                return other * _length(lo, hi) + (then - other) * count
    if body.is_polynomial(i) and not body.has(sp.Sum, MaxOver, MinOver, VMax):
        closed = sp.summation(body, (i, lo, hi))
        if not closed.has(sp.Sum):
            return _tidy(sp.expand(closed))
    return sp.Sum(body, (i, lo, hi))


def _vector_sum(body: sp.Expr, i: sp.Symbol, lo: sp.Expr, hi: sp.Expr) -> sp.Expr:
    """Sum a load vector per resource: unit vectors whose index does not depend on ``i`` factor out."""
    out = []
    body = sp.expand(body, deep=False, mul=True, multinomial=False, power_exp=False, power_base=False, log=False)
    for term in sp.Add.make_args(body):  # scalar factors distributed over inner sums of vectors
        key_free = [u for u in term.atoms(UnitVec) if not u.args[0].has(i)]
        if isinstance(term, sp.Mul) and len(key_free) == 1 and key_free[0] in term.args:
            unit = key_free[0]
            weight = sp.Mul(*[a for a in term.args if a != unit])
            out.append(unit * sum_over(weight, i, lo, hi))
        elif isinstance(term, UnitVec) and not term.args[0].has(i):
            out.append(term * _length(lo, hi))
        else:
            out.append(sp.Sum(term, (i, lo, hi)))
    return sp.Add(*out)


# ---------------------------------------------------------------------------------------------
# Max and min over an index


def _monotone_end(body: sp.Expr, i: sp.Symbol, lo: sp.Expr, hi: sp.Expr, largest: bool) -> sp.Expr | None:
    """The value at an end of the range when ``body`` is a polynomial monotone in ``i >= 0``."""
    if not body.is_polynomial(i) or body.has(sp.Piecewise, sp.Max, sp.Min, sp.Mod, sp.floor, sp.ceiling):
        return None
    poly = sp.Poly(body, i)
    coeffs = [c for (k,), c in poly.terms() if k > 0]
    if not coeffs or not (lo.is_nonnegative or all(k == 1 for (k,), _ in poly.terms() if k > 0)):
        return None
    if all(c.is_nonnegative for c in coeffs):
        return body.subs(i, hi if largest else lo)
    if all(c.is_nonpositive for c in coeffs):
        return body.subs(i, lo if largest else hi)
    return None


def max_over(body: sp.Expr, i: sp.Symbol, lo: sp.Expr, hi: sp.Expr, largest: bool = True) -> sp.Expr:
    """``max (i = lo, hi) body`` (or ``min`` with ``largest=False``) in closed form where possible."""
    if not body.has(i):
        return body
    cls, outer = (MaxOver, sp.Max) if largest else (MinOver, sp.Min)
    if isinstance(body, outer):
        return outer(*[max_over(a, i, lo, hi, largest) for a in body.args])
    if isinstance(body, sp.Add):
        fixed = [a for a in body.args if not a.has(i)]
        if fixed:
            rest = sp.Add(*[a for a in body.args if a.has(i)])
            return sp.Add(*fixed) + max_over(rest, i, lo, hi, largest)
    if isinstance(body, sp.Mul):
        fixed = sp.Mul(*[a for a in body.args if not a.has(i)])
        if fixed != 1:
            rest = sp.Mul(*[a for a in body.args if a.has(i)])
            if fixed.is_nonnegative:
                return fixed * max_over(rest, i, lo, hi, largest)
            if fixed.is_nonpositive:
                return fixed * max_over(rest, i, lo, hi, not largest)
    choice = _as_choice(body)
    if choice is not None and not choice[0].has(i) and not choice[2].has(i):
        then, cond, other = choice
        count = count_where(cond, i, lo, hi)
        if count is not None:
            # each branch counts only if some index takes it (the range is not empty)
            rest = _length(lo, hi) - count
            return outer(sp.Piecewise((then, sp.Ge(count, 1)), (other, True)),
                         sp.Piecewise((other, sp.Ge(rest, 1)), (then, True)))
    end = _monotone_end(body, i, lo, hi, largest)
    if end is not None:
        return end
    return cls(body, (i, lo, hi))


# ---------------------------------------------------------------------------------------------
# Load vectors and omega


def _fold(term: LoadTerm) -> LoadTerm:
    """Sum out every index the resource key does not depend on (loads on one resource add up)."""
    weight, limits = term.weight, list(term.limits)
    while True:  # an index no other bound depends on
        k = next((k for k, (idx, _, _) in enumerate(limits) if not term.key.has(idx) and not any(
            lo.has(idx) or hi.has(idx) for _, lo, hi in limits[:k] + limits[k + 1:])), None)
        if k is None:
            return LoadTerm(weight, term.key, tuple(limits))
        idx, lo, hi = limits.pop(k)
        weight = sum_over(weight, idx, lo, hi)


def _canonical(term: LoadTerm) -> LoadTerm:
    """Rename the bound indices of a term to _k0, _k1, ... so equal mappings compare equal."""
    mapping = {idx: index_symbol(f"_k{n}") for n, (idx, _, _) in enumerate(term.limits)}
    if not mapping:
        return term
    limits = tuple((mapping[idx], lo.xreplace(mapping), hi.xreplace(mapping)) for idx, lo, hi in term.limits)
    return LoadTerm(term.weight.xreplace(mapping), term.key.xreplace(mapping), limits)


def _terms(vector: sp.Expr) -> list[LoadTerm]:
    """The folded, merged terms of a load vector: one per (resource key, index range)."""
    merged: dict[tuple[sp.Expr, tuple[Limit, ...]], sp.Expr] = {}
    for term in load_terms(vector):
        term = _canonical(_fold(term))
        key = (sp.simplify(term.key) if term.key.has(sp.Mod) else term.key, term.limits)
        merged[key] = merged.get(key, sp.Integer(0)) + term.weight
    return [LoadTerm(neat(w), k, lim) for (k, lim), w in merged.items() if w != 0]


def _as_vector(terms: list[LoadTerm]) -> sp.Expr:
    out = []
    for t in terms:
        expr = t.weight * UnitVec(t.key)
        for limit in t.limits:
            expr = sp.Sum(expr, limit)
        out.append(expr)
    return sp.Add(*out)


def simplify_vector(vector: sp.Expr) -> sp.Expr:
    """A load vector summed per resource (terms on the same resource merged)."""
    if vector == 0:
        return sp.Integer(0)
    try:
        return _as_vector(_terms(vector))
    except ValueError:
        return vector


def omega(vector: sp.Expr) -> sp.Expr:
    """The largest element of a load vector (omega), in closed form where the rules allow, else ``VMax(vector)``."""
    if vector == 0:
        return sp.Integer(0)
    try:
        terms = _terms(vector)
    except ValueError:
        return VMax(vector)
    if not terms:
        return sp.Integer(0)
    fixed = [t for t in terms if not t.limits]
    spread = [t for t in terms if t.limits]
    # resources provably distinct: their difference is not zero
    if any(sp.simplify(a.key - b.key).is_zero is not False for a, b in itertools.combinations(fixed, 2)):
        return VMax(_as_vector(terms))
    if not spread:
        return sp.Max(*[t.weight for t in fixed])
    if len(spread) > 1 or len(spread[0].limits) != 1:
        return VMax(_as_vector(terms))
    term = spread[0]
    i, lo, hi = term.limits[0]
    inj = _linear(term.key, i)  # the term maps index i to resource alpha * i + beta
    if inj is not None:
        alpha, beta = inj
        loads = [max_over(term.weight, i, lo, hi)]
        for f in fixed:
            at = (f.key - beta) / alpha  # the index that lands on this fixed resource, if any
            outside = sp.Or(sp.Lt(at, lo), sp.Gt(at, hi))
            if outside is sp.true or (at.is_integer is False):
                loads.append(f.weight)
            elif sp.And(sp.Ge(at, lo), sp.Le(at, hi)) is sp.true and at.is_integer:
                loads.append(f.weight + term.weight.xreplace({i: at}))
            else:
                return VMax(_as_vector(terms))
        return sp.Max(*loads)
    # the term maps consecutive indices, each with the same weight, to resource (i + c) mod m
    key = term.key
    lin = _linear(key.args[0], i) if isinstance(key, sp.Mod) and not key.args[1].has(i) else None
    if lin is not None and abs(lin[0]) == 1 and not term.weight.has(i):
        m = key.args[1]
        loads = [term.weight * sp.ceiling(_length(lo, hi) / m)]
        for f in fixed:
            if f.key.is_negative is True or (f.key - m).is_nonnegative is True:
                loads.append(f.weight)
            else:
                return VMax(_as_vector(terms))
        return sp.Max(*loads)
    return VMax(_as_vector(terms))


# ---------------------------------------------------------------------------------------------
# The whole expression


def _bottom_up(expr: sp.Basic, rewrite: Callable[[sp.Basic, Callable], sp.Basic]) -> sp.Basic:
    """``rewrite(e, walk)`` of every node, once per distinct node; ``walk`` rewrites the node's parts."""
    memo: dict[sp.Basic, sp.Basic] = {}

    def walk(e: sp.Basic) -> sp.Basic:
        if e not in memo:
            memo[e] = rewrite(e, walk)
        return memo[e]

    return walk(expr)


def simplify(expr: sp.Expr) -> sp.Expr:
    """Rewrite a compiled expression bottom-up with the rules above, then tidy the arithmetic."""
    return neat(_bottom_up(expr, _rewrite))


def neat(expr: sp.Basic) -> sp.Basic:
    """Each sum and product in its shortest form among as-is, expanded and factored."""
    return _bottom_up(expr, _neat)


def _neat(e: sp.Basic, walk: Callable[[sp.Basic], sp.Basic]) -> sp.Basic:
    if e.is_Atom or isinstance(e, (sp.Sum, MaxOver, MinOver, VMax)):
        return e
    args = [walk(a) for a in e.args]
    out = e if all(a is b for a, b in zip(args, e.args)) else rebuilt(e, args)
    if isinstance(out, (sp.Add, sp.Mul)) and not is_vector(out) and not _has_extrema_of_symbols(out):
        expanded = sp.expand(out)
        candidates = [out, expanded]
        if expanded.is_polynomial() and not expanded.has(sp.Piecewise, sp.Max, sp.Min, sp.floor,
                                                         sp.ceiling, sp.Mod):
            candidates.append(_tidy(expanded))
        out = min(candidates, key=sp.count_ops)
    return out


def _has_extrema_of_symbols(e: sp.Basic) -> bool:
    """Whether ``e`` holds a max or min of terms with more than one symbol: expanding products
    of such terms makes SymPy compare every pair of their arguments (seconds per model) and
    rarely shortens them."""
    return any(len(m.free_symbols) > 1 for m in e.atoms(sp.Max, sp.Min))


def _rewrite(e: sp.Basic, walk: Callable[[sp.Basic], sp.Basic]) -> sp.Basic:
    if e.is_Atom:
        return e
    if isinstance(e, (sp.Sum, MaxOver, MinOver)):
        body = walk(e.function)
        for idx, lo, hi in e.limits:
            lo, hi = walk(lo), walk(hi)
            if isinstance(e, sp.Sum):
                body = sum_over(body, idx, lo, hi)
            else:
                body = max_over(body, idx, lo, hi, largest=isinstance(e, MaxOver))
        return body
    if isinstance(e, VMax):
        return omega(walk(e.args[0]))
    args = [walk(a) for a in e.args]
    if all(a is b for a, b in zip(args, e.args)):
        return e
    return rebuilt(e, args)
