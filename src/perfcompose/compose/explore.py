"""Design-space search: the questions the compositional method is for (000 section 5, 003 III).

Given the stages of a pipeline and a budget of T threads: which stage is the bottleneck, how to
split the threads over the stages (replicate the slowest one: ``pipe(tpool_{n1}(s1), ...)``),
and whether a task pool over the fused stages, ``tpool_T(seq(s1, ...))``, does better.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from perfcompose.compose.operators import Composer
from perfcompose.compose.terms import Pipe, Term, TPool, flatten, pipe, seq, threads_used
from perfcompose.limits import check_steps


@dataclass(frozen=True)
class Alternative:
    """One design: its term, the threads it uses and its predicted time per data element."""

    label: str
    term: Term
    threads: int
    time: float


@dataclass(frozen=True)
class Exploration:
    """The alternatives for one pipeline at one point of the parameter space, best first."""

    point: Mapping[str, float]
    stages: tuple[Term, ...]
    stage_times: tuple[float, ...]
    bottleneck: int
    split: tuple[int, ...]
    alternatives: tuple[Alternative, ...]

    @property
    def best(self) -> Alternative:
        return self.alternatives[0]


def split_threads(stage_times: Sequence[float], budget: int, widths: Sequence[int] | None = None) -> tuple[int, ...]:
    """Copies per stage minimising the slowest stage's ``time / copies`` within the budget.

    Each stage gets one copy; every further copy goes to the current bottleneck while the budget
    lasts. A stage ``widths[i]`` threads wide (a task pool already) costs that many threads per
    copy. With unit widths this greedy rule is optimal for the bottleneck objective: it never
    helps to give a thread to a stage that is not the slowest.
    """
    k = len(stage_times)
    w = np.ones(k, dtype=int) if widths is None else np.asarray(widths, dtype=int)
    if budget < int(w.sum()):
        raise ValueError(f"a pipeline of {k} stages needs at least {int(w.sum())} threads, got a budget of {budget}")
    # one greedy step (a NumPy argmax over the stages) costs about as much as 1,000 elementary steps
    check_steps(1000.0 * (budget - int(w.sum())), f"splitting a budget of {budget} threads")
    times = np.asarray(stage_times, dtype=float)
    n = np.ones(k, dtype=int)
    left = budget - int(w.sum())
    while True:
        slowest = int(np.argmax(times / n))
        if w[slowest] > left:
            break
        n[slowest] += 1
        left -= int(w[slowest])
    return tuple(int(v) for v in n)


def _pooled(stage: Term, threads: int) -> Term:
    return stage if threads == 1 else TPool(threads, stage)


def explore(term: Term | str, components: Mapping[str, object], threads: int,
            point: Mapping[str, float], *, composer: Composer | None = None) -> Exploration:
    """Compare the ways to run the stages of ``term`` (a pipeline) with ``threads`` threads at
    ``point`` (values for x and any symbolic parameter). Times at a point use the exact
    pointwise max for pipelines unless another ``composer`` is given.

    >>> from perfcompose import Model
    >>> C = {"inc": Model.parse("536.185*x"), "qsort": Model.parse("1034.17*x*log2(x)")}
    >>> e = explore("pipe(qsort, inc)", C, 8, {"x": 65536})
    >>> e.split, e.best.label
    ((7, 1), 'task pool of the fused stages')
    """
    comp = composer or Composer(components, pipe="pointwise")  # type: ignore[arg-type]
    if isinstance(term, str):
        term = comp.parse(term)
    stages = tuple(flatten(term, Pipe))  # a lone term is a one-stage pipeline

    def time_of(t: Term) -> float:
        return comp.evaluate(t).at(point)

    stage_times = tuple(time_of(s) for s in stages)
    counts = dict(point)
    widths = [threads_used(st, counts) for st in stages]
    split = split_threads(stage_times, threads, widths)
    fused = stages[0] if len(stages) == 1 else seq(*stages)
    pool = max(1, threads // threads_used(fused, counts))
    candidates: list[tuple[str, Term]] = [
        ("serial: the stages one after another", fused),
        ("task pool of the fused stages", TPool(pool, fused) if pool > 1 else fused),
    ]
    if len(stages) > 1:
        candidates.insert(1, ("pipeline, one thread per stage", pipe(*stages)))
        candidates.append(("pipeline, threads split over the stages",
                           pipe(*(_pooled(s, n) for s, n in zip(stages, split)))))
        even = [threads // len(stages) + (i < threads % len(stages)) for i in range(len(stages))]
        if all(n >= 1 for n in even):
            candidates.append(("pipeline, threads shared evenly",
                               pipe(*(_pooled(s, max(1, n // w)) for s, n, w in zip(stages, even, widths)))))
    unique: dict[str, tuple[str, Term]] = {}
    for label, t in candidates:
        unique.setdefault(str(t), (label, t))
    alternatives = sorted((Alternative(label, t, threads_used(t, counts), time_of(t)) for label, t in unique.values()),
                          key=lambda a: (a.time, a.threads))
    return Exploration(dict(point), stages, stage_times, int(np.argmax(stage_times)), split, tuple(alternatives))

