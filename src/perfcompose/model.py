"""The one kind of object every part of perfcompose produces: a performance :class:`Model`.

A model is a SymPy expression over named positive parameters (x = input size, n = threads, ...)
with metadata (unit, source, fit statistics). It evaluates vectorised, knows its asymptotic order
per parameter, composes with ``+``, ``*``, ``/`` and :func:`perfcompose.model_maximum.maximum`, prints as
plain text, Extra-P syntax or LaTeX, and round-trips through JSON exactly.
"""
from __future__ import annotations

import dataclasses
import json
import math
import numbers
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np
import sympy as sp
from sympy.utilities.lambdify import implemented_function

from perfcompose.ensemble import LinearEnsemble, percentile_interval
from perfcompose.errors import ModelError, ModelSyntaxError
from perfcompose.expression_reader import float64, names_in, parse_expression, parse_srepr, symbol
from perfcompose.model_printing import ExtrapPrinter, LaTeXPrinter, Log2, PlainPrinter, display_form
from perfcompose.pmnf_text import extrap_text, pmnf_factors
from perfcompose.units import ROLES, conversion, merge_roles

__all__ = ["Model", "PMNFTerm", "Order", "symbol", "parse_expression", "MODEL_FORMAT", "FIT_FORMAT"]

#: the most terms of a sum compiled as one expression (see Model._compiled)
LARGEST_COMPILED_SUM = 100
#: the format of a model's JSON record, written with SymPy's exact ``srepr`` and read as data
MODEL_FORMAT = "perfcompose-model/1"
#: the records of ``perfcompose fit --json``: one fitted model of a region and metric each
FIT_FORMAT = "perfcompose-fit/1"


# -- PMNF structure: terms c * prod(p^i * log2(p)^j) and the asymptotic order per parameter ----


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


def _json_number(v: Any) -> Any:
    if isinstance(v, (float, np.floating)):
        return float(v) if math.isfinite(v) else None
    return int(v) if isinstance(v, (int, np.integer)) else v


def _arithmetic(op: Callable[[Any, Any], Any], kind: str, reverse: bool = False) -> Callable[[Model, Any], Model]:
    """The method of an arithmetic operator: ``op`` of the two models' expressions, units by ``kind``."""
    return lambda self, other: self._combine(other, op, kind, reverse)


