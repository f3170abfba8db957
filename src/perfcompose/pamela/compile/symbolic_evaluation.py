"""Exact evaluation of compiled PAMELA expressions: closed forms through ``lambdify``; what the
simplifier left (a sum or max over an index, a vector's largest element) as loops over the
integers of each range, the innermost vectorised by NumPy, loads accumulated per resource.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import sympy as sp
from sympy.utilities.lambdify import implemented_function

from perfcompose.errors import InputError
from perfcompose.limits import WorkTooLarge, check_memory, limits
from perfcompose.model import symbol
from perfcompose.pamela.compile.point_evaluation import load_list, no_values
from perfcompose.pamela.compile.symbolic import MaxOver, MinOver, VMax, free_symbols, load_terms
from perfcompose.pamela.language.syntax import PamelaError

__all__ = ["Evaluator", "evaluate", "evaluate_loads", "fast_function", "is_closed", "load_list", "with_residuals"]

_REDUCTIONS = (sp.Sum, MaxOver, MinOver, VMax)
Env = dict[sp.Symbol, Any]
Fn = Callable[[Env], Any]
# the NumPy reduction of each kind of reduction
_REDUCE: dict[type, Callable[..., Any]] = {sp.Sum: np.sum, MaxOver: np.max, MinOver: np.min}
#: the same in Python, for values computed one at a time (a sum from 0.0, left to right)
_FOLD: dict[type, Callable[..., Any]] = {sp.Sum: lambda values: sum(values, 0.0), MaxOver: max, MinOver: min}
_RESIDUAL_IDS = itertools.count(1)


def is_closed(expr: sp.Expr) -> bool:
    """True when no reduction (sum, max over an index, vector max) is left in ``expr``."""
    return not expr.has(*_REDUCTIONS)


def _top_reductions(expr: sp.Basic) -> list[sp.Basic]:
    """The reductions in ``expr`` that are not inside another reduction."""
    if isinstance(expr, _REDUCTIONS):
        return [expr]
    return list(dict.fromkeys(r for arg in expr.args for r in _top_reductions(arg)))


def _sorted_symbols(expr: sp.Basic) -> list[sp.Symbol]:
    return sorted(free_symbols(expr), key=lambda s: s.name)


#: steps (as ``--max-steps`` counts them) of one index value: summed by NumPy, one term of a load
#: vector, one turn of a loop in Python; and of one resource a load vector loads
VALUE_STEPS, TERM_STEPS, TURN_STEPS, RESOURCE_STEPS = 1.0, 100.0, 1000.0, 1000.0
_spent = [0.0]  # steps taken by the evaluation under way


def _charge(steps: float, what: str, names: set[sp.Basic]) -> None:
    """Count ``steps`` towards the evaluation under way; refuse, naming ``names``' parameters,
    beyond the step limit."""
    _spent[0] += steps
    if _spent[0] > limits().steps:
        params = ", ".join(sorted(s.name for s in names if s.is_positive)) or "the parameters"
        raise WorkTooLarge(f"{what} makes about {_spent[0]:.3g} steps of evaluation; the limit is "
                           f"{limits().steps:.3g}", hint=f"make {params} smaller, or raise the limit: "
                           "perfcompose --max-steps 1e11 pamela ... (or --no-limits)")


def _range(lo: float, hi: float, bounds: tuple[sp.Basic, sp.Basic, sp.Basic], cost: float) -> tuple[int, int]:
    """The integers in ``[lo, hi]`` as a half-open ``(start, stop)``, charged ``cost`` steps each;
    ``bounds``: the index and its bounds as written."""
    idx, lo_e, hi_e = bounds
    names = free_symbols(sp.Tuple(lo_e, hi_e))
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise InputError(f"the index range {idx} = {lo_e} .. {hi_e} runs from {lo:g} to {hi:g}, which is not finite",
                         hint="give the parameters finite values")
    start, stop = math.ceil(lo - 1e-9), math.floor(hi + 1e-9) + 1
    n = max(0, stop - start)
    _charge(n * cost, f"the index range {idx} = {lo_e} .. {hi_e} of {n:.3g} values", names)
    # each index of a range becomes a few float64 arrays (indices, values, keys, weights)
    check_memory(n * 8.0 * 4, f"the index range {idx} = {lo_e} .. {hi_e} of {n:.3g} values")
    return start, max(start, stop)


class Evaluator:
    """Compiles expressions (once each) into closures over an environment of symbol values."""

    def __init__(self) -> None:
        self._scalar: dict[sp.Basic, Fn] = {}
        self._vector: dict[sp.Basic, Fn] = {}

    # -- scalars ----------------------------------------------------------------------------

    def scalar(self, expr: sp.Basic) -> Fn:
        return self._scalar.get(expr) or self._scalar.setdefault(expr, self._compile_scalar(expr))

    def _compile_scalar(self, expr: sp.Basic) -> Fn:
        if is_closed(expr) and expr.is_number:
            value = float(expr)
            return lambda env: value
        if isinstance(expr, sp.Symbol):
            return lambda env: env[expr]
        if isinstance(expr, (sp.Sum, MaxOver, MinOver)):
            return self._reduction(expr)
        if isinstance(expr, VMax):
            loads = self.vector(expr.args[0])

            def vmax(env: Env) -> float:
                keys, weights = loads(env)
                return float(np.max(_per_resource(keys, weights)[1])) if len(keys) else 0.0
            return vmax
        if is_closed(expr):
            syms = _sorted_symbols(expr)
            f = sp.lambdify(syms, expr, modules=["math"])
            return lambda env: f(*[env[s] for s in syms])
        # an ordinary operation over parts some of which are reductions
        holes = {r: sp.Dummy("r") for r in _top_reductions(expr)}
        skeleton = expr.xreplace(holes)
        syms = _sorted_symbols(skeleton)
        parts = {h: self.scalar(r) for r, h in holes.items()}
        f = sp.lambdify(syms, skeleton, modules=["math"])

        def combined(env: Env) -> float:
            local = {**env, **{h: fn(env) for h, fn in parts.items()}}
            return f(*[local[s] for s in syms])
        return combined

    def _reduction(self, expr: sp.Basic) -> Fn:
        limits = list(expr.limits)
        # nest one limit at a time (innermost first in SymPy's order)
        inner: sp.Basic = expr.function
        for idx, lo, hi in limits[:-1]:
            inner = type(expr)(inner, (idx, lo, hi))
        idx, lo, hi = limits[-1]
        reduce = _REDUCE[type(expr)]
        lo_f, hi_f = self.scalar(lo), self.scalar(hi)
        if is_closed(inner):
            syms = [s for s in _sorted_symbols(inner) if s != idx]
            f = sp.lambdify([idx, *syms], inner, modules=[np])

            def vectorised(env: Env) -> float:
                i = np.arange(*_range(lo_f(env), hi_f(env), (idx, lo, hi), VALUE_STEPS), dtype=np.int64)
                return float(reduce(_filled(f(i, *[env[s] for s in syms]), i.shape))) if len(i) else 0.0
            return vectorised
        grid = self._grid(inner, (idx, lo, hi), reduce, lo_f, hi_f) if len(limits) == 1 else None
        if grid is not None:
            return grid
        body_f = self.scalar(inner)
        fold = _FOLD[type(expr)]

        def looped(env: Env) -> float:
            start, stop = _range(lo_f(env), hi_f(env), (idx, lo, hi), TURN_STEPS)
            return float(fold(body_f({**env, idx: k}) for k in range(start, stop))) if stop > start else 0.0
        return looped

    def _grid(self, body: sp.Basic, bounds: tuple[sp.Symbol, sp.Basic, sp.Basic], reduce: Callable[..., Any],
              lo_f: Fn, hi_f: Fn) -> Fn | None:
        """A reduction over ``idx`` of a body whose own reductions run over closed bodies with
        bounds free of ``idx`` (``sum (k) max(a(k), max (p) b(k, p))``): every inner reduction
        evaluated at once on the (k, p) grid, so no Python loop runs over k. None otherwise."""
        idx = bounds[0]
        holes = _top_reductions(body)
        parts = []
        for r in holes:
            if not isinstance(r, (sp.Sum, MaxOver, MinOver)) or len(r.limits) != 1 or not is_closed(r.function):
                return None
            j, jlo, jhi = r.limits[0]
            if idx in free_symbols(jlo) or idx in free_symbols(jhi) or not (is_closed(jlo) and is_closed(jhi)):
                return None
            syms = [s for s in _sorted_symbols(r.function) if s not in (idx, j)]
            f = sp.lambdify([idx, j, *syms], r.function, modules=["numpy"])
            parts.append((f, syms, self.scalar(jlo), self.scalar(jhi), _REDUCE[type(r)], (j, jlo, jhi)))
        if not parts:
            return None
        dummies = [sp.Dummy("g") for _ in holes]
        skeleton = body.xreplace(dict(zip(holes, dummies)))
        outer = [s for s in _sorted_symbols(skeleton) if s != idx and s not in dummies]
        g = sp.lambdify([idx, *dummies, *outer], skeleton, modules=["numpy"])

        def grid(env: Env) -> float:
            start, stop = _range(lo_f(env), hi_f(env), bounds, VALUE_STEPS)
            if stop <= start:
                return 0.0
            ks = np.arange(start, stop, dtype=np.int64)
            values = []
            for f, syms, jlo_f, jhi_f, red, inner in parts:
                j0, j1 = _range(jlo_f(env), jhi_f(env), inner, VALUE_STEPS * len(ks))
                if j1 <= j0:
                    values.append(np.zeros(len(ks)))
                    continue
                check_memory(len(ks) * float(j1 - j0) * 8.0 * 4,
                             f"a nested index range of {len(ks)} x {j1 - j0} values")
                js = np.arange(j0, j1, dtype=np.int64)
                kk, jj = np.meshgrid(ks, js, indexing="ij")
                values.append(red(_filled(f(kk, jj, *[env[s] for s in syms]), kk.shape), axis=1))
            return float(reduce(_filled(g(ks, *values, *[env[s] for s in outer]), ks.shape)))
        return grid

    # -- load vectors -----------------------------------------------------------------------

    def vector(self, expr: sp.Basic) -> Callable[[Env], tuple[np.ndarray, np.ndarray]]:
        """A closure giving ``(keys, weights)`` arrays: resource index and load of every term."""
        return self._vector.get(expr) or self._vector.setdefault(expr, self._compile_vector(expr))

    def _compile_vector(self, expr: sp.Basic) -> Callable[[Env], tuple[np.ndarray, np.ndarray]]:
        terms = [self._term(t.weight, t.key, list(t.limits)) for t in load_terms(expr)]
        return lambda env: _joined([term(env) for term in terms])

    def _term(self, weight: sp.Expr, key: sp.Expr, limits: list) -> Callable[[Env], tuple[np.ndarray, np.ndarray]]:
        """``(keys, weights)`` of one term; ``limits`` innermost first."""
        if not limits:
            wf, kf = self.scalar(weight), self.scalar(key)
            return lambda env: (np.array([kf(env)], dtype=float), np.array([wf(env)], dtype=float))
        idx, lo, hi = limits[-1]  # the outermost index
        lo_f, hi_f = self.scalar(lo), self.scalar(hi)
        if len(limits) == 1 and is_closed(weight) and is_closed(key):
            syms = [s for s in _sorted_symbols(sp.Tuple(weight, key)) if s != idx]
            wf = sp.lambdify([idx, *syms], weight, modules=["numpy"])
            kf = sp.lambdify([idx, *syms], key, modules=["numpy"])

            def vectorised(env: Env) -> tuple[np.ndarray, np.ndarray]:
                i = np.arange(*_range(lo_f(env), hi_f(env), (idx, lo, hi), TERM_STEPS), dtype=np.int64)
                args = [env[s] for s in syms]
                return _filled(kf(i, *args), i.shape), _filled(wf(i, *args), i.shape)
            return vectorised
        inner = self._term(weight, key, limits[:-1])

        def looped(env: Env) -> tuple[np.ndarray, np.ndarray]:
            start, stop = _range(lo_f(env), hi_f(env), (idx, lo, hi), TURN_STEPS)
            return _joined([inner({**env, idx: v}) for v in range(start, stop)])
        return looped


def _filled(values: Any, shape: tuple[int, ...]) -> np.ndarray:
    """Values a lambdified expression gives on an index array (a constant one as a scalar) as floats of ``shape``."""
    return np.broadcast_to(np.asarray(values, dtype=float), shape)


def _joined(parts: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """The keys and the weights of several terms, each joined into one array."""
    keys, weights = zip((np.zeros(0), np.zeros(0)), *parts)
    return np.concatenate(keys), np.concatenate(weights)


def _per_resource(keys: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Loads summed per resource index; keys must be whole numbers below 2^62 in size."""
    beyond = ~(np.abs(keys) < 2.0 ** 62)
    if beyond.any():
        raise PamelaError(f"a resource index evaluates to {keys[beyond][0]:g}, beyond the indices perfcompose "
                          "counts (at most 2^62 in size)",
                          hint="check the parameters that index a resource, e.g. P in cpu(i mod P)")
    if len(keys) and not np.all(np.abs(keys - np.round(keys)) < 1e-9):
        bad = keys[np.abs(keys - np.round(keys)) >= 1e-9][0]
        raise PamelaError(f"a resource index evaluates to {bad:g}, which is not a whole number",
                          hint="resource indices (the first argument of fcfs) must be integers")
    ints = np.round(keys).astype(np.int64)
    low = int(ints.min())
    if int(ints.max()) - low < 4 * len(ints) + 1024:  # indices close together: counted, not sorted
        used = np.bincount(ints - low) > 0
        return np.flatnonzero(used) + low, np.bincount(ints - low, weights=weights)[used]
    uniq, inverse = np.unique(ints, return_inverse=True)
    return uniq, np.bincount(inverse, weights=weights, minlength=len(uniq))


