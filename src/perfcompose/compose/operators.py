"""The composition operators M[.] of 000 (eqs. 2-7) and 003 (eqs. 1-3).

``compose(term, components)`` decomposes a term down to its components and applies the operators
bottom up; every result is a :class:`~perfcompose.model.Model`, symbolic in x and in any thread
or node count left symbolic. Components are converted to one time unit, and a parameter name
that would mean two things (an input size here, a thread count there) is refused.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import sympy as sp

from perfcompose.choices import PIPE_RULES, PipeRule
from perfcompose.compose.parser import TermSyntaxError, known_components_hint, parse_term
from perfcompose.compose.terms import Component, Count, MapReduce, Pipe, Seq, Shuffle, Term, TPool
from perfcompose.errors import ModelError
from perfcompose.model import Model, maximum, symbol
from perfcompose.units import merge_roles, seconds_per

#: the pipeline rule of every user-facing prediction: the exact max never loses a stage
DEFAULT_PIPE: PipeRule = "pointwise"

#: roles of parameters that count resources: held fixed when the asymptotic max compares growth
COUNT_ROLES = ("threads", "nodes", "processes")

__all__ = ["PipeRule", "DEFAULT_PIPE", "Composer", "PipeChoice", "PipeWarning", "compose",
           "seq_model", "tpool_model", "pipe_model", "shuffle_model", "mapreduce_model"]


def _count(c: Count) -> sp.Expr:
    return sp.Integer(c) if isinstance(c, int) else symbol(c)


def seq_model(first: Model, second: Model) -> Model:
    """Eq. 2 of 000: ``M[seq(f1, f2)] = M[f1] + M[f2]``."""
    return first + second


def tpool_model(threads: Count, body: Model) -> Model:
    """Eq. 3 of 000: ``M[tpool_n(task)] = M[task] / n``; a symbolic ``n`` is a thread count."""
    n = _count(threads)
    roles = dict(body.roles)
    if isinstance(threads, str):
        roles = merge_roles(body.roles, {threads: "threads"}, first_name=body.label,
                            second_name=f"tpool_{threads}")
    return Model(body.expr / n, params=body.params + (() if isinstance(threads, int) else (threads,)),
                 unit=body.unit, roles=roles)


def pipe_model(first: Model, second: Model, how: PipeRule = "asymptotic", size: str = "x") -> Model:
    """Eq. 4 of 000 / eq. 3 of 003: the slower stage, by asymptotic order in ``size``.

    Thread, node and process counts are held fixed; a stage that loses in ``size`` but grows
    faster in another parameter keeps both stages (the exact max). ``how="pointwise"`` always
    gives the exact ``Max`` of the two stages.
    """
    fixed = [p for p, r in {**first.roles, **second.roles}.items() if r in COUNT_ROLES]
    return maximum(first, second, how=how, param=size, fixed=fixed)


def shuffle_model(shuffle: Shuffle, per_key: sp.Expr, components: Mapping[str, Model], unit: str,
                  size: str = "x") -> Model:
    """``M[shuffle^o_{m,n}](d(x))``.

    A named shuffle component is evaluated at d(x) (its symbols o, m, n, if any, take the term's
    values). Otherwise eq. 7 of 000: ``(m n - 1)/(m n) * o * bytes * d(x) / bandwidth``, the bytes
    that must cross between the m x n workers. On one node (m = 1) with neither given the
    shuffle is free, as in GrPPi's shared-memory MapReduce (eq. 6).
    """
    x = symbol(size)
    m, n = _count(shuffle.m), _count(shuffle.n)
    if shuffle.model is not None:
        comp = components[shuffle.model]
        mapping = {x: per_key, symbol("o"): shuffle.keys, symbol("m"): m, symbol("n"): n}
        expr = comp.expr.xreplace({k: v for k, v in mapping.items() if k in comp.expr.free_symbols})
        return Model(expr, unit=comp.unit).in_unit(unit)
    if shuffle.bandwidth is not None:
        per_unit = seconds_per(unit)
        if per_unit is None:
            raise ModelError("a shuffle from bandwidth needs components with a time unit (s, ms, us, ns)")
        seconds = (m * n - 1) / (m * n) * shuffle.keys * sp.Float(shuffle.pair_bytes) * per_key / \
            sp.Float(shuffle.bandwidth)
        return Model(seconds / sp.Float(per_unit), unit=unit)
    if shuffle.m == 1:
        return Model(sp.Integer(0), unit=unit)
    raise ModelError(f"a mapreduce on m={shuffle.m} nodes needs a shuffle model",)


def mapreduce_model(term: MapReduce, map_model: Model, reduce_model: Model, shuffle: Model,
                    size: str = "x") -> Model:
    """Eq. 5 of 000: ``x M[map](1)/(m n) + M[shuffle^{k(x)}_{m,n}](d(x)) + k(x) M[reduce](d(x))/(m n)``."""
    x = symbol(size)
    mn = _count(term.m) * _count(term.n)
    map_one = map_model.expr.xreplace({x: sp.Integer(1)})
    reduce_d = reduce_model.expr.xreplace({x: term.per_key})
    expr = x * map_one / mn + shuffle.expr + term.keys * reduce_d / mn
    counts = tuple(c for c in (term.m, term.n) if isinstance(c, str))
    roles = merge_roles(map_model.roles, reduce_model.roles, first_name=map_model.label,
                        second_name=reduce_model.label)
    for count, role in ((term.m, "nodes"), (term.n, "threads")):
        if isinstance(count, str):
            roles = merge_roles(roles, {count: role}, first_name="the map and reduce models",
                                second_name=str(term))
    return Model(expr, params=(size, *counts), unit=map_model.unit, roles=roles)


@dataclass(frozen=True)
class PipeChoice:
    """What the pipeline operator made of one ``pipe(first, second)``: the stage it kept and,
    when the asymptotic max chose one stage, the stage it dropped (None when it kept both)."""

    term: Pipe
    kept: Term
    dropped: Term | None
    both: bool = False


@dataclass(frozen=True)
class PipeWarning:
    """A point where the asymptotic max dropped the stage that is the larger one there."""

    choice: PipeChoice
    point: Mapping[str, float]
    kept_value: float
    dropped_value: float
    unit: str

    def __str__(self) -> str:
        where = ", ".join(f"{k}={v:g}" for k, v in self.point.items())
        return (f"{self.choice.term}: the papers' asymptotic max keeps {self.choice.kept} (higher order in x), "
                f"but at {where} {self.choice.dropped} is larger ({self.dropped_value:.4g} vs "
                f"{self.kept_value:.4g} {self.unit}); the pointwise max keeps both (--pipe pointwise)")


@dataclass(frozen=True)
class Composer:
    """Applies M[.] to terms over a fixed set of component models.

    ``pipe`` chooses the pipeline operator (the exact pointwise max, the default, or the papers'
    asymptotic max); ``size`` names the parameter that grows (x), the input size. Components are
    converted to ``unit``, by default the unit of the first component that has one; a component
    without a unit next to timed ones is refused.
    """

    components: Mapping[str, Model]
    pipe: PipeRule = DEFAULT_PIPE
    size: str = "x"
    target_unit: str | None = None

    def __post_init__(self) -> None:
        if self.pipe not in PIPE_RULES:
            raise ModelError(f"pipe rule must be one of {', '.join(PIPE_RULES)}, got {self.pipe!r}")
        if self.target_unit:
            seconds_per(self.target_unit)

    @property
    def unit(self) -> str:
        if self.target_unit:
            return self.target_unit
        units = [m.unit for m in self.components.values() if m.unit]
        return units[0] if units else ""

    def parse(self, text: str, **where: object) -> Term:
        """Read a term whose component names must all be known here."""
        return parse_term(text, components=self.components, **where)  # type: ignore[arg-type]

    def leaf(self, term: Component) -> Model:
        if term.name not in self.components:
            pos = term.pos
            raise TermSyntaxError(f"unknown component '{term.name}'", line=pos.line if pos else None,
                                  column=pos.column if pos else None, hint=known_components_hint(self.components))
        model = self.components[term.name]
        if not model.name:
            model = model.with_meta(name=term.name)
        unit = self.unit
        if bool(model.unit) != bool(unit):
            timed = next(m for m in self.components.values() if m.unit) if unit else model
            raise ModelError(f"component {model.label} has no time unit, and {timed.label} is in {unit or timed.unit}: "
                             "give it one (unit = \"us\" in its component table, or --unit us)")
        model = model.in_unit(unit)
        if self.size in model.params:
            model = model.with_meta(roles=merge_roles(model.roles, {self.size: "size"}, first_name=model.label,
                                                      second_name=f"the design, where {self.size} is the input size"))
        return model

    def __call__(self, term: Term | str) -> Model:
        """The model of ``term`` (a Term or its text)."""
        if isinstance(term, str):
            term = self.parse(term)
        return self.model(term).with_meta(name=str(term), source="composed")

    def model(self, term: Term) -> Model:
        if isinstance(term, Component):
            return self.leaf(term)
        if isinstance(term, Seq):
            return seq_model(self.model(term.first), self.model(term.second))
        if isinstance(term, Pipe):
            return pipe_model(self.model(term.first), self.model(term.second), self.pipe, self.size)
        if isinstance(term, TPool):
            if isinstance(term.threads, int) and term.threads < 1:
                raise ModelError(f"a task pool needs at least one thread, got {term.threads}")
            if any(isinstance(t, MapReduce) for t in term.body.walk()):
                raise ModelError("a shuffle may not be wrapped inside a task pool")
            return tpool_model(term.threads, self.model(term.body))
        if isinstance(term, MapReduce):
            try:
                shuffle = shuffle_model(term.shuffle, term.per_key, self._shuffle_components(term),
                                        self.unit, self.size)
            except ModelError as exc:
                pos = term.pos
                raise TermSyntaxError(str(exc), line=pos.line if pos else None,
                                      column=pos.column if pos else None,
                                      hint="give shuffle=NAME (a component modelling the shuffle) or "
                                           "bandwidth=BYTES_PER_S with bytes=BYTES_PER_PAIR (default 16)"
                                      ) from None
            return mapreduce_model(term, self.model(term.map), self.model(term.reduce), shuffle, self.size)
        raise ModelError(f"cannot compose {type(term).__name__}")

    def pipe_choices(self, term: Term) -> list[PipeChoice]:
        """What the pipeline operator kept and dropped in every pipe of ``term``."""
        out: list[PipeChoice] = []
        for t in term.walk():
            if not isinstance(t, Pipe):
                continue
            a, b = self.model(t.first), self.model(t.second)
            result = pipe_model(a, b, self.pipe, self.size)
            if self.pipe == "pointwise":
                continue
            if result == a and a != b:
                out.append(PipeChoice(t, t.first, t.second))
            elif result == b and a != b:
                out.append(PipeChoice(t, t.second, t.first))
            elif result != a:
                out.append(PipeChoice(t, t, None, both=True))
        return out

    def pipe_warnings(self, term: Term, points: Iterable[Mapping[str, float]]) -> list[PipeWarning]:
        """Where the asymptotic max dropped a stage that is the larger one at a point (the first
        such point per pipe); empty under the pointwise rule."""
        warnings = []
        points = list(points)
        for choice in self.pipe_choices(term):
            if choice.dropped is None:
                continue
            kept, dropped = self.model(choice.kept), self.model(choice.dropped)
            for point in points:
                kv, dv = _at(kept, point), _at(dropped, point)
                if dv > kv * (1 + 1e-9):
                    shown = {k: v for k, v in point.items() if k in kept.params or k in dropped.params}
                    warnings.append(PipeWarning(choice, shown or dict(point), kv, dv, self.unit))
                    break
        return warnings

    def _shuffle_components(self, term: MapReduce) -> Mapping[str, Model]:
        name = term.shuffle.model
        if name is not None:
            self.leaf(Component(name, pos=term.pos))
        return self.components


def _at(model: Model, point: Mapping[str, float]) -> float:
    missing = [p for p in model.params if p not in point]
    if missing:
        raise ModelError(f"give a value for {', '.join(missing)} to evaluate {model.label}")
    return float(np.asarray(model(**{p: point[p] for p in model.params})))


def compose(term: Term | str, components: Mapping[str, Model], *, pipe: PipeRule = DEFAULT_PIPE,
            size: str = "x") -> Model:
    """The model of a program from the models of its components.

    >>> qsort = Model.parse("1034.17*x*log2(x)", unit="ns")
    >>> str(compose("tpool_4(qsort)", {"qsort": qsort}))
    '258.5425*x*log2(x)'
    """
    return Composer(components, pipe=pipe, size=size)(term)
