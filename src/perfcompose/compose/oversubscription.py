"""More workers than cores: how many workers a program starts, and what that does to a prediction.

The papers' operators assume a core per worker: ``tpool_n`` divides by n, a pipeline runs its
stages side by side. With more workers than cores (counting nested pools: ``pipe(tpool_2(a), b)``
starts three) the workers share the cores, and no program finishes an element faster than its
total work divided by the cores. :func:`account` takes the larger of the operators' prediction
and that floor; where the work cannot be summed (a MapReduce, a symbolic thread count) it says
so instead.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from perfcompose.compose.interval import MEMBERS_LANE
from perfcompose.compose.kinds import KINDS
from perfcompose.compose.operators import Composer, Evaluated
from perfcompose.compose.terms import Term
from perfcompose.ensemble import StackedEnsemble
from perfcompose.model import Model
from perfcompose.model_maximum import maximum


def workers(term: Term) -> int | None:
    """Workers the executor starts for ``term`` (a seq runs in its parts' workers one after the
    other; a pipe's stages run side by side; a pool multiplies), or None when a count is symbolic
    or the term is a MapReduce."""
    kind = KINDS[type(term)] if type(term) in KINDS else None
    return None if kind is None else kind.workers(term, [workers(t) for t in kind.operands(term)])


@dataclass(frozen=True)
class Oversubscription:
    """A program with more workers than cores, and the prediction that accounts for it."""

    term: str
    workers: int
    cores: int
    #: max(operators' prediction, work / cores), or None when the work cannot be summed
    model: Model | None

    def __str__(self) -> str:
        head = f"{self.term} starts {self.workers} workers on {self.cores} cores"
        if self.model is None:
            return (head + ": the operators assume a core per worker and this prediction cannot account "
                    "for the sharing; expect it to be too fast")
        return (head + ": the workers share the cores; the prediction is at least the total work divided "
                f"by {self.cores} cores")


def machine_cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def cores_note(term: Term, cores: int) -> str | None:
    """What a program that starts more workers than ``cores`` should be read with; None where it
    fits (or its workers cannot be counted)."""
    n = workers(term)
    if n is None or n <= cores:
        return None
    return (f"{term} starts {n} threads on this machine's {cores} cores: the operators assume a core per "
            "thread, so here it will run slower than predicted")


def shared(tree: Evaluated, model: Model, cores: int | None = None, lane: str | None = None
           ) -> tuple[Model, Oversubscription | None]:
    """``model`` floored at ``work / cores`` (pointwise; the work by the operators or ``lane``)
    where the evaluated term has more workers than ``cores``, its members (``model.ensemble``,
    from the tree's members lane) floored the same way; and the warning, or None."""
    cores = cores or machine_cores()
    n = tree.workers
    if n is None or n <= cores:
        return model, None
    total = tree.work(lane)
    if total is None:
        return model, Oversubscription(str(tree.term), n, cores, None)
    floor = (total / cores).in_unit(model.unit) if model.unit and total.unit else total / cores
    floored = maximum(model, floor, how="pointwise").with_meta(name=model.name, source=model.source, ensemble=None)
    over = Oversubscription(str(tree.term), n, cores, floored)
    stacked = getattr(model.ensemble, "stacked", None)
    if stacked is not None and MEMBERS_LANE in tree.lanes and (members := tree.work(MEMBERS_LANE)) is not None:
        floored = floored.with_meta(ensemble=StackedEnsemble(maximum(stacked, members / cores, how="pointwise"),
                                                             model.ensemble.size))
    return floored, over


def account(composer: Composer, term: Term, model: Model, cores: int | None = None) -> Oversubscription | None:
    """The warning of :func:`shared` for ``term`` composed by ``composer``."""
    return shared(composer.evaluate(term), model, cores)[1]
