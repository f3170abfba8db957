"""Latency operators: the time one data element spends inside seq / pipe / tpool programs,
composed from the same component models M[f] as the throughput operators (000 section 3.3).

Two latencies, both derived in docs/latency.md:

* alone (``capacity=None``): an element that meets no other, 000's Figure 2 ("the first one is
  completed after 15 s"):

      L[f] = M[f]    L[seq(a, b)] = L[pipe(a, b)] = L[a] + L[b]    L[tpool_n(t)] = L[t]

* in a saturated stream through bounded queues (``capacity=c`` elements per reading worker, as
  the runtime executor builds them), by Little's law on each pipe: when the second stage b is
  the slower (M[b] > M[a]), a's workers are all busy or blocked and the queue in front of b is
  full, so an element waits for (K[a] + c·R[b]) completions of b before b takes it:

      S[f] = M[f]    S[seq(a, b)] = S[a] + S[b]    S[tpool_n(t)] = S[t]
      S[pipe(a, b)] = (K[a] + c·R[b])·M[b] + S[b]   where M[b] > M[a]
                      S[a] + L[b]                     elsewhere (b keeps up: no queue)

  with R the workers reading a term's input queue (R[f] = 1, R[tpool_n(t)] = n·R[t],
  R[pipe(a, b)] = R[a]) and K the elements a term holds when its output is blocked
  (K[f] = 1, K[tpool_n(t)] = n·K[t], K[pipe(a, b)] = K[a] + c·R[b] + K[b]).

M[·] here is the throughput model with the exact pointwise max. A seq is one worker running its
parts one after the other; a seq whose parts are parallel runs the second part after the first
has finished the whole stream, which has no per-element latency and is refused, as is MapReduce
(a job, not a stream).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import sympy as sp

from perfcompose.compose.operators import Composer
from perfcompose.compose.terms import Component, Pipe, Seq, Term, TPool
from perfcompose.errors import ModelError
from perfcompose.model import Model


def _threads(term: TPool) -> sp.Expr:
    if isinstance(term.threads, int):
        if term.threads < 1:
            raise ModelError(f"a task pool needs at least one thread, got {term.threads}")
        return sp.Integer(term.threads)
    return sp.Symbol(term.threads, positive=True)


def _count(term: Term, of: Callable[[Term], sp.Expr], pipe: Callable[[Pipe], sp.Expr]) -> sp.Expr:
    """A count of workers or elements: 1 for a component or a seq, ``threads`` times the body's
    for a task pool, ``pipe(term)`` for a pipe."""
    if isinstance(term, (Component, Seq)):
        return sp.Integer(1)
    if isinstance(term, TPool):
        return _threads(term) * of(term.body)
    if isinstance(term, Pipe):
        return pipe(term)
    raise ModelError(f"no latency operator for {type(term).__name__}")


def _sequential(term: Term) -> bool:
    return all(isinstance(t, (Component, Seq)) for t in term.walk())


@dataclass(frozen=True)
class LatencyComposer:
    """L[·] of terms over a fixed set of component models (their units as in :class:`Composer`).

    ``capacity``: None for an element alone; c for a saturated stream through queues of c
    elements per reading worker (the executor's ``capacity``, 2 by default).
    """

    components: Mapping[str, Model]
    capacity: int | None = None
    size: str = "x"

    def __post_init__(self) -> None:
        if self.capacity is not None and self.capacity < 1:
            raise ModelError(f"queue capacity must be at least 1, got {self.capacity}")

    @property
    def _throughput(self) -> Composer:
        return Composer(self.components, pipe="pointwise", size=self.size)

    def __call__(self, term: Term | str) -> Model:
        """The latency model of ``term`` (a Term or its text)."""
        composer = self._throughput
        if isinstance(term, str):
            term = composer.parse(term)
        expr = self._alone(term) if self.capacity is None else self._saturated(term)
        params = tuple(dict.fromkeys(p for m in (composer.leaf(c) for c in self._leaves(term)) for p in m.params))
        extra = tuple(sorted(s.name for s in expr.free_symbols if s.name not in params))
        how = "alone" if self.capacity is None else f"saturated, queues of {self.capacity} per reader"
        return Model(expr, params=params + extra, unit=composer.unit, name=str(term),
                     source=f"latency ({how})")

    # -- the parts --------------------------------------------------------------------------

    def _leaves(self, term: Term) -> list[Component]:
        return [t for t in term.walk() if isinstance(t, Component)]

    def _m(self, term: Term) -> sp.Expr:
        return self._throughput.model(term).expr

    def _alone(self, term: Term) -> sp.Expr:
        if isinstance(term, Component):
            return self._throughput.leaf(term).expr
        if isinstance(term, Seq):
            self._check_seq(term)
            return self._alone(term.first) + self._alone(term.second)
        if isinstance(term, Pipe):
            return self._alone(term.first) + self._alone(term.second)
        if isinstance(term, TPool):
            _threads(term)
            return self._alone(term.body)
        raise ModelError(f"no latency operator for {type(term).__name__}: latency is defined for seq, pipe "
                         "and tpool programs over a stream")

    def _saturated(self, term: Term) -> sp.Expr:
        if isinstance(term, (Component, Seq)):
            return self._alone(term)
        if isinstance(term, TPool):
            _threads(term)
            return self._saturated(term.body)
        if isinstance(term, Pipe):
            a, b = term.first, term.second
            ma, mb = self._m(a), self._m(b)
            queued = (self.held(a) + self._c * self.readers(b)) * mb + self._saturated(b)
            flowing = self._saturated(a) + self._alone(b)
            diff = sp.simplify(mb - ma)
            if diff.is_positive:
                return queued
            if diff.is_nonpositive:
                return flowing
            return sp.Piecewise((queued, sp.StrictGreaterThan(mb, ma)), (flowing, True))
        raise ModelError(f"no latency operator for {type(term).__name__}: latency is defined for seq, pipe "
                         "and tpool programs over a stream")

    @property
    def _c(self) -> sp.Expr:
        return sp.Integer(self.capacity or 0)

    def _check_seq(self, term: Seq) -> None:
        if not _sequential(term):
            raise ModelError(f"{term}: a seq of parallel parts runs its second part after the first has "
                             "finished the whole stream, so its elements have no latency of their own; "
                             "write the parallel parts as stages of a pipe")

    def readers(self, term: Term) -> sp.Expr:
        """R: the workers that read the term's input queue."""
        return _count(term, self.readers, lambda pipe: self.readers(pipe.first))

    def held(self, term: Term) -> sp.Expr:
        """K: the elements the term holds while its output is blocked."""
        return _count(term, self.held, lambda pipe: self.held(pipe.first) + self._c * self.readers(pipe.second)
                      + self.held(pipe.second))


def latency(term: Term | str, components: Mapping[str, Model], *, capacity: int | None = None,
            size: str = "x") -> Model:
    """The latency of ``term``: alone (``capacity=None``) or in a saturated stream through queues
    of ``capacity`` elements per reading worker.

    >>> inc, qsort = Model.parse("536.185*x", unit="ns"), Model.parse("1034.17*x*log2(x)", unit="ns")
    >>> parts = {"inc": inc, "qsort": qsort}
    >>> latency("pipe(inc, tpool_4(qsort))", parts)(x=1024) == inc(x=1024) + qsort(x=1024)
    True
    >>> # qsort the slower stage: 1 element in inc + 2 queued per qsort reader, then qsort itself
    >>> round(latency("pipe(inc, qsort)", parts, capacity=2)(x=1024) / qsort(x=1024), 6)
    4.0
    """
    return LatencyComposer(components, capacity, size)(term)
