"""Normalisation by substitution (paper 004, section 2.1), with PAMELA's strong typing: every name
replaced by its right-hand side until only parameters, loop indices and predefined operators remain,
each expression checked to be of the kind its place needs, calls for arity, recursion refused.
Numbers become SymPy expressions, processes :mod:`perfcompose.pamela.compile.ir`. Before it, the names
are checked: each equation well formed, every name defined, every call of the
right arity; errors name the line and column, with a suggestion where a name is close.
"""
from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from perfcompose.model import symbol
from perfcompose.pamela.compile import ir
from perfcompose.pamela.compile.symbolic import (
    MaxOver,
    MinOver,
    UnitVec,
    VMax,
    choose,
    index_symbol,
    indicator,
    is_vector,
)
from perfcompose.pamela.language.syntax import (
    BinOp,
    Call,
    Equation,
    If,
    Loop,
    Name,
    Neg,
    Node,
    Number,
    PamelaError,
    PamelaProgram,
    Pos,
    Vector,
)

__all__ = ["NormalForm", "normalise", "BUILTINS"]

# name -> (kind, allowed argument counts; None = any number >= 1)
BUILTINS: dict[str, tuple[str, tuple[int, ...] | None]] = {
    "use": ("process", (2,)), "delay": ("process", (1,)), "fcfs": ("resource", (1, 2)), "rho": ("resource", (0,)),
    "max": ("numeric", None), "min": ("numeric", None),
    **{name: ("numeric", (1,)) for name in ("unitvec", "ceil", "floor", "sqrt", "log", "log2", "exp", "abs")}}


def _arity_text(counts: tuple[int, ...] | None) -> str:
    if counts is None:
        return "one or more arguments"
    return f"{' or '.join(str(c) for c in counts)} argument{'s' if counts != (1,) else ''}"


def _children(node: Node) -> tuple[Node, ...]:
    if isinstance(node, Call):
        return node.args
    if isinstance(node, BinOp):
        return (node.left, node.right)
    if isinstance(node, Neg):
        return (node.operand,)
    if isinstance(node, If):
        return (node.cond, node.then) + ((node.else_,) if node.else_ is not None else ())
    if isinstance(node, Vector):
        return node.items
    return ()


_NOUN = {"numeric": "a number", "process": "a process", "resource": "a resource"}
_COMPARE = {"==", "!=", "<", "<=", ">", ">="}


@dataclass(frozen=True)
class _Value:
    """A name that stands for a number: a loop index (its integer symbol), or a formal parameter
    of an equation compiled on its own (a parameter symbol)."""

    value: sp.Expr


@dataclass(frozen=True)
class _Arg:
    """A formal parameter bound to the actual argument, read in the caller's scope ``env``."""

    node: Node
    env: Env


Binding = _Value | _Arg
Env = Mapping[str, Binding]


@dataclass(frozen=True)
class NormalForm:
    """A model after substitution: its parameters, the normal form of each process (one with formals
    that are used as numbers, with them as parameters) and the value of each numeric equation."""

    program: PamelaProgram
    parameters: tuple[str, ...]
    processes: Mapping[str, ir.Proc] = field(default_factory=dict)
    numerics: Mapping[str, sp.Expr] = field(default_factory=dict)
    formals: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


