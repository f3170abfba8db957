"""What 000 Tables 4, 6 and 7 claim about programs measured side by side, checked on a study.

Table 4 (pipeline associativity and commutativity) and Table 6 (layering neutrality) claim that
programs of a group have monolithic models of one order whose leading coefficients lie close
together: :func:`coefficient_spreads`. Table 7 claims relation (iv), tpool_2(seq(a, b)) takes at
most as long as pipe(a, b): :func:`relation_iv`. :func:`core_limit` says how many workers a
table's programs may use at once.
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from perfcompose.compose.parser import parse_term
from perfcompose.validate.modular import Comparison, leading_term

#: Table 6's groups: a pipe of task pools against a task pool of the pipe, for n = 1, 2, 4, 8
LAYERING_GROUPS: tuple[tuple[str, ...], ...] = tuple(
    (f"pipe(tpool_{n}(qsort), tpool_{n}(inc))", f"tpool_{n}(pipe(qsort, inc))") for n in (1, 2, 4, 8))

_POOLED = "tpool_2(seq("


def core_limit(table: str, cores: int | None = None) -> int:
    """The most workers a table's programs may use: the cores for Tables 2 and 7, which compare a
    program with its model; twice the cores for Tables 4 and 6, which compare programs with one
    another and so may oversubscribe the cores."""
    cores = cores or os.cpu_count() or 1
    return cores if table in ("table2", "table7") else 2 * cores


@dataclass(frozen=True)
class Spread:
    """How far apart the leading coefficients of a group's monolithic models lie."""

    group: tuple[str, ...]
    #: (max - min) / min of the leading coefficients in percent; None where the orders differ
    percent: float | None


def coefficient_spreads(comparisons: Sequence[Comparison], groups: Iterable[Sequence[str]]) -> list[Spread]:
    """One :class:`Spread` per group with at least two fitted programs in ``comparisons``."""
    spreads = []
    for group in groups:
        # a study names its programs as the parser prints them: pipe(pipe(a, b), c) is pipe(a, b, c)
        names = {str(parse_term(g)) for g in group}
        leads = [lead for c in comparisons if c.configuration in names
                 if (lead := leading_term(c.monolithic)) is not None]
        if len(leads) < 2:
            continue
        cs, same_order = [coefficient for _, coefficient in leads], len({order for order, _ in leads}) == 1
        spreads.append(Spread(tuple(group), 100 * (max(cs) - min(cs)) / min(cs) if same_order else None))
    return spreads


@dataclass(frozen=True)
class RelationIV:
    """Relation (iv) for one pair: the median over sizes of time(tpool_2(seq(a, b))) / time(pipe(a, b))."""

    pooled: str
    pipe: str
    ratio: float

    @property
    def holds(self) -> bool:
        return self.ratio <= 1.0


def relation_iv(comparisons: Sequence[Comparison]) -> list[RelationIV]:
    """Relation (iv) for every tpool_2(seq(a, b)) in ``comparisons`` whose pipe(a, b) was measured too."""
    by = {c.configuration: c for c in comparisons}
    pairs = [(c, f"pipe({c.configuration[len(_POOLED):-2]})") for c in comparisons
             if c.configuration.startswith(_POOLED)]
    return [RelationIV(c.configuration, pipe, float(np.median(np.array(c.measured) / np.array(by[pipe].measured))))
            for c, pipe in pairs if pipe in by]
