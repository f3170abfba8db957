"""The PAMELA compiler (paper 004, section 2.2): a process becomes phi, delta, omega and T by the
rules of docs/pamela.md, "The compiler" (delta of ``a || b`` the element-wise sum and phi of a
``use`` its time t, as the paper's own example needs; ``paper_phi=True`` keeps the printed t / b).
Compilation is structural; :mod:`perfcompose.pamela.compile.simplification` finds closed forms.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from perfcompose.pamela.compile import ir
from perfcompose.pamela.compile.symbolic import MaxOver, UnitVec, VMax, choose, extremum, free_symbols

__all__ = ["Costs", "compile_process"]


@dataclass(frozen=True)
class Costs:
    """The four numeric equations of one process: phi, delta (a load vector), omega and T."""

    phi: sp.Expr
    delta: sp.Expr
    omega: sp.Expr
    T: sp.Expr


def _omega(delta: sp.Expr) -> sp.Expr:
    return sp.Integer(0) if delta == 0 else VMax(delta)


class _Compiler:
    def __init__(self, paper_phi: bool):
        self.paper_phi = paper_phi
        self.memo: dict[int, tuple[ir.Proc, Costs]] = {}  # by identity: shared sub-processes compile once

    def costs(self, proc: ir.Proc) -> Costs:
        if id(proc) not in self.memo:
            self.memo[id(proc)] = (proc, self._costs(proc))
        return self.memo[id(proc)][1]

    def _costs(self, proc: ir.Proc) -> Costs:
        if isinstance(proc, ir.Nil):
            return Costs(*[sp.Integer(0)] * 4)
        if isinstance(proc, ir.Use):
            t = proc.time
            res = proc.resource
            if res.key is None:  # rho, the infinite server
                return Costs(t, sp.Integer(0), sp.Integer(0), t)
            b = res.multiplicity
            phi = t / b if self.paper_phi else t
            delta = UnitVec(res.key) * t / b
            return Costs(phi, delta, _omega(delta), phi)
        if isinstance(proc, (ir.Seq, ir.Par)):
            a, b = self.costs(proc.left), self.costs(proc.right)
            delta = a.delta + b.delta
            omega = _omega(delta)
            if isinstance(proc, ir.Seq):
                return Costs(a.phi + b.phi, delta, omega, a.T + b.T)
            return Costs(extremum(sp.Max, a.phi, b.phi), delta, omega, extremum(sp.Max, a.T, b.T, omega))
        if isinstance(proc, ir.Loop):
            body = self.costs(proc.body)
            limits = (proc.index, proc.lo, proc.hi)
            delta = sp.Sum(body.delta, limits) if body.delta != 0 else sp.Integer(0)
            omega = _omega(delta)
            if proc.kind == "seq":
                return Costs(sp.Sum(body.phi, limits), delta, omega, sp.Sum(body.T, limits))
            return Costs(_max_over(body.phi, limits), delta, omega, extremum(sp.Max, _max_over(body.T, limits), omega))
        a, b = self.costs(proc.then), self.costs(proc.else_)  # ir.Cond
        # ``if (c) a else b`` in the time domain: ``c*a + (1 - c)*b``
        return Costs(*(choose(proc.condition, getattr(a, q), getattr(b, q)) for q in ("phi", "delta", "omega", "T")))


def _max_over(body: sp.Expr, limits: tuple[sp.Symbol, sp.Expr, sp.Expr]) -> sp.Expr:
    """``max (i = lo, hi) body``; a body free of the index is its own maximum over a non-empty range,
    so replicas as many as a billion cost nothing to compile."""
    index, lo, hi = limits
    if index not in free_symbols(body):
        nonempty = sp.Ge(hi, lo)
        if nonempty is sp.true:
            return body
        if nonempty is sp.false:
            return sp.Integer(0)
    return MaxOver(body, limits)


def compile_process(proc: ir.Proc, *, paper_phi: bool = False) -> Costs:
    """The raw (unsimplified) phi, delta, omega and T of a normal-form process."""
    return _Compiler(paper_phi).costs(proc)