_DEFAULT = Evaluator()


def _env(values: Mapping[str, float], fresh: bool = True) -> Env:
    """The symbols' values for an evaluation, whose count of steps starts here where ``fresh``."""
    if fresh:
        _spent[0] = 0.0
    floats = {symbol(name): float(v) for name, v in values.items()}
    return {s: int(v) if v.is_integer() and abs(v) < 2 ** 62 else v for s, v in floats.items()}


def _check_bound(expr: sp.Basic, values: Mapping[str, float]) -> None:
    missing = sorted(s.name for s in free_symbols(expr) if s.name not in values)
    if missing:
        raise no_values(missing, None, "every parameter a value")


def evaluate(expr: sp.Expr, values: Mapping[str, float]) -> float:
    """The exact value of a compiled expression at the given parameter values."""
    _check_bound(expr, values)
    return float(_DEFAULT.scalar(expr)(_env(values)))


def evaluate_loads(vector: sp.Expr, values: Mapping[str, float]) -> dict[int, float]:
    """The load of every resource index in a load vector (delta) at the given values."""
    if vector == 0:
        return {}
    _check_bound(vector, values)
    keys, weights = _DEFAULT.vector(vector)(_env(values))
    if len(keys) == 0:
        return {}
    uniq, loads = _per_resource(keys, weights)
    _charge(len(uniq) * RESOURCE_STEPS, f"a load vector of {len(uniq):,} resources", free_symbols(vector))
    return {int(k): float(v) for k, v in zip(uniq, loads)}


