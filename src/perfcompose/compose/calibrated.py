"""Calibrated composition operators: the papers' operators plus what an executor adds per element.

000 names what its operators leave out: hand-over between stages, synchronisation, contention
for the memory and the caches' state. In the spirit of the penalty term Ā(n, p) of 001, the
calibrated operators take component models timed inside the executor under the concurrency the
program runs at (k workers at once: a part's own time in the executor plus the contention that
k one-pass probes meet, ``k T[tpool_k(touch)] - T[touch]``: the GIL and the memory bandwidth
that k workers share) and add a hand-over measured once per machine:

* a chain of components in one worker, ``seq(f1, ..., fk)``: ``C[f1]`` (with its hand-over)
  plus, for every later ``fi``, its model with the data already in cache (timed in isolation)
  once an earlier component has touched the data (a model that grows with x), or ``C[fi] - o(x)``
  otherwise, where ``o(x)`` is one worker's hand-over per element (``T[nop]``);
* ``pipe(A, B)``: ``max(C[A], C[B], P(x))``: no pipeline hands elements over faster than one
  of the cheapest real stages, ``P(x) = T[pipe(touch, touch)]`` with ``touch`` a one-pass
  compiled kernel (on a machine where waking a thread takes ~15 us, that floor is what a pipe
  of short stages measures). Where the first stage A is one component with a *piped* model
  (the part timed as the first stage of ``pipe(part, touch)``), the floor is replaced by what
  that probe shows: A wakes the next stage for an element when that stage idles, and
  ``T[pipe(A, touch)] - C[A]`` is that wake-up (touch idles nearly always); B idles for the
  share ``1 - C[B] / max(C[A], C[B])``: ``max(C[A] + wake * idle, C[B])``. Two equal stages keep
  each other busy and wake nobody (``pipe(inc, inc)`` ran at ``inc``'s pace, below the floor).
  A component that is a whole stage has a worker and a queue of its own: its time is the one
  of the part as one worker in the executor (``stages``), without the contention of k workers
  on one queue;
* ``tpool_n(A)``: ``C[A] / n``, as the papers' operator;
* a ``seq`` of parallel parts runs them one after the other: ``C[A] + C[B]``.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from perfcompose.compose.context import chain
from perfcompose.compose.kinds import pipe_model, seq_model
from perfcompose.compose.operators import Composer
from perfcompose.compose.terms import Component, Pipe, Seq, Term
from perfcompose.errors import ModelError
from perfcompose.model import Model, Order
from perfcompose.model_maximum import maximum


@dataclass(frozen=True)
class Overheads:
    """An executor's per-element costs on one machine, as models of the element size."""

    #: o(x): one worker taking an element and passing it on
    stream: Model
    #: P(x): the period of a pipeline of the cheapest real stages
    pipe: Model


def _touches(model: Model, size: str) -> bool:
    order = model.order(size)
    return order is None or order > Order(Fraction(0), Fraction(0))


@dataclass(frozen=True)
class CalibratedComposer(Composer):
    """M[.] with the executor's overheads. ``components`` are models timed inside the executor
    at the program's concurrency; ``hot`` are the same components timed in isolation, their
    data in cache."""

    hot: Mapping[str, Model] = field(default_factory=dict)
    overheads: Overheads | None = None
    #: components timed as the first stage of ``pipe(component, touch)`` at the program's
    #: concurrency: a pipe stage's time beside another stage
    piped: Mapping[str, Model] = field(default_factory=dict)
    #: components timed inside the executor on one worker alone: a component that is a whole
    #: stage of a pipe has a worker and a queue of its own, and does not meet the contention of
    #: k workers taking elements from one queue that ``components`` include
    stages: Mapping[str, Model] = field(default_factory=dict)
    #: over stacked leaves (:meth:`spread`): the operators over the central models, which decide
    #: whether a part reads its data (a stacked leaf has no asymptotic order)
    central: CalibratedComposer | None = None

    def _overheads(self) -> Overheads:
        if self.overheads is None:
            raise ModelError("calibrated operators need the executor's overheads: measure them with "
                             "perfcompose validate")
        return self.overheads

    def _own(self, models: Mapping[str, Model], term: Term) -> Model | None:
        """The model ``models`` (hot, piped or stages) hold for a component, in this unit; else None."""
        return models[term.name].in_unit(self.unit) if isinstance(term, Component) and term.name in models else None

    def _touches(self, term: Component) -> bool:
        """Whether the component reads its data: its model grows with x (the isolated model is
        asked first, as the one that is PMNF)."""
        if self.central is not None:
            return self.central._touches(term)
        return _touches(self._own(self.hot, term) or self.leaf(term), self.size)

    def _pipe(self, term: Pipe, parts: Sequence[Model]) -> Model:
        """``pipe(A, B)``. With A's piped model: the first stage hands every element to the
        second and wakes it when it is idle; ``T[pipe(A, touch)] - C[A]`` is that wake-up (the
        touch stage is idle nearly always) and B idles for the share ``1 - C[B] / max(C[A],
        C[B])`` of A's time. The last stage hands over to the collecting thread, which never
        waits on it, as in the executor alone: ``max(C[A] + wake * idle, C[B])``. Without a
        piped model: ``max(C[A], C[B], P)``."""
        first, second = (self._own(self.stages, t) or p for t, p in zip((term.first, term.second), parts))
        piped = self._own(self.piped, term.first)
        if piped is None:
            floor = self._overheads().pipe.in_unit(self.unit)
            return maximum(pipe_model(first, second, self.pipe, self.size), floor, how="pointwise")
        busy = (second / maximum(first, second, how="pointwise")).with_meta(unit="")
        wake = piped - first
        return maximum(first + wake - wake * busy, second, how="pointwise")

    def combine(self, term: Term, parts: Sequence[Model]) -> Model:
        if isinstance(term, Seq):
            names = chain(term)
            if names is None:
                return seq_model(*parts)
            o = self._overheads().stream.in_unit(self.unit)
            total = self.leaf(Component(names[0]))
            touched = self._touches(Component(names[0]))
            for comp in map(Component, names[1:]):
                cold, hot = self.leaf(comp), self._own(self.hot, comp)
                total = total + (hot if touched and hot is not None else cold - o)
                touched = touched or self._touches(comp)
            return total
        return self._pipe(term, parts) if isinstance(term, Pipe) else super().combine(term, parts)

    def uses(self, term: Term) -> list[Model]:
        over = [] if self.overheads is None else [self.overheads.stream, self.overheads.pipe]
        return [*super().uses(term), *self.hot.values(), *self.piped.values(), *self.stages.values(), *over]

    def spread(self, leaf: Callable[[Model], Model]) -> Composer:
        def each(models: Mapping[str, Model]) -> dict[str, Model]:
            return {k: leaf(m) for k, m in models.items()}

        over = self.overheads
        return CalibratedComposer(each(self.components), "pointwise", self.size, self.target_unit, hot=each(self.hot),
                                  piped=each(self.piped), stages=each(self.stages),
                                  overheads=None if over is None else Overheads(leaf(over.stream), leaf(over.pipe)),
                                  central=self)
