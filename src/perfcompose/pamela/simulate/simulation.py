"""A discrete-event simulator of normal-form PAMELA processes: the time the bound approximates.
FCFS resources with their multiplicity, ``delay`` the infinite server; deterministic or exponential
times (reproducible by ``seed``); a condition strictly between 0 and 1 drawn each time. The process
is flattened into a small instruction set run by :mod:`perfcompose.pamela.simulate.event_kernel`.

Mean value analysis (Reiser and Lavenberg) of the closed networks PAMELA describes, beside the bound.

``par (p = a, b) seq (i = 1, N) body`` with a body of ``delay`` (think time) and ``use`` of FCFS
resources that do not depend on the client is a closed network of K customers: its cycle time is
R(K) = Z + sum_k R_k(K), R_k(n) = D_k (1 + Q_k(n - 1)) at one server (Seidmann's approximation at
m servers), and N cycles take about N R(K), exact in the steady state for exponential service.
"""
from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from perfcompose.choices import Distribution
from perfcompose.limits import check_steps
from perfcompose.model import symbol
from perfcompose.pamela.compile import ir
from perfcompose.pamela.compile.simplification import simplify
from perfcompose.pamela.compile.symbolic_evaluation import evaluate, is_closed
from perfcompose.pamela.language.normalisation import NormalForm
from perfcompose.pamela.language.syntax import PamelaError, PamelaProgram, Pos
from perfcompose.pamela.simulate import event_kernel

__all__ = ["Simulation", "simulate_process", "ClosedNetwork", "closed_network", "mva_cycle_time", "mva_estimate"]


@dataclass(frozen=True)
class Simulation:
    """The outcome of one simulation run."""

    time: float                               # completion time of the process
    busy: Mapping[int, float]                 # total service time per resource index
    uses: int                                 # number of use() services performed
    multiplicity: Mapping[int, int] = field(default_factory=dict)
    wall: float = 0.0                         # seconds the simulation took

    @property
    def loads(self) -> dict[int, float]:
        """Service time per server of each resource: the simulated counterpart of delta."""
        return {k: v / self.multiplicity.get(k, 1) for k, v in self.busy.items()}


@dataclass
class _Program:
    code: list[list[int]] = field(default_factory=list)
    positions: list[Pos | None] = field(default_factory=list)
    ecode: list[tuple[int, int]] = field(default_factory=list)
    econst: list[float] = field(default_factory=list)
    estart: list[int] = field(default_factory=lambda: [0])
    slots: dict[sp.Symbol, int] = field(default_factory=dict)
    nslots: int = 0
    max_stack: int = 1

    def emit(self, op: int, a: int = 0, b: int = 0, c: int = 0, d: int = 0, pos: Pos | None = None) -> int:
        self.code.append([op, a, b, c, d])
        self.positions.append(pos)
        return len(self.code) - 1


#: operations of two or more arguments, applied left to right
_BINARY = {sp.Add: event_kernel.E_ADD, sp.Mul: event_kernel.E_MUL, sp.Max: event_kernel.E_MAX,
           sp.Min: event_kernel.E_MIN, sp.And: event_kernel.E_AND, sp.Or: event_kernel.E_OR,
           sp.Eq: event_kernel.E_EQ, sp.Ne: event_kernel.E_NE, sp.StrictLessThan: event_kernel.E_LT,
           sp.LessThan: event_kernel.E_LE, sp.StrictGreaterThan: event_kernel.E_GT,
           sp.GreaterThan: event_kernel.E_GE, sp.Mod: event_kernel.E_MOD, sp.Pow: event_kernel.E_POW}
_UNARY = {sp.floor: event_kernel.E_FLOOR, sp.ceiling: event_kernel.E_CEIL, sp.Abs: event_kernel.E_ABS,
          sp.log: event_kernel.E_LOG, sp.exp: event_kernel.E_EXP, sp.Not: event_kernel.E_NOT}


