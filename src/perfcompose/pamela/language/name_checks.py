"""The names of a PAMELA model checked: each equation well formed, every name defined, every call
of the right arity; errors name the line and column, with a suggestion where a name is close."""
from __future__ import annotations

import difflib

from perfcompose.pamela.language.syntax import (
    BinOp,
    Call,
    Equation,
    If,
    Loop,
    Name,
    Neg,
    Node,
    PamelaError,
    PamelaProgram,
    Pos,
    Vector,
)

__all__ = ["BUILTINS", "NameChecker"]

# name -> (kind, allowed argument counts; None = any number >= 1)
BUILTINS: dict[str, tuple[str, tuple[int, ...] | None]] = {
    "use": ("process", (2,)), "delay": ("process", (1,)), "fcfs": ("resource", (1, 2)), "rho": ("resource", (0,)),
    "max": ("numeric", None), "min": ("numeric", None),
    **{name: ("numeric", (1,)) for name in ("unitvec", "ceil", "floor", "sqrt", "log", "log2", "exp", "abs")}}


def _arity_text(counts: tuple[int, ...] | None) -> str:
    if counts is None:
        return "one or more arguments"
    words = " or ".join(str(c) for c in counts)
    return f"{words} argument{'s' if counts != (1,) else ''}"


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


class NameChecker:
    """A program's equations by name, checked as they are read; :meth:`check_names` checks every use."""

    def __init__(self, program: PamelaProgram):
        self.program = program
        self.eqs: dict[str, Equation] = {}
        for eq in program.equations:
            self._check_equation(eq)
            self.eqs[eq.name] = eq

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
        if isinstance(node, Loop):
            self._check_scope(node.lo, scope)
            self._check_scope(node.hi, scope)
            self._check_scope(node.body, scope | {node.index})
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
        eq = self.eqs.get(name)
        if eq is not None and name != "fcfs":
            return eq.kind
        if name in BUILTINS:
            return BUILTINS[name][0]
        known = sorted(set(self.eqs) | set(BUILTINS))
        close = difflib.get_close_matches(name, known, n=1)
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
