"""What each kind of term means, in one place: the operators M[.] of 000 (eqs. 2-7) and 003
(eqs. 1-3) and, per kind of term (:data:`KINDS`), the terms it is composed from, the rule that
composes it, the workers it starts, the work they do, whether its bottleneck lies inside it and
the latency of one element through it.
A new pattern is a new entry; :meth:`perfcompose.compose.operators.Composer.evaluate` folds
every term by this table.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sympy as sp

from perfcompose.choices import PipeRule
from perfcompose.compose.parser import TermSyntaxError
from perfcompose.compose.terms import Component, Count, MapReduce, Pipe, Seq, Shuffle, Term, TPool
from perfcompose.errors import ModelError
from perfcompose.model import Model, symbol
from perfcompose.model_maximum import maximum
from perfcompose.units import merge_roles, seconds_per

#: roles of parameters that count resources: held fixed when the asymptotic max compares growth
COUNT_ROLES = ("threads", "nodes", "processes")


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


def _sum(parts: Sequence[Model | None]) -> Model | None:
    return None if parts[0] is None or parts[1] is None else parts[0] + parts[1]


def _counted(counts: Sequence[int | None], how: Callable[[list[int]], int]) -> int | None:
    known = [n for n in counts if n is not None]
    return how(known) if len(known) == len(counts) else None


def _check_tpool(t: TPool) -> None:
    if isinstance(t.threads, int) and t.threads < 1:
        raise ModelError(f"a task pool needs at least one thread, got {t.threads}")
    if any(isinstance(s, MapReduce) for s in t.body.walk()):
        raise ModelError("a shuffle may not be wrapped inside a task pool")


def _mapreduce(c: Any, t: MapReduce, parts: Sequence[Model]) -> Model:
    try:
        shuffle = shuffle_model(t.shuffle, t.per_key, c._shuffle_components(t), c.unit, c.size)
    except ModelError as exc:
        pos = t.pos
        raise TermSyntaxError(str(exc), line=pos.line if pos else None, column=pos.column if pos else None,
                              hint="give shuffle=NAME (a component modelling the shuffle) or "
                                   "bandwidth=BYTES_PER_S with bytes=BYTES_PER_PAIR (default 16)") from None
    return mapreduce_model(t, parts[0], parts[1], shuffle, c.size)


@dataclass(frozen=True)
class Latency:
    """The time one element spends in a term alone (L) and in a saturated stream through queues
    of c elements per reading worker (S; None where only L is asked for), the workers that read
    the term's input queue (R) and the elements it holds while its output is blocked (K); derived
    in docs/latency.md."""

    alone: sp.Expr
    saturated: sp.Expr | None
    readers: sp.Expr
    held: sp.Expr


def _one_worker(node: Any, parts: Sequence[Latency], c: int | None) -> Latency:
    """A component, or a seq that one worker runs part after part."""
    alone = node.model.expr if not parts else parts[0].alone + parts[1].alone
    return Latency(alone, None if c is None else alone, sp.Integer(1), sp.Integer(1))


def _pool_latency(node: Any, parts: Sequence[Latency], c: int | None) -> Latency:
    n, body = _count(node.term.threads), parts[0]
    return Latency(body.alone, body.saturated, n * body.readers, n * body.held)


def _pipe_latency(node: Any, parts: Sequence[Latency], c: int | None) -> Latency:
    """Where the second stage is the slower, an element waits in a full queue for the first
    stage's held elements and c per reader of the second (Little's law); elsewhere it flows."""
    a, b = parts
    held = a.held + sp.Integer(c or 0) * b.readers + b.held
    if a.saturated is None or b.saturated is None:
        return Latency(a.alone + b.alone, None, a.readers, held)
    ma, mb = (child.model.expr for child in node.children)
    queued = (a.held + sp.Integer(c or 0) * b.readers) * mb + b.saturated
    flowing = a.saturated + b.alone
    diff = sp.simplify(mb - ma)
    saturated = queued if diff.is_positive else flowing if diff.is_nonpositive else \
        sp.Piecewise((queued, sp.StrictGreaterThan(mb, ma)), (flowing, True))
    return Latency(a.alone + b.alone, saturated, a.readers, held)


@dataclass(frozen=True)
class Kind:
    """What one kind of term means; a new pattern is a new entry of :data:`KINDS`."""

    #: its label in the program's tree
    label: Callable[[Any], str]
    #: the terms it is composed from
    operands: Callable[[Any], tuple[Term, ...]]
    #: M[.]: its model from its operands' (the composer's rules at hand)
    model: Callable[[Any, Any, Sequence[Model]], Model]
    #: the workers the executor starts for it from its operands' (None: not counted)
    workers: Callable[[Any, Sequence[int | None]], int | None]
    #: the CPU time per element its workers spend together, from its model and its operands'
    #: (None: not summed)
    work: Callable[[Model | None, Sequence[Model | None]], Model | None]
    #: refuses a term of this kind before its operands are composed
    check: Callable[[Any], None] = lambda term: None
    #: whether the path to the bottleneck goes on into its operands
    limited: bool = True
    #: its :class:`Latency` from its evaluated node, its operands' and the queue capacity (None:
    #: it has no per-element latency)
    latency: Callable[[Any, Sequence[Latency], int | None], Latency] | None = None


def _both(t: Any) -> tuple[Term, ...]:
    return (t.first, t.second)


KINDS: dict[type, Kind] = {
    Component: Kind(lambda t: t.name, lambda t: (), lambda c, t, parts: c.leaf(t), lambda t, n: 1,
                    lambda model, parts: model, limited=False, latency=_one_worker),
    Seq: Kind(lambda t: "seq", _both, lambda c, t, parts: seq_model(*parts),
              lambda t, n: _counted(n, max), lambda model, parts: _sum(parts), latency=_one_worker),
    Pipe: Kind(lambda t: "pipe", _both, lambda c, t, parts: pipe_model(parts[0], parts[1], c.pipe, c.size),
               lambda t, n: _counted(n, sum), lambda model, parts: _sum(parts), latency=_pipe_latency),
    TPool: Kind(lambda t: f"tpool_{t.threads}", lambda t: (t.body,),
                lambda c, t, parts: tpool_model(t.threads, parts[0]),
                lambda t, n: t.threads * n[0] if isinstance(t.threads, int) and n[0] is not None else None,
                lambda model, parts: parts[0], check=_check_tpool, latency=_pool_latency),
    MapReduce: Kind(lambda t: "mapreduce", lambda t: (t.map, t.reduce), _mapreduce, lambda t, n: None,
                    lambda model, parts: None, limited=False),
}