class _Flattener:
    """Turns a bound normal-form process into the kernel's instruction and expression arrays."""

    def __init__(self, program: PamelaProgram, values: Mapping[str, float]):
        self.source = program
        self.values = {symbol(k): (sp.Integer(int(v)) if float(v).is_integer() else sp.Float(float(v)))
                       for k, v in values.items()}
        self.p = _Program()

    # -- expressions ------------------------------------------------------------------------

    def expression(self, expr: sp.Expr, pos: Pos | None, what: str) -> int:
        expr = sp.sympify(expr).xreplace(self.values)
        if not is_closed(expr):
            expr = simplify(expr)
        if not is_closed(expr):
            if any(s in self.p.slots for s in expr.free_symbols):  # a loop index
                raise self.source.error(f"{what} '{expr}' has a reduction over a loop index that has no closed "
                                        "form, which the simulator cannot run", pos,
                                        "write the reduction as a loop of processes, or as a closed formula")
            expr = sp.Float(evaluate(expr, {}))
        unbound = sorted(s.name for s in expr.free_symbols if s not in self.p.slots)
        if unbound:
            raise self.source.error(f"{what} needs a value for {', '.join(unbound)}", pos,
                                    "give every parameter a value, e.g. " + " ".join(f"{u}=10" for u in unbound))
        self.p.max_stack = max(self.p.max_stack, self._emit(expr, pos, what))
        self.p.estart.append(len(self.p.ecode))
        return len(self.p.estart) - 2

    def _const(self, value: float) -> int:
        self.p.econst.append(float(value))
        self.p.ecode.append((event_kernel.E_CONST, len(self.p.econst) - 1))
        return 1

    def _emit(self, e: sp.Basic, pos: Pos | None, what: str) -> int:
        """Emit postfix code for ``e``; returns the stack depth it needs."""
        code = self.p.ecode
        if e in (sp.true, sp.false):
            return self._const(float(e is sp.true))
        if e.is_number:
            if e.is_Number and not e.is_finite:
                raise self.source.error(f"{what} is not finite", pos)
            return self._const(float(e))
        if isinstance(e, sp.Symbol):  # a loop index: expression() has refused every other name
            code.append((event_kernel.E_VAR, self.p.slots[e]))
            return 1
        if isinstance(e, sp.Pow) and e.exp == -1:
            d = max(self._const(1.0), 1 + self._emit(e.base, pos, what))
            code.append((event_kernel.E_DIV, 0))
            return d
        if isinstance(e, sp.Pow) and e.exp == sp.Rational(1, 2):
            d = self._emit(e.base, pos, what)
            code.append((event_kernel.E_SQRT, 0))
            return d
        for cls, op in _BINARY.items():
            if isinstance(e, cls):
                depth = self._emit(e.args[0], pos, what)
                for arg in e.args[1:]:
                    depth = max(depth, 1 + self._emit(arg, pos, what))
                    code.append((op, 0))
                return depth
        for cls, op in _UNARY.items():
            if isinstance(e, cls):
                if cls is sp.log and len(e.args) > 1:
                    break
                d = self._emit(e.args[0], pos, what)
                code.append((op, 0))
                return d
        if isinstance(e, sp.Piecewise):
            return self._piecewise(list(e.args), pos, what)
        raise self.source.error(f"the simulator cannot evaluate {what} '{e}'", pos,
                                "use + - * / ^ mod div max min floor ceil and comparisons")

    def _piecewise(self, branches: list, pos: Pos | None, what: str) -> int:
        first = branches[0]
        if first.cond is sp.true or len(branches) == 1:
            return self._emit(first.expr, pos, what)
        depth = max(self._emit(first.cond, pos, what), 1 + self._emit(first.expr, pos, what),
                    2 + self._piecewise(branches[1:], pos, what))
        self.p.ecode.append((event_kernel.E_SELECT, 0))
        return depth

    # -- processes --------------------------------------------------------------------------

    def slot(self, index: sp.Symbol, width: int) -> int:
        if index not in self.p.slots:
            self.p.slots[index] = self.p.nslots
            self.p.nslots += width
        return self.p.slots[index]

    def process(self, proc: ir.Proc) -> None:
        p = self.p
        if isinstance(proc, ir.Use):
            t = self.expression(proc.time, proc.pos, "the time")
            if proc.resource.key is None:  # rho, the infinite server
                p.emit(event_kernel.OP_DELAY, t, pos=proc.pos)
            else:
                key = self.expression(proc.resource.key, proc.pos, "the resource index")
                mult = self.expression(proc.resource.multiplicity, proc.pos, "the multiplicity")
                p.emit(event_kernel.OP_USE, key, mult, t, pos=proc.pos)
        elif isinstance(proc, ir.Seq):
            self.process(proc.left)
            self.process(proc.right)
        elif isinstance(proc, ir.Par):
            fork = p.emit(event_kernel.OP_FORK2, pos=proc.pos)
            for field_, side in ((1, proc.left), (2, proc.right)):  # each side ends; the fork notes where
                self.process(side)
                p.emit(event_kernel.OP_END)
                p.code[fork][field_] = len(p.code)
        elif isinstance(proc, ir.Loop):
            slot = self.slot(proc.index, 2 if proc.kind == "seq" else 1)
            lo = self.expression(proc.lo, proc.pos, "the lower loop bound")
            hi = self.expression(proc.hi, proc.pos, "the upper loop bound")
            if proc.kind == "seq":
                p.emit(event_kernel.OP_LOOP_INIT, slot, lo, hi, pos=proc.pos)
                test = p.emit(event_kernel.OP_LOOP_TEST, slot, pos=proc.pos)
                self.process(proc.body)
                p.emit(event_kernel.OP_LOOP_NEXT, slot, test)
                p.code[test][2] = len(p.code)
            else:
                fork = p.emit(event_kernel.OP_FORK_LOOP, slot, lo, hi, pos=proc.pos)
                self.process(proc.body)
                p.emit(event_kernel.OP_END)
                p.code[fork][4] = len(p.code)
        elif isinstance(proc, ir.Cond):
            cond = self.expression(proc.condition, proc.pos, "the condition")
            branch = p.emit(event_kernel.OP_BRANCH, cond, pos=proc.pos)
            self.process(proc.then)
            jump = None if isinstance(proc.else_, ir.Nil) else p.emit(event_kernel.OP_JUMP)
            p.code[branch][2] = len(p.code)
            if jump is not None:
                self.process(proc.else_)
                p.code[jump][1] = len(p.code)


