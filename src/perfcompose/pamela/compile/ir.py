"""Normal-form PAMELA processes (paper 004, section 2.1): every name substituted, only ``use``, ``;``,
``||``, ``seq``/``par`` loops and ``if`` left, numbers as SymPy expressions; read by the compiler and
the simulator.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import sympy as sp

from perfcompose.pamela.language.syntax import Pos

__all__ = ["Resource", "RHO", "Use", "Seq", "Par", "Loop", "Cond", "Nil", "NIL", "Proc"]


@dataclass(frozen=True)
class Resource:
    """An FCFS resource ``fcfs(key, multiplicity)``; ``key is None`` is the infinite server rho."""

    key: sp.Expr | None
    multiplicity: sp.Expr = sp.Integer(1)


RHO = Resource(None, sp.oo)


@dataclass(frozen=True)
class Use:
    """``use(resource, time)``; ``delay(t)`` is ``use(rho, t)``."""

    resource: Resource
    time: sp.Expr
    pos: Pos | None = None


@dataclass(frozen=True)
class Seq:
    """``left ; right``."""

    left: Proc
    right: Proc
    pos: Pos | None = None


@dataclass(frozen=True)
class Par:
    """``left || right``."""

    left: Proc
    right: Proc
    pos: Pos | None = None


@dataclass(frozen=True)
class Loop:
    """``seq (index = lo, hi) body`` or ``par (index = lo, hi) body``."""

    kind: Literal["seq", "par"]
    index: sp.Symbol
    lo: sp.Expr
    hi: sp.Expr
    body: Proc
    pos: Pos | None = None


@dataclass(frozen=True)
class Cond:
    """``if (c) then else else_``: ``c`` is 1 (true), 0 (false) or a probability in between."""

    condition: sp.Expr
    then: Proc
    else_: Proc
    pos: Pos | None = None


@dataclass(frozen=True)
class Nil:
    """The process that does nothing (the missing ``else`` branch)."""


NIL = Nil()

Proc = Use | Seq | Par | Loop | Cond | Nil
