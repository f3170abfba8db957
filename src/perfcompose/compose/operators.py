"""The composition operators M[.] of 000 (eqs. 2-7) and 003 (eqs. 1-3).

``compose(term, components)`` decomposes a term down to its components and applies the operators
bottom up; every result is a :class:`~perfcompose.model.Model`, symbolic in x and in any thread
or node count left symbolic.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Mapping

import sympy as sp

from perfcompose.compose.parser import TermSyntaxError, parse_term
from perfcompose.compose.terms import (Component, Count, MapReduce, Pipe, Seq, Shuffle, Term,
                                       TPool)
from perfcompose.errors import ModelError
from perfcompose.model import Model, maximum, symbol

PipeRule = Literal["asymptotic", "pointwise"]

#: seconds per unit, for the time units composition converts between
TIME_UNITS: dict[str, float] = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}


def _count(c: Count) -> sp.Expr:
    return sp.Integer(c) if isinstance(c, int) else symbol(c)


def seq_model(first: Model, second: Model) -> Model:
    """Eq. 2 of 000: ``M[seq(f1, f2)] = M[f1] + M[f2]``."""
    return first + second


def tpool_model(threads: Count, body: Model) -> Model:
    """Eq. 3 of 000: ``M[tpool_n(task)] = M[task] / n``."""
    n = _count(threads)
    return Model(body.expr / n, params=body.params + (() if isinstance(threads, int) else (threads,)),
                 unit=body.unit)


def pipe_model(first: Model, second: Model, how: PipeRule = "asymptotic", size: str = "x") -> Model:
    """Eq. 4 of 000 / eq. 3 of 003: the slower stage, by asymptotic order in ``size``.

    ``how="pointwise"`` gives the exact ``Max`` of the two stages instead.
    """
    return maximum(first, second, how=how, param=size)


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
        return _in_unit(Model(expr, unit=comp.unit), unit)
    if shuffle.bandwidth is not None:
        if unit not in TIME_UNITS:
            raise ModelError(f"a shuffle from bandwidth needs components timed in s, ms, us or ns; got '{unit}'")
        seconds = (m * n - 1) / (m * n) * shuffle.keys * sp.Float(shuffle.pair_bytes) * per_key / \
            sp.Float(shuffle.bandwidth)
        return Model(seconds / sp.Float(TIME_UNITS[unit]), unit=unit)
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
    return Model(expr, params=(size, *counts), unit=map_model.unit)


def _in_unit(model: Model, unit: str) -> Model:
    if model.unit == unit or not model.unit or not unit:
        return model.with_meta(unit=unit or model.unit)
    if model.unit in TIME_UNITS and unit in TIME_UNITS:
        factor = TIME_UNITS[model.unit] / TIME_UNITS[unit]
        return Model(model.expr * sp.Float(factor), params=model.params, unit=unit)
    raise ModelError(f"cannot compose a model in '{model.unit}' with models in '{unit}'")


@dataclass(frozen=True)
class Composer:
    """Applies M[.] to terms over a fixed set of component models.

    ``pipe`` chooses the pipeline operator (the papers' asymptotic max, or the exact pointwise
    max); ``size`` names the parameter that grows (x). All components are converted to the time
    unit of the first one.
    """

    components: Mapping[str, Model]
    pipe: PipeRule = "asymptotic"
    size: str = "x"

    def __post_init__(self) -> None:
        if self.pipe not in ("asymptotic", "pointwise"):
            raise ModelError(f"pipe rule must be 'asymptotic' or 'pointwise', got {self.pipe!r}")

    @property
    def unit(self) -> str:
        units = [m.unit for m in self.components.values() if m.unit]
        return units[0] if units else "s"

    def parse(self, text: str, **where: object) -> Term:
        """Read a term whose component names must all be known here."""
        return parse_term(text, components=self.components, **where)  # type: ignore[arg-type]

    def leaf(self, term: Component) -> Model:
        if term.name not in self.components:
            known = ", ".join(sorted(self.components)) or "none"
            pos = term.pos
            raise TermSyntaxError(f"unknown component '{term.name}'", line=pos.line if pos else None,
                                  column=pos.column if pos else None, hint=f"known components: {known}")
        return _in_unit(self.components[term.name], self.unit)

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

    def _shuffle_components(self, term: MapReduce) -> Mapping[str, Model]:
        name = term.shuffle.model
        if name is not None:
            self.leaf(Component(name, pos=term.pos))
        return self.components


def compose(term: Term | str, components: Mapping[str, Model], *, pipe: PipeRule = "asymptotic",
            size: str = "x") -> Model:
    """The model of a program from the models of its components.

    >>> qsort = Model.parse("1034.17*x*log2(x)", unit="ns")
    >>> str(compose("tpool_4(qsort)", {"qsort": qsort}))
    '258.5425*x*log2(x)'
    """
    return Composer(components, pipe=pipe, size=size)(term)