_MESSAGES = {
    event_kernel.ERR_KEY: ("a resource index evaluates to {v:g}, which is not a whole number",
                           "resource indices (the first argument of fcfs) must be integers"),
    event_kernel.ERR_MULT: ("a multiplicity evaluates to {v:g}; it must be a whole number from 1 to 1,000,000",
                            "the second argument of fcfs is the number of servers"),
    event_kernel.ERR_MULT_CHANGED: (
        "this resource index is used with multiplicity {v:g} here and another one elsewhere",
        "give each resource index one multiplicity"),
    event_kernel.ERR_TIME: ("a time evaluates to {v:g}; times must be at least 0", None),
    event_kernel.ERR_PROB: ("a condition evaluates to {v:g}; conditions are 0, 1 or a probability in between", None),
    event_kernel.ERR_THREADS: ("the model needs {v:.0f} processes alive at once, more than the simulator's 50 million",
                               "simulate smaller parameter values"),
    event_kernel.ERR_BOUND: ("a loop bound evaluates to {v:g}", "loop bounds must be finite numbers"),
}


_RANDOMNESS = {"deterministic": 0, "exponential-service": 1, "exponential": 2}


def operation_count(proc: ir.Proc, values: Mapping[str, float]) -> float:
    """An estimate of the ``use``/``delay`` operations one simulation executes: loops multiply their
    body (taken at the last index), both sides of ``;`` and ``||`` add, a condition takes the larger
    branch. It is computed from the model, before any event runs."""

    def number(expr: sp.Expr, bound: Mapping[str, float]) -> float:
        subs = {s: sp.Float(bound[s.name]) for s in expr.free_symbols if s.name in bound}
        try:
            value = complex(sp.sympify(expr).xreplace(subs).evalf())
        except (TypeError, ValueError):
            return math.nan
        return value.real if value.imag == 0 else math.nan

    def count(node: ir.Proc, bound: dict[str, float]) -> float:
        if isinstance(node, ir.Use):
            return 1.0
        if isinstance(node, (ir.Seq, ir.Par)):
            return count(node.left, bound) + count(node.right, bound)
        if isinstance(node, ir.Cond):
            return max(count(node.then, bound), count(node.else_, bound))
        if isinstance(node, ir.Loop):
            lo, hi = number(node.lo, bound), number(node.hi, bound)
            if not (math.isfinite(lo) and math.isfinite(hi)):
                return 0.0  # the simulator reports a bound that is not a number, with its position
            trips = max(0.0, math.floor(hi) - math.ceil(lo) + 1)
            return trips * count(node.body, {**bound, node.index.name: hi}) if trips else 0.0
        return 0.0

    return count(proc, dict(values))