class _Normaliser:
    """A program's equations by name, checked as they are read (:meth:`check_names` checks every use);
    then substituted and type-checked. One instance per program (it caches formal-free equations)."""

    def __init__(self, program: PamelaProgram):
        self.program = program
        self.eqs: dict[str, Equation] = {}
        for eq in program.equations:
            self._check_equation(eq)
            self.eqs[eq.name] = eq
        self.parameters = tuple(eq.name for eq in program.equations if eq.kind == "numeric" and eq.parameter)
        self.cache: dict[tuple[str, str], object] = {}
        self.stack: list[tuple[str, Pos]] = []
        self.used_names: set[str] = set(self.eqs) | set(BUILTINS)
        self.index_count: dict[str, int] = {}

    # -- names ------------------------------------------------------------------------------

    def error(self, message: str, pos: Pos | None, hint: str | None = None) -> PamelaError:
        return self.program.error(message, pos, hint)

    def _check_equation(self, eq: Equation) -> None:
        if eq.name in self.eqs:
            first = self.eqs[eq.name].pos
            raise self.error(f"'{eq.name}' is defined twice (first at line {first.line})", eq.pos,
                             "give each equation its own name")
        if eq.name == "fcfs":
            if eq.kind != "resource" or not eq.parameter or eq.body is not None:
                raise self.error("'fcfs' is the predefined FCFS resource array", eq.pos,
                                 "declare it as 'resource parameter fcfs(i)', or leave it out")
            return
        if eq.name in BUILTINS:
            raise self.error(f"'{eq.name}' is predefined and cannot be redefined", eq.pos,
                             "choose another name")
        if eq.parameter:
            if eq.kind == "process":
                raise self.error("a process cannot be a parameter", eq.pos,
                                 "parameters are numbers ('numeric parameter N') or 'resource parameter fcfs(i)'")
            if eq.kind == "resource":
                raise self.error(f"the only resource parameter is the predefined 'fcfs', not '{eq.name}'",
                                 eq.pos, f"define it from fcfs: 'resource {eq.name} = fcfs(0, 1)' "
                                 "(index, multiplicity)")
            if eq.body is not None:
                raise self.error(f"the parameter '{eq.name}' cannot have a right-hand side", eq.pos,
                                 f"remove 'parameter' to give it a value, or '= ...' to keep {eq.name} symbolic")
            if eq.has_formals:
                raise self.error(f"the numeric parameter '{eq.name}' cannot take arguments", eq.pos,
                                 f"write 'numeric parameter {eq.name}'")
        elif eq.body is None:
            raise self.error(f"'{eq.name}' has no right-hand side", eq.pos,
                             f"write '{eq.kind} {eq.name} = ...'" + (
                                 f", or 'numeric parameter {eq.name}' to keep it symbolic"
                                 if eq.kind == "numeric" else ""))

    def check_names(self) -> None:
        """Every name is defined and every call has the right number of arguments."""
        for eq in self.program.equations:
            if eq.body is not None:
                self._check_scope(eq.body, set(eq.formals))

    def _check_scope(self, node: Node, scope: set[str]) -> None:
        if isinstance(node, Loop):  # the index is in scope in the body only
            for part, names in ((node.lo, scope), (node.hi, scope), (node.body, scope | {node.index})):
                self._check_scope(part, names)
            return
        if isinstance(node, Name):
            if node.name in scope:
                return
            self.lookup(node.name, node.pos)
            self.arity(node.name, 0, node.pos, bare=True)
            return
        if isinstance(node, Call):
            if node.name in scope:
                raise self.error(f"'{node.name}' is a formal parameter or loop index and takes no arguments",
                                 node.pos)
            self.lookup(node.name, node.pos)
            self.arity(node.name, len(node.args), node.pos)
            for a in node.args:
                self._check_scope(a, scope)
            return
        for child in _children(node):
            self._check_scope(child, scope)

    def lookup(self, name: str, pos: Pos) -> str:
        """The kind of a global name; an 'undefined' error with a suggestion otherwise."""
        if name in self.eqs and name != "fcfs":
            return self.eqs[name].kind
        if name in BUILTINS:
            return BUILTINS[name][0]
        close = difflib.get_close_matches(name, sorted(set(self.eqs) | set(BUILTINS)), n=1)
        hint = f"did you mean '{close[0]}'? " if close else ""
        hint += f"define it, e.g. 'numeric {name} = ...' or 'numeric parameter {name}'"
        raise self.error(f"undefined name '{name}'", pos, hint)

    def arity(self, name: str, count: int, pos: Pos, bare: bool = False) -> None:
        eq = self.eqs.get(name)
        if eq is not None and name != "fcfs":
            want = len(eq.formals)
            if bare and eq.has_formals and want:
                raise self.error(f"'{name}' takes {want} argument{'s' if want != 1 else ''} "
                                 f"({', '.join(eq.formals)}), got none", pos,
                                 f"write {name}({', '.join(eq.formals)})")
            if not bare and count != want:
                what = f"takes {want} argument{'s' if want != 1 else ''}" + (
                    f" ({', '.join(eq.formals)})" if want else "")
                raise self.error(f"'{name}' {what}, got {count}", pos,
                                 f"call it as {name}({', '.join(eq.formals)})" if want else f"write '{name}' alone")
            return
        kind, counts = BUILTINS[name]
        if bare:
            if counts != (0,):
                raise self.error(f"'{name}' is an operator and needs arguments", pos,
                                 f"'{name}' takes {_arity_text(counts)}")
            return
        if counts == (0,):
            raise self.error(f"'{name}' takes no arguments", pos, f"write '{name}' alone")
        if counts is None:
            if count < 1:
                raise self.error(f"'{name}' needs at least one argument", pos)
        elif count not in counts:
            raise self.error(f"'{name}' takes {_arity_text(counts)}, got {count}", pos,
                             {"use": "write use(resource, time)", "delay": "write delay(time)",
                              "fcfs": "write fcfs(index, multiplicity)"}.get(name))

    # -- kinds ------------------------------------------------------------------------------

    def kind_of(self, node: Node, env: Env) -> str:
        """The kind an expression has (best effort, for error messages)."""
        if isinstance(node, (Name, Call)):
            b = env.get(node.name)
            if isinstance(b, _Value):
                return "numeric"
            if isinstance(b, _Arg):
                return self.kind_of(b.node, b.env)
            return self.lookup(node.name, node.pos)  # every name is defined (check_names)
        if isinstance(node, BinOp):
            return "process" if node.op in (";", "||") else "numeric"
        if isinstance(node, Loop):
            return "process" if node.kind in ("seq", "par") else "numeric"
        if isinstance(node, If):
            return self.kind_of(node.then, env)
        return "numeric"

    def mismatch(self, node: Node, env: Env, want: str) -> PamelaError:
        have = self.kind_of(node, env)
        what = (f"'{node.name}' is" if isinstance(node, (Name, Call)) else f"'{node.op}' makes"
                if isinstance(node, BinOp) else f"a '{node.kind}' loop is" if isinstance(node, Loop) else "this is")
        hints = {"numeric": "a number is needed here: a numeric equation, a parameter, an index or an expression",
                 "process": "a process is needed here: use(r, t), delay(t), a process equation, ';', '||', "
                            "seq, par or if",
                 "resource": "a resource is needed here: fcfs(index, multiplicity), rho or a resource equation"}
        return self.error(f"{what} {_NOUN.get(have, have)}, used here as {_NOUN[want]}", node.pos, hints[want])

    # -- equations --------------------------------------------------------------------------

    def expand(self, eq: Equation, pos: Pos, kind: str, args: tuple[Node, ...], env: Env):
        """Substitute equation ``eq`` (called at ``pos`` with ``args`` from ``env``)."""
        if any(name == eq.name for name, _ in self.stack):
            chain = " -> ".join([n for n, _ in self.stack][[n for n, _ in self.stack].index(eq.name):] + [eq.name])
            raise self.error(f"'{eq.name}' is defined in terms of itself ({chain})", pos,
                             "PAMELA models are series-parallel: write repetition with seq or par loops")
        key = (kind, eq.name)
        if not eq.formals and key in self.cache:
            return self.cache[key]
        body_env: dict[str, Binding] = {f: _Arg(a, env) for f, a in zip(eq.formals, args)}
        self.stack.append((eq.name, pos))
        try:
            result = getattr(self, kind)(eq.body, body_env)
        finally:
            self.stack.pop()
        if not eq.formals:
            self.cache[key] = result
        return result

    def fresh_index(self, name: str) -> sp.Symbol:
        """A new integer symbol per loop, so substitution never captures an index."""
        n = self.index_count.get(name, 0) + 1
        while (candidate := name if n == 1 else f"{name}{n}") in self.used_names:
            n += 1
        self.index_count[name] = n
        self.used_names.add(candidate)
        return index_symbol(candidate)

    # -- numbers ----------------------------------------------------------------------------

    def scalar(self, node: Node, env: Env, what: str) -> sp.Expr:
        value = self.numeric(node, env)
        if is_vector(value):
            raise self.error(f"{what} must be a number, not a vector", node.pos)
        return value

    def numeric(self, node: Node, env: Env) -> sp.Expr:
        if isinstance(node, Number):
            return sp.Rational(node.text)  # exact (0.1 is 1/10): sums of times carry no rounding
        if isinstance(node, Name):
            return self._named(node, env, "numeric", self.numeric)
        if isinstance(node, Call):
            return self.numeric_call(node, env)
        if isinstance(node, Neg):
            return -self.numeric(node.operand, env)
        if isinstance(node, BinOp):
            return self.numeric_binop(node, env)
        if isinstance(node, Loop):
            if node.kind in ("seq", "par"):
                raise self.mismatch(node, env, "numeric")
            index, lo, hi, body = self.loop(node, env, self.numeric)
            if node.kind == "sum":
                return sp.Sum(body, (index, lo, hi))
            if is_vector(body):
                raise self.error(f"'{node.kind}' over an index takes numbers, not vectors", node.pos,
                                 "use max(v) for the largest element of a vector")
            return (MaxOver if node.kind == "max" else MinOver)(body, (index, lo, hi))
        if isinstance(node, If):
            return choose(*self.branches(node, env, self.numeric, sp.Integer(0)))
        # a Vector
        return sp.Add(*[self.scalar(item, env, "a vector element") * UnitVec(k) for k, item in enumerate(node.items)])

    def numeric_binop(self, node: BinOp, env: Env) -> sp.Expr:
        try:
            value = self._numeric_binop(node, env)
        except ZeroDivisionError:  # SymPy's Mod(N, 0) raises instead of giving nan
            raise self.error(f"'{node.op}' by zero", node.pos, "check the divisor") from None
        if value.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
            raise self.error(f"'{node.op}' gives an undefined or infinite number here (division by zero?)",
                             node.pos, "check the divisor")
        return value

    def _numeric_binop(self, node: BinOp, env: Env) -> sp.Expr:
        if node.op in (";", "||"):
            raise self.mismatch(node, env, "numeric")
        a = self.numeric(node.left, env)
        b = self.numeric(node.right, env)
        va, vb = is_vector(a), is_vector(b)
        op = node.op
        if op in _COMPARE:
            if va or vb:
                raise self.error(f"vectors cannot be compared with '{op}'", node.pos,
                                 "compare their elements, e.g. max(v) < 10")
            return indicator({"==": sp.Eq, "!=": sp.Ne, "<": sp.Lt, "<=": sp.Le, ">": sp.Gt, ">=": sp.Ge}[op](a, b))
        if op in ("+", "-"):
            if va != vb and not (a == 0 or b == 0):
                raise self.error(f"cannot {'add' if op == '+' else 'subtract'} a vector and a number", node.pos,
                                 "vectors add element-wise to vectors; scale them with * and /")
            return a + b if op == "+" else a - b
        if op == "*":
            if va and vb:
                raise self.error("two vectors cannot be multiplied", node.pos, "multiply a vector by a number")
            return a * b
        if vb:
            raise self.error(f"a vector cannot be the right operand of '{op}'", node.pos)
        if op == "/":
            return a / b
        if va:
            raise self.error(f"'{op}' takes numbers, not vectors", node.pos)
        if op == "^":
            return a ** b
        if op == "mod":
            return sp.Mod(a, b)
        return sp.floor(a / b)  # div

    def numeric_call(self, node: Call, env: Env) -> sp.Expr:
        name = node.name
        self._called(node, env, "numeric")
        if name in self.eqs:  # a numeric equation (_called has refused any other kind)
            return self.expand(self.eqs[name], node.pos, "numeric", node.args, env)
        if name == "unitvec":
            return UnitVec(self.scalar(node.args[0], env, "the index of unitvec"))
        if name in ("max", "min"):
            values = [self.numeric(a, env) for a in node.args]
            if len(values) == 1 and is_vector(values[0]):
                if name == "min":
                    raise self.error("min of a vector is not supported", node.pos, "max(v) gives omega")
                return VMax(values[0])
            if any(is_vector(v) for v in values):
                raise self.error(f"{name}(a, b, ...) takes numbers; max(v) alone gives the largest element "
                                 "of a vector", node.pos)
            return (sp.Max if name == "max" else sp.Min)(*values)
        arg = self.scalar(node.args[0], env, f"the argument of {name}")
        funcs = {"ceil": sp.ceiling, "floor": sp.floor, "sqrt": sp.sqrt, "log": sp.log,
                 "log2": lambda x: sp.log(x, 2), "exp": sp.exp, "abs": sp.Abs}
        return funcs[name](arg)

    # -- resources --------------------------------------------------------------------------

    def _named(self, node: Name, env: Env, kind: str, again: Any) -> Any:
        """A bare name where a ``kind`` is needed: a loop index (a number), the argument a formal stands for
        (``again`` reads it), ``rho``, a numeric parameter, or the equation of that name expanded."""
        b = env.get(node.name)
        if isinstance(b, _Value) and kind == "numeric":
            return b.value
        if isinstance(b, _Arg):
            if self.kind_of(b.node, b.env) != kind:
                raise self.mismatch(node, env, kind)
            return again(b.node, b.env)
        if b is not None or self.lookup(node.name, node.pos) != kind:
            raise self.mismatch(node, env, kind)
        if node.name == "rho":
            return ir.RHO
        if kind == "numeric" and self.eqs[node.name].parameter:
            return symbol(node.name)
        return self.expand(self.eqs[node.name], node.pos, kind, (), env)

    def _called(self, node: Call, env: Env, kind: str) -> None:
        """Check a call where a ``kind`` is needed: an equation or operator of that kind (check_names has
        refused calls of formals and calls with the wrong number of arguments)."""
        if self.lookup(node.name, node.pos) != kind:
            raise self.mismatch(node, env, kind)

    def resource(self, node: Node, env: Env) -> ir.Resource:
        if isinstance(node, Name):
            return self._named(node, env, "resource", self.resource)
        if isinstance(node, Call):
            self._called(node, env, "resource")
            if node.name == "fcfs":
                key = self.scalar(node.args[0], env, "a resource index")
                mult = self.scalar(node.args[1], env, "a multiplicity") if len(node.args) > 1 else sp.Integer(1)
                if mult.is_number and (not mult.is_integer or mult < 1):
                    raise self.error(f"a multiplicity must be a whole number of at least 1, got {mult}",
                                     node.args[1].pos)
                return ir.Resource(key, mult)
            return self.expand(self.eqs[node.name], node.pos, "resource", node.args, env)
        if isinstance(node, If):
            raise self.error("a resource cannot be chosen by 'if'", node.pos,
                             "put the 'if' around the use: if (c) use(a, t) else use(b, t)")
        raise self.mismatch(node, env, "resource")

    # -- processes --------------------------------------------------------------------------

    def process(self, node: Node, env: Env) -> ir.Proc:
        if isinstance(node, Name):
            return self._named(node, env, "process", self.process)
        if isinstance(node, Call):
            name = node.name
            self._called(node, env, "process")
            if name == "use":
                res = self.resource(node.args[0], env)
                return ir.Use(res, self.scalar(node.args[1], env, "a service time"), node.pos)
            if name == "delay":
                return ir.Use(ir.RHO, self.scalar(node.args[0], env, "a delay"), node.pos)
            return self.expand(self.eqs[name], node.pos, "process", node.args, env)
        if isinstance(node, BinOp) and node.op in (";", "||"):
            return (ir.Seq if node.op == ";" else ir.Par)(self.process(node.left, env), self.process(node.right, env),
                                                          node.pos)
        if isinstance(node, Loop) and node.kind in ("seq", "par"):
            return ir.Loop(node.kind, *self.loop(node, env, self.process), node.pos)
        if isinstance(node, If):
            return ir.Cond(*self.branches(node, env, self.process, ir.NIL), node.pos)
        raise self.mismatch(node, env, "process")

    def loop(self, node: Loop, env: Env, read: Any) -> tuple[sp.Symbol, sp.Expr, sp.Expr, Any]:
        """``(index, lo, hi, body)`` of a loop, its body read by ``read`` with a fresh index."""
        lo = self.scalar(node.lo, env, "a loop bound")
        hi = self.scalar(node.hi, env, "a loop bound")
        index = self.fresh_index(node.index)
        return index, lo, hi, read(node.body, {**env, node.index: _Value(index)})

    def branches(self, node: If, env: Env, read: Any, nothing: Any) -> tuple[sp.Expr, Any, Any]:
        """``(condition, then, else)`` of an ``if``, its branches read by ``read`` (``nothing``
        where there is no ``else``)."""
        cond = self.scalar(node.cond, env, "a condition")
        return cond, read(node.then, env), read(node.else_, env) if node.else_ is not None else nothing


def normalise(program: PamelaProgram) -> NormalForm:
    """Substitute every equation of ``program`` down to parameters (paper 004, section 2.1); errors name
    the line and column."""
    n = _Normaliser(program)
    n.check_names()
    processes: dict[str, ir.Proc] = {}
    numerics: dict[str, sp.Expr] = {}
    formals: dict[str, tuple[str, ...]] = {}
    for eq in program.equations:
        if eq.parameter or eq.body is None:
            continue
        if not eq.formals:
            if eq.kind == "process":
                processes[eq.name] = n.process(eq.body, {})
            elif eq.kind == "numeric":
                numerics[eq.name] = n.numeric(eq.body, {})
            else:
                n.resource(eq.body, {})
            continue
        if eq.kind != "process":
            continue
        try:
            processes[eq.name] = n.process(eq.body, {f: _Value(symbol(f)) for f in eq.formals})
            formals[eq.name] = eq.formals
        except PamelaError:
            continue  # a formal is used as a process or a resource: compiled where it is called
    return NormalForm(program, n.parameters, processes, numerics, formals)