def with_residuals(expr: sp.Expr, name: str) -> sp.Expr:
    """``expr`` with every reduction left in it a numerically implemented function ``name_k(parameters)``:
    it lambdifies, so it can be the expression of a :class:`perfcompose.model.Model`."""
    if is_closed(expr):
        return expr
    replacements = {}
    for node in _top_reductions(expr):
        syms = _sorted_symbols(node)

        def impl(*args: float, _syms=syms, _fn=_DEFAULT.scalar(node)) -> float:
            return _fn(_env({s.name: a for s, a in zip(_syms, args)}))
        f = implemented_function(sp.Function(f"{name}_{next(_RESIDUAL_IDS)}"),
                                 np.vectorize(impl, otypes=[float]))
        replacements[node] = f(*[symbol(s.name) for s in syms])
    return expr.xreplace(replacements)


def fast_function(expr: sp.Expr, params: tuple[str, ...]) -> Callable[..., float]:
    """A scalar function of the parameters (positional, in ``params`` order) for tight loops."""
    syms = [symbol(p) for p in params]
    if is_closed(expr):
        return sp.lambdify(syms, expr, modules=["math"])
    fn = _DEFAULT.scalar(expr)
    _spent[0] = 0.0  # the function's calls count together: the points of a grid are one evaluation
    return lambda *args: float(fn(_env(dict(zip(params, args)), fresh=False)))