def simulate_process(normal: NormalForm, values: Mapping[str, float], *, process: str = "main",
                     distribution: Distribution = "deterministic",
                     seed: int = 0) -> Simulation:
    """Simulate process ``process`` of a normalised model with the parameters bound to ``values``."""
    program = normal.program
    if process not in normal.processes or process in normal.formals:
        known = ", ".join(n for n in normal.processes if n not in normal.formals) or "none"
        raise PamelaError(f"no process '{process}' without formal parameters in {program.source_name}",
                          path=program.path, hint=f"processes: {known}")
    if distribution not in _RANDOMNESS:
        raise PamelaError(f"unknown distribution '{distribution}'", hint="choose " + ", ".join(_RANDOMNESS))
    check_steps(operation_count(normal.processes[process], values),
                f"simulating {process} of {program.source_name}")
    flattener = _Flattener(program, values)  # the kernel program, the parameters bound to values
    flattener.process(normal.processes[process])
    flat = flattener.p
    flat.emit(event_kernel.OP_END)
    code = np.asarray(flat.code, dtype=np.int64).reshape(-1, 5)
    ecode = np.asarray(flat.ecode, dtype=np.int64).reshape(-1, 2)
    econst = np.asarray(flat.econst, dtype=float)
    estart = np.asarray(flat.estart, dtype=np.int64)
    fixed = np.full(len(estart) - 1, np.nan)  # the value of each constant expression, NaN otherwise
    const = np.flatnonzero((np.diff(estart) == 1) & (ecode[estart[:-1], 0] == event_kernel.E_CONST))
    fixed[const] = econst[ecode[estart[const], 1]]
    started = time.perf_counter()
    status, pc, value, keys, mults, busy, uses = event_kernel.run(
        code, fixed, ecode, econst, estart, flat.nslots, flat.max_stack, _RANDOMNESS[distribution], int(seed))
    wall = time.perf_counter() - started
    if status != event_kernel.OK:
        message, hint = _MESSAGES[status]
        raise program.error(message.format(v=value), flat.positions[pc] if 0 <= pc < len(flat.positions) else None,
                            hint)
    order = np.argsort(keys)
    return Simulation(time=float(value), busy={int(keys[k]): float(busy[k]) for k in order},
                      uses=int(uses), multiplicity={int(keys[k]): int(mults[k]) for k in order}, wall=wall)


@dataclass(frozen=True)
class ClosedNetwork:
    """K clients cycling N times; per cycle: think time Z and the demand at each FCFS station."""

    clients: float
    cycles: float
    think: float
    demands: tuple[tuple[float, float], ...]  #: (demand per cycle, servers) per station


def _body(proc: ir.Proc, values: dict, think: list[float], demand: dict) -> bool:
    if isinstance(proc, ir.Nil):
        return True
    if isinstance(proc, ir.Seq):
        return _body(proc.left, values, think, demand) and _body(proc.right, values, think, demand)
    if isinstance(proc, ir.Use):
        t = float(proc.time.subs(values))
        if proc.resource.key is None:  # the infinite server
            think[0] += t
            return True
        key = proc.resource.key.subs(values)
        if key.free_symbols:
            return False  # a resource of its own per client: not one shared station
        m = float(proc.resource.multiplicity.subs(values))
        demand[key] = (demand.get(key, (0.0, m))[0] + t, m)
        return True
    return False


def closed_network(proc: ir.Proc, values: Mapping[str, float]) -> ClosedNetwork | None:
    """The network of ``proc`` at the given values, or None where it is not of that form."""
    subs = {symbol(k): v for k, v in values.items()}
    inner = proc.body if isinstance(proc, ir.Loop) and proc.kind == "par" else None
    if not (isinstance(proc, ir.Loop) and isinstance(inner, ir.Loop) and inner.kind == "seq"):
        return None
    try:
        clients = float(proc.hi.subs(subs) - proc.lo.subs(subs) + 1)
        cycles = float(inner.hi.subs(subs) - inner.lo.subs(subs) + 1)
        think = [0.0]
        demand: dict = {}
        if not _body(inner.body, subs, think, demand):
            return None
    except (TypeError, ValueError):  # something left symbolic (a loop index in a time)
        return None
    return ClosedNetwork(clients, cycles, think[0], tuple(demand.values()))


def mva_cycle_time(net: ClosedNetwork) -> float:
    """Exact MVA's mean cycle time with ``net.clients`` customers."""
    K = int(round(net.clients))
    queues = [0.0] * len(net.demands)
    cycle = net.think + sum(d for d, _ in net.demands)
    for n in range(1, K + 1):
        times = [d / m * (1 + q) + d * (m - 1) / m for (d, m), q in zip(net.demands, queues)]
        cycle = net.think + sum(times)
        queues = [n / cycle * (r - d * (m - 1) / m) for r, (d, m) in zip(times, net.demands)]
    return cycle


def mva_estimate(proc: ir.Proc, values: Mapping[str, float]) -> float | None:
    """MVA's estimate of the completion time, or None where the process is no closed network."""
    net = closed_network(proc, values)
    if net is None or net.clients < 1 or net.cycles < 1:
        return None
    return net.cycles * mva_cycle_time(net)
