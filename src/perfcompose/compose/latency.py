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

from collections.abc import Mapping

from perfcompose.compose.kinds import KINDS, Latency
from perfcompose.compose.operators import Composer, Evaluated
from perfcompose.compose.terms import Component, Seq, Term
from perfcompose.errors import ModelError
from perfcompose.model import Model


def _refuse(term: Term) -> None:
    """Refuse, first one first, a term without a per-element latency."""
    for t in term.walk():
        if type(t) not in KINDS or KINDS[type(t)].latency is None:
            raise ModelError(f"no latency operator for {type(t).__name__}: latency is defined for seq, pipe "
                             "and tpool programs over a stream")
        if isinstance(t, Seq) and not all(isinstance(s, (Component, Seq)) for s in t.walk()):
            raise ModelError(f"{t}: a seq of parallel parts runs its second part after the first has "
                             "finished the whole stream, so its elements have no latency of their own; "
                             "write the parallel parts as stages of a pipe")


def latency(term: Term | str, components: Mapping[str, Model], *, capacity: int | None = None,
            size: str = "x") -> Model:
    """The latency of ``term`` (a Term or its text) over the component models ``components`` (their
    units as in :class:`Composer`): alone (``capacity=None``) or in a saturated stream through
    queues of ``capacity`` elements per reading worker (the executor's ``capacity``, 2 by default).

    >>> inc, qsort = Model.parse("536.185*x", unit="ns"), Model.parse("1034.17*x*log2(x)", unit="ns")
    >>> parts = {"inc": inc, "qsort": qsort}
    >>> latency("pipe(inc, tpool_4(qsort))", parts)(x=1024) == inc(x=1024) + qsort(x=1024)
    True
    >>> # qsort the slower stage: 1 element in inc + 2 queued per qsort reader, then qsort itself
    >>> round(latency("pipe(inc, qsort)", parts, capacity=2)(x=1024) / qsort(x=1024), 6)
    4.0
    """
    if capacity is not None and capacity < 1:
        raise ModelError(f"queue capacity must be at least 1, got {capacity}")
    composer = Composer(components, pipe="pointwise", size=size)
    if isinstance(term, str):
        term = composer.parse(term)
    _refuse(term)
    tree = composer.evaluate(term)

    def fold(node: Evaluated) -> Latency:
        """The latency of an evaluated term from its operands' (M[·]: the throughput model with the
        exact pointwise max)."""
        rule = KINDS[type(node.term)].latency
        assert rule is not None  # refused before
        return rule(node, [fold(child) for child in node.children], capacity)

    counts = fold(tree)
    expr = counts.alone if counts.saturated is None else counts.saturated
    params = tuple(dict.fromkeys(p for n in tree.walk() if isinstance(n.term, Component) for p in n.model.params))
    extra = tuple(sorted(s.name for s in expr.free_symbols if s.name not in params))
    how = "alone" if capacity is None else f"saturated, queues of {capacity} per reader"
    return Model(expr, params=params + extra, unit=composer.unit, name=str(term), source=f"latency ({how})")
