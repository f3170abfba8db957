"""Where each part of a program runs: the data it receives and what runs beside it.

A part timed alone on fresh input is not the part inside the program. There it receives what the
components before it made of the element (sorted values compress better than random ones) and
it shares the machine with the stages and workers that run at the same time. This module reads
both off a term: every component occurrence gets a *context name* ``part@before`` (the
components applied to the element before it, in order, joined by ``+``), and every pair of
workers that run at once is listed, so a study can time each part on its own data and each pair
side by side.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from perfcompose.compose.terms import Component, Pipe, Seq, Term, TPool

#: separates a part from the parts applied before it in a context name
AT = "@"
#: joins the parts applied before it
THEN = "+"


def context_name(part: str, before: Sequence[str]) -> str:
    """``part`` as it runs after ``before``: the plain name where nothing runs before it."""
    return f"{part}{AT}{THEN.join(before)}" if before else part


def base_name(name: str) -> str:
    """The part a context name stands for."""
    return name.split(AT, 1)[0]


def predecessors(name: str) -> tuple[str, ...]:
    """The parts applied to the element before the part that ``name`` stands for."""
    _, sep, before = name.partition(AT)
    return tuple(before.split(THEN)) if sep else ()


def in_context(term: Term, before: tuple[str, ...] = ()) -> Term:
    """``term`` with every component renamed to its context name: in ``seq``, ``pipe`` and
    ``tpool`` an element flows through the parts left to right, so each receives the output of
    the components before it."""
    return _renamed(term, before)[0]


def _renamed(term: Term, before: tuple[str, ...]) -> tuple[Term, tuple[str, ...]]:
    if isinstance(term, Component):
        return Component(context_name(term.name, before)), (*before, term.name)
    if isinstance(term, (Seq, Pipe)):
        first, after = _renamed(term.first, before)
        second, after = _renamed(term.second, after)
        return type(term)(first, second), after
    if isinstance(term, TPool):
        body, after = _renamed(term.body, before)
        return TPool(term.threads, body), after
    return term, before


def chain(term: Term) -> tuple[str, ...] | None:
    """The components of a term that runs in one worker, one after the other (a component or
    a ``seq`` of components), or None."""
    if isinstance(term, Component):
        return (term.name,)
    if isinstance(term, Seq):
        first, second = chain(term.first), chain(term.second)
        if first is not None and second is not None:
            return first + second
    return None


def pipe_stages(term: Pipe) -> list[Term]:
    """The stages of a pipe, ``pipe(a, pipe(b, c))`` and ``pipe(pipe(a, b), c)`` alike."""
    return [s for side in (term.first, term.second) for s in (pipe_stages(side) if isinstance(side, Pipe) else [side])]


@dataclass(frozen=True)
class Stage:
    """A chain of context-named components that one worker runs on each element."""

    parts: tuple[str, ...]

    def __str__(self) -> str:
        return " ; ".join(self.parts)


def side_by_side(term: Term) -> list[tuple[Stage, Stage]]:
    """The ordered pairs of worker chains of a context-named term that run at the same time:
    the copies of a pooled chain beside each other, and the stages of a pipe beside each other
    (a stage that is a pool of a chain counts as that chain). Each pair once, both orders."""
    pairs: dict[tuple[Stage, Stage], None] = {}  # each pair once, in order of first appearance
    for node in term.walk():
        if isinstance(node, TPool) and node.threads != 1:
            body = chain(node.body)
            if body is not None:
                pairs[(Stage(body), Stage(body))] = None
        elif isinstance(node, Pipe):
            stages = [stage_chain(s) for s in pipe_stages(node)]
            for i, a in enumerate(stages):
                for j, b in enumerate(stages):
                    if i != j and a is not None and b is not None:
                        pairs[(Stage(a), Stage(b))] = None
    return list(pairs)


def stage_chain(term: Term) -> tuple[str, ...] | None:
    """The chain of a pipe's stage, or of the body of a stage that is a task pool (None: no chain)."""
    return chain(term.body) if isinstance(term, TPool) else chain(term)


def prepared(make: Callable[[float], Any], functions: Mapping[str, Callable[[Any], Any]],
             name: str) -> Callable[[float], Any]:
    """An element as the part behind context name ``name`` receives it: ``make(x)`` passed
    through the parts before it (untimed, right before it is used)."""
    steps = [functions[p] for p in predecessors(name)]
    return make if not steps else lambda x: functools.reduce(lambda data, step: step(data), steps, make(x))