@dataclass(frozen=True, eq=False)
class Model:
    """A performance model: a SymPy expression over named positive parameters, plus metadata.

    >>> m = Model.parse("1034.17 * x * log2(x) + 5422.97", unit="ns")
    >>> round(float(m(x=1024)))
    10595324
    """

    expr: sp.Expr
    params: tuple[str, ...] = ()
    unit: str = "s"
    source: str = ""
    name: str = ""
    stats: Mapping[str, float] = field(default_factory=dict)
    roles: Mapping[str, str] = field(default_factory=dict)
    #: how sure the model is (perfcompose.ensemble): None for an exact model
    ensemble: Any = None

    def __post_init__(self) -> None:
        expr = self.expr
        if isinstance(expr, (int, float, Fraction, np.number)):
            expr = sp.Float(float(expr)) if isinstance(expr, (float, np.floating)) else sp.sympify(expr)
        if not isinstance(expr, sp.Expr):
            raise ModelError(f"a model needs a SymPy expression, got {type(expr).__name__}")
        renames = {s: symbol(s.name) for s in expr.free_symbols if not s.is_positive}
        expr = float64(expr.xreplace(renames) if renames else expr)
        object.__setattr__(self, "expr", expr)
        names = list(self.params) + sorted(s.name for s in expr.free_symbols)
        object.__setattr__(self, "params", tuple(dict.fromkeys(names)))
        object.__setattr__(self, "stats", dict(self.stats))
        unknown = [r for r in self.roles.values() if r not in ROLES]
        if unknown:
            raise ModelError(f"unknown parameter role {unknown[0]!r}; roles: {', '.join(ROLES)}")
        object.__setattr__(self, "roles", {k: v for k, v in self.roles.items() if k in self.params})

    # -- construction -----------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str, *, params: Sequence[str] = (), unit: str = "s", source: str = "",
              name: str = "") -> Model:
        """Parse plain or Extra-P model text: ``Model.parse("5.2 + 0.51 * x^(3/2) * log2(x)^(1)")``."""
        expr = parse_expression(text)
        present = {s.name for s in expr.free_symbols}
        in_text = [n for n, _, _ in names_in(text) if n in present]
        return cls(expr, params=tuple(dict.fromkeys([*params, *in_text])), unit=unit, source=source,
                   name=name)

    @classmethod
    def constant(cls, value: float, *, params: Sequence[str] = (), unit: str = "s", **meta: Any) -> Model:
        """A model that does not depend on its parameters."""
        return cls(sp.Float(float(value)), params=tuple(params), unit=unit, **meta)

    @classmethod
    def from_terms(cls, constant: float, terms: Iterable[tuple[float, Mapping[str, tuple[Any, Any]]]],
                   *, params: Sequence[str] = (), unit: str = "s", **meta: Any) -> Model:
        """Build ``c0 + sum c * prod(p^i * log2(p)^j)`` from coefficients and exponent pairs."""
        expr: sp.Expr = sp.Float(float(constant))
        for coef, exps in terms:
            factor: sp.Expr = sp.Float(float(coef))
            for pname, (i, j) in exps.items():
                p = symbol(pname)
                factor = factor * p ** sp.Rational(Fraction(i)) * sp.log(p, 2) ** sp.Rational(Fraction(j))
            expr = expr + factor
        return cls(expr, params=tuple(params), unit=unit, **meta)

    @classmethod
    def numeric(cls, name: str, func: Callable[..., Any], params: Sequence[str], *,
                vectorized: bool = True, unit: str = "s", source: str = "",
                record: Callable[[], Mapping[str, Any]] | None = None, **meta: Any) -> Model:
        """Wrap a model that exists only numerically (spline, simulation) as a SymPy function.

        It composes and evaluates like any other model and prints as ``name(params)``.
        ``func`` takes one array per parameter; pass ``vectorized=False`` for a scalar function.
        ``record`` gives the JSON record of the function's source (a simulation's inputs), which
        rebuilds the function: a model holding it is written to JSON with that record
        (:meth:`to_json`), wherever composition puts it.
        """
        if not name.isidentifier():
            raise ModelError(f"a numeric model needs an identifier as name, got {name!r}")
        impl = func if vectorized else np.vectorize(func, otypes=[float])
        f = implemented_function(sp.Function(name), impl)
        if record is not None:
            f._record_ = staticmethod(record)
        return cls(f(*[symbol(p) for p in params]), params=tuple(params), unit=unit, source=source,
                   name=name, **meta)

    def with_meta(self, **changes: Any) -> Model:
        """A copy with some metadata (unit, source, name, stats) replaced."""
        if ("expr" in changes or "params" in changes) and "ensemble" not in changes:
            changes["ensemble"] = None  # the members described the old expression
        return dataclasses.replace(self, **changes)

    def interval(self, points: Mapping[str, Any] | None = None, level: float = 0.9,
                 **values: Any) -> tuple[np.ndarray, np.ndarray] | tuple[float, float] | None:
        """The central ``level`` interval of the prediction at the given values, ``(low, high)``
        (arrays, or floats at a single point); None for a model without an ensemble (exact)."""
        if self.ensemble is None:
            return None
        lo, hi = percentile_interval(self.ensemble.members(**{**(points or {}), **values}), level)
        return (float(lo), float(hi)) if np.ndim(lo) == 0 else (lo, hi)

    @property
    def label(self) -> str:
        """How messages name this model: its name and source, or its text."""
        if self.name and self.source:
            return f"'{self.name}' ({self.source})"
        return f"'{self.name}'" if self.name else f"'{self}'"

    def in_unit(self, unit: str) -> Model:
        """The same model in another time unit (s, ms, us, ns, cycles@CLOCK); a model without a
        unit cannot be converted to a timed one, nor the other way."""
        if unit == self.unit:
            return self
        if not unit or not self.unit:
            raise ModelError(f"model {self.label} is in '{self.unit or 'no unit'}', and '{unit or 'no unit'}' "
                             "is wanted: give the model a time unit (unit = \"us\" in its component table, "
                             "or --unit)")
        factor = conversion(self.unit, unit)
        return self.with_meta(expr=self.expr * sp.Float(factor) if factor != 1.0 else self.expr, unit=unit,
                              ensemble=None if self.ensemble is None else self.ensemble.scaled(factor))

    def bind(self, mapping: Mapping[str, Any]) -> Model:
        """Rename or fix parameters: ``{"N": "x", "P": 4}`` replaces N by the design's x and P by 4.

        Values are numbers, parameter names or expressions in the design's parameters; a parameter
        bound to a plain name passes its role on to that name.
        """
        unknown = [k for k in mapping if k not in self.params]
        if unknown:
            raise ModelError(f"cannot bind {', '.join(unknown)}: not a parameter of {self.label} "
                             f"(parameters: {', '.join(self.params) or 'none'})")
        subs: dict[sp.Symbol, sp.Expr] = {}
        roles = {k: v for k, v in self.roles.items() if k not in mapping}
        new_params: list[str] = []
        for name, value in mapping.items():
            if isinstance(value, bool) or not isinstance(value, (str, int, float, sp.Expr)):
                raise ModelError(f"bind {name}: give a number, a parameter name or an expression, got {value!r}")
            if isinstance(value, str):
                expr = parse_expression(value)
            elif isinstance(value, sp.Expr):
                expr = value
            else:
                if not math.isfinite(float(value)) or float(value) <= 0:
                    raise ModelError(f"bind {name} = {value!r}: parameters are positive numbers")
                expr = sp.Float(float(value)) if isinstance(value, float) else sp.Integer(value)
            subs[symbol(name)] = expr
            new_params += sorted(s.name for s in expr.free_symbols)
            if isinstance(expr, sp.Symbol) and name in self.roles:
                roles = merge_roles(roles, {expr.name: self.roles[name]}, first_name=self.label,
                                    second_name=f"the binding {name} = {expr.name}")
        params = [p for p in self.params if p not in mapping] + new_params
        return self.with_meta(expr=self.expr.xreplace(subs), params=tuple(dict.fromkeys(params)), roles=roles,
                              ensemble=None if self.ensemble is None else self.ensemble.bind(mapping))

    # -- evaluation -------------------------------------------------------------------------

    @cached_property
    def _compiled(self) -> Callable[..., Any]:
        if self.is_numeric:
            self.numeric_parts()  # two different functions of one name cannot be told apart
        syms = [symbol(p) for p in self.params]
        # no docstring: printing the expression into it costs more than generating the code;
        # the module itself, not "numpy": the name makes SymPy import every NumPy submodule
        terms = self.expr.args if isinstance(self.expr, sp.Add) else ()
        if len(terms) <= LARGEST_COMPILED_SUM:
            return sp.lambdify(syms, self.expr, modules=[np], docstring_limit=0)
        # a sum of thousands of terms (a profile's root composed from its call paths) is compiled
        # in parts: Python's compiler nests a + b + c ... one level per term and stops at its limit
        parts = [sp.lambdify(syms, sp.Add(*terms[k:k + LARGEST_COMPILED_SUM]), modules=[np], docstring_limit=0)
                 for k in range(0, len(terms), LARGEST_COMPILED_SUM)]
        return lambda *values: sum((part(*values) for part in parts[1:]), parts[0](*values))

    def __call__(self, **values: Any) -> Any:
        """Evaluate at the given parameter values (scalars or arrays, broadcast together)."""
        missing = [p for p in self.params if p not in values]
        if missing:
            raise ModelError(f"model {self} needs values for {', '.join(missing)} "
                             f"(got {', '.join(sorted(values)) or 'none'})")
        args = np.broadcast_arrays(*[np.asarray(values[p], dtype=float) for p in self.params])
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            result = self._compiled(*args)
        shape = args[0].shape if args else ()
        out = np.broadcast_to(np.asarray(result, dtype=float), shape).copy() if shape else \
            np.asarray(result, dtype=float)
        return float(out) if out.ndim == 0 else out

    # -- structure --------------------------------------------------------------------------

    @property
    def is_numeric(self) -> bool:
        """True when the model contains a function known only numerically."""
        return any(hasattr(f, "_imp_") for f in self.expr.atoms(sp.Function))

    def numeric_parts(self) -> dict[str, Callable[[], Mapping[str, Any]] | None]:
        """The functions known only numerically in the model, by name (sorted), each with what
        gives its source's record (see :meth:`numeric`), or None where it has none (a spline,
        an ensemble's members, a part without closed form)."""
        parts: dict[str, Callable[[], Mapping[str, Any]] | None] = {}
        seen: dict[str, Any] = {}
        for applied in sorted(self.expr.atoms(sp.Function), key=lambda f: str(f.func)):
            func = applied.func
            if not hasattr(func, "_imp_"):
                continue
            name = func.__name__
            if name in seen and seen[name] is not func:
                raise ModelError(f"model {self} holds two different functions named {name}: name the components "
                                 "apart")
            seen[name] = func
            parts[name] = getattr(func, "_record_", None)
        return parts

    def order(self, param: str) -> Order | None:
        """The dominant ``(i, j)`` of ``param^i * log2(param)^j``, or None if the model is not PMNF."""
        try:
            return order_of(self.expr, symbol(param))
        except NotPMNF:
            return None

    def order_text(self, param: str = "x") -> str:
        """The order in ``param`` as the tables print it: O(1), O(x log2(x)), or not PMNF (nor a numeric model)."""
        try:
            order = self.order(param)
        except Exception:  # numeric models have no closed order
            return "not PMNF"
        return "not PMNF" if order is None else "O(1)" if (order.i, order.j) == (0, 0) else f"O({order})"

    def terms(self) -> tuple[float, tuple[PMNFTerm, ...]] | None:
        """The PMNF decomposition ``(constant, terms)``, or None when the model is not PMNF."""
        return pmnf_terms(self.expr, set(self.params))

    # -- arithmetic -------------------------------------------------------------------------

    def _combine(self, other: Any, op: Callable[[sp.Expr, sp.Expr], sp.Expr], kind: str,
                 reverse: bool = False) -> Model:
        roles = dict(self.roles)
        if isinstance(other, Model):
            if kind == "add" and self.unit != other.unit:
                other = other.in_unit(self.unit) if (self.unit and other.unit) else other
                if bool(self.unit) != bool(other.unit):
                    raise ModelError(f"cannot add {other.label if self.unit else self.label}, which has no unit, "
                                     f"to a model in {self.unit or other.unit}: give it a time unit")
            roles = merge_roles(self.roles, other.roles, first_name=self.label, second_name=other.label)
            oexpr, oparams = other.expr, other.params
            if kind == "add":
                unit = self.unit or other.unit
            elif kind == "mul":
                unit = "*".join(u for u in (self.unit, other.unit) if u)
            else:
                unit = self.unit if not other.unit else (f"{self.unit}/{other.unit}" if not reverse
                                                         else f"{other.unit}/{self.unit}")
        elif isinstance(other, (numbers.Real, np.number)):
            oexpr, oparams = (sp.Float(float(other)) if isinstance(other, (float, np.floating))
                              else sp.Integer(int(other))), ()  # type: ignore[arg-type]  # an integral number
            unit = (f"1/{self.unit}" if self.unit else "") if kind == "div" and reverse else self.unit
        elif isinstance(other, sp.Expr):
            oexpr, oparams, unit = other, (), self.unit
        else:
            return NotImplemented
        left, right = (oexpr, self.expr) if reverse else (self.expr, oexpr)
        return Model(op(left, right), params=self.params + tuple(oparams), unit=unit, roles=roles)

    __add__, __radd__ = _arithmetic(operator.add, "add"), _arithmetic(operator.add, "add", reverse=True)
    __sub__, __rsub__ = _arithmetic(operator.sub, "add"), _arithmetic(operator.sub, "add", reverse=True)
    __mul__, __rmul__ = _arithmetic(operator.mul, "mul"), _arithmetic(operator.mul, "mul", reverse=True)
    __rtruediv__ = _arithmetic(operator.truediv, "div", reverse=True)

    def __truediv__(self, other: Any) -> Model:
        if isinstance(other, (numbers.Real, np.number)) and float(other) == 0.0:
            raise ModelError("division of a model by zero")
        return self._combine(other, operator.truediv, "div")

    def __neg__(self) -> Model:
        return Model(-self.expr, params=self.params, unit=self.unit, roles=self.roles)

    def subs(self, **values: Any) -> Model:
        """Fix some parameters: ``m.subs(n=4)`` is the model in the remaining parameters."""
        mapping = {symbol(k): (sp.Float(float(v)) if isinstance(v, float) else sp.sympify(v))
                   for k, v in values.items()}
        params = tuple(p for p in self.params if p not in values)
        return self.with_meta(expr=self.expr.xreplace(mapping), params=params)

    # -- equality ---------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Model):
            return NotImplemented
        return self.params == other.params and self.expr == other.expr

    def __hash__(self) -> int:
        return hash((self.params, self.expr))

    # -- formatting -------------------------------------------------------------------------

    def __str__(self) -> str:
        return PlainPrinter({"order": "none"}).doprint(display_form(self.expr))

    def __repr__(self) -> str:
        return f"Model({str(self)!r}, params={self.params!r}, unit={self.unit!r})"

    def rounded(self, digits: int = 4) -> Model:
        """The model with every coefficient rounded to ``digits`` significant digits, for tables."""
        floats = {f: sp.Float(float(f"{float(f):.{digits}g}")) for f in self.expr.atoms(sp.Float)}
        return self.with_meta(expr=self.expr.xreplace(floats))

    def to_extrap(self, digits: int | None = None) -> str:
        """The model in Extra-P's syntax, e.g. ``5.2 + 0.51 * x^(3/2) * log2(x)^(1)``.

        Coefficients are exact (shortest round-trip form) unless ``digits`` asks for fewer. A
        two-piece model (``left`` up to ``x = b``, ``right`` above) reads ``left  if x <= b;  right  otherwise``.
        """
        if isinstance(self.expr, sp.Piecewise) and len(self.expr.args) == 2 and self.expr.args[1][1] == sp.true:
            (left, cond), (right, _) = self.expr.args
            if isinstance(cond, sp.LessThan) and cond.lhs.is_Symbol and cond.rhs.is_number:
                piece = [Model(e, params=self.params).to_extrap(digits) for e in (left, right)]
                return f"{piece[0]}  if {cond.lhs} <= {float(cond.rhs):.6g};  {piece[1]}  otherwise"
        decomposed = self.terms()
        if decomposed is None:
            return ExtrapPrinter({"order": "none"}).doprint(display_form(self.expr))
        constant, terms = decomposed
        return extrap_text(constant, [(t.coefficient, t.exponents) for t in terms], self.params, digits,
                           implicit_one=not self.expr.atoms(sp.Float))

    def to_latex(self) -> str:
        """LaTeX for papers and notebooks (coefficients to 6 significant digits)."""
        return LaTeXPrinter({"mul_symbol": "dot"}).doprint(display_form(self.expr))

    def _repr_latex_(self) -> str:
        return f"${self.to_latex()}$"

    # -- JSON -------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict; ``expr`` is SymPy's exact ``srepr``, ``text`` the readable form.

        A function known only numerically is written as its name applied to its arguments, with
        its source's record under ``functions`` (a LogGP program and its parameters, a skeleton's
        runtime table); a model with such a function that has no record (a spline, an ensemble's
        members, a PAMELA sum without closed form) cannot be written.
        """
        parts = self.numeric_parts()
        unwritable = [name for name, rec in parts.items() if rec is None]
        if unwritable:
            raise ModelError(f"model {self} contains {', '.join(unwritable)}, known only by numbers that no record "
                             "describes, and cannot be written to JSON; write the records of its parts instead "
                             "(fit --json, pamela compile --json, loggp simulate --model-json, skeleton forecast "
                             "--json) and compose them where they are read")
        record: dict[str, Any] = {"format": MODEL_FORMAT, "text": str(self), "expr": sp.srepr(self.expr),
                                  "parameters": list(self.params), "unit": self.unit}
        if parts:
            record["functions"] = {name: dict(rec()) for name, rec in parts.items() if rec is not None}
        for key in ("source", "name"):
            if getattr(self, key):
                record[key] = getattr(self, key)
        if self.stats:
            record["stats"] = {k: _json_number(v) for k, v in self.stats.items()}
        if self.roles:
            record["roles"] = dict(self.roles)
        if isinstance(self.ensemble, LinearEnsemble):   # the other kinds are rebuilt by the sources' readers
            record["ensemble"] = self.ensemble.to_json()
        return record

    def to_json_text(self) -> str:
        return json.dumps(self.to_json(), indent=2)

    @classmethod
    def from_json(cls, record: Mapping[str, Any] | str,
                  functions: Mapping[str, Any] | None = None) -> Model:
        """Rebuild a model from :meth:`to_json` output (a dict or its JSON text).

        A record with ``functions`` needs them rebuilt from their records by the reader that
        knows their sources: ``functions`` maps each name to the function (the ``func`` of a
        numeric model's expression; :mod:`perfcompose.compose.components` reads such files).
        """
        if isinstance(record, str):
            try:
                record = json.loads(record)
            except json.JSONDecodeError as exc:
                raise ModelSyntaxError(f"not JSON: {exc.msg}", line=exc.lineno, column=exc.colno) from None
        if not isinstance(record, Mapping):
            raise ModelSyntaxError("a model record must be a JSON object")
        wanted = record.get("functions") or {}
        if not isinstance(wanted, Mapping):
            raise ModelSyntaxError("'functions' must map function names to their records")
        missing = [name for name in wanted if name not in (functions or {})]
        if missing:
            raise ModelSyntaxError(f"the model holds {', '.join(missing)}, known only numerically; read it as a "
                                   "component (-c NAME=FILE or a design's file = ...), which rebuilds "
                                   f"{'them' if len(missing) > 1 else 'it'} from the records in the file")
        if "expr" in record:
            expr = parse_srepr(str(record["expr"]), {k: v for k, v in (functions or {}).items() if k in wanted})
        elif "text" in record:
            expr = parse_expression(str(record["text"]))
        else:
            raise ModelSyntaxError("a model record needs 'expr' or 'text'")
        raw_stats = record.get("stats", {})
        if not isinstance(raw_stats, Mapping) or not all(
                v is None or isinstance(v, (int, float)) and not isinstance(v, bool) for v in raw_stats.values()):
            raise ModelSyntaxError("'stats' must map names to numbers (or null)", hint="e.g. \"stats\": {\"rss\": 0.5}")
        stats = {str(k): float(v) if v is not None else math.nan for k, v in raw_stats.items()}
        roles = record.get("roles", {})
        if not isinstance(roles, Mapping) or not all(isinstance(v, str) for v in roles.values()):
            raise ModelSyntaxError("'roles' must map parameter names to roles", hint="roles: " + ", ".join(ROLES))
        ensemble = (LinearEnsemble.from_json(record["ensemble"], lambda text, names: cls.parse(text, params=names))
                    if "ensemble" in record else None)
        params = record.get("parameters", ())
        if not isinstance(params, (list, tuple)) or not all(isinstance(p, str) for p in params):
            raise ModelSyntaxError("'parameters' must be a list of parameter names")
        return cls(expr, params=tuple(params), unit=str(record.get("unit", "s")),
                   source=str(record.get("source", "")), name=str(record.get("name", "")), stats=stats,
                   roles=dict(roles), ensemble=ensemble)
