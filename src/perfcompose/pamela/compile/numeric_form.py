"""A compiled cost model (the output of ``pamela compile``) read back and evaluated without SymPy.

Each right-hand side is read with Python's :mod:`ast` against a whitelist (numbers, names,
``+ - * / ^ mod div``, a few functions, ``[a, b, ...]`` load vectors), the equations it uses are
written into it, and it is compiled into a plain function on floats. Anything else makes
:func:`read_numeric_form` return None, and the file is compiled as a PAMELA program.
"""
from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from perfcompose.errors import InputError

__all__ = ["MAX_TEXT", "NumericForm", "read_numeric_form"]

MAX_TEXT = 1_000_000
"""The longest file read this way (characters); a longer one is compiled as a program."""

MAX_NODES = 100_000
"""The most syntax-tree nodes of one equation once the equations it uses are written into it."""

_PARAMETER = re.compile(r"numeric\s+parameter\s+([A-Za-z_][A-Za-z0-9_]*)")
_EQUATION = re.compile(r"numeric\s+([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(\S.*)")
_KEYWORDS = ((re.compile(r"\bmod\b"), "%"), (re.compile(r"\bdiv\b"), "//"), (re.compile(r"\^"), "**"))

_FUNCTIONS: dict[str, Callable[..., float]] = {
    "max": max, "min": min, "ceil": math.ceil, "floor": math.floor, "sqrt": math.sqrt, "log": math.log,
    "log2": math.log2, "exp": math.exp, "abs": abs}
_ARITY = {"max": None, "min": None, "ceil": 1, "floor": 1, "sqrt": 1, "log": 1, "log2": 1, "exp": 1, "abs": 1}
_BINARY = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.Mod, ast.FloorDiv)


class _NotNumeric(Exception):
    """The text is not a plain numeric form."""


def _readable(text: str) -> ast.expr | None:
    """One right-hand side as a checked Python expression tree (numbers as floats), or None where the text is
    beyond the subset."""
    for pattern, python in _KEYWORDS:
        text = pattern.sub(python, text)
    try:
        tree = ast.parse(text.strip(), mode="eval").body
        _check(tree, top=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError, _NotNumeric):
        return None
    return tree


def _check(root: ast.expr, top: bool) -> None:
    """Refuse every node kind but arithmetic, names, whitelisted calls and a top-level vector."""
    stack: list[tuple[ast.AST, bool]] = [(root, top)]
    while stack:
        node, at_top = stack.pop()
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
                and not isinstance(node.value, bool):
            node.value = float(node.value)
        elif isinstance(node, ast.Name):
            pass
        elif isinstance(node, ast.BinOp) and isinstance(node.op, _BINARY):
            stack += [(node.left, False), (node.right, False)]
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            stack.append((node.operand, False))
        elif isinstance(node, ast.List) and at_top:
            stack += [(e, False) for e in node.elts]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS
              and not node.keywords and node.args and _ARITY[node.func.id] in (None, len(node.args))
              and not any(isinstance(a, ast.Starred) for a in node.args)):
            stack += [(a, False) for a in node.args]
        else:
            raise _NotNumeric


def _names(tree: ast.expr) -> set[str]:
    """Names an expression uses, function names left out."""
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and id(n) not in called}


class _Inline(ast.NodeTransformer):
    """Replaces each name of an equation by its (already inlined) right-hand side."""

    def __init__(self, done: Mapping[str, ast.expr | None]):
        self.done = done

    def visit_Call(self, node: ast.Call) -> ast.AST:
        node.args = [self.visit(a) for a in node.args]
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return self.done.get(node.id) or node


def _inline(equations: Mapping[str, ast.expr | None], parameters: Sequence[str]) -> dict[str, ast.expr | None]:
    """Every equation in terms of the parameters alone (None: an equation outside the subset, or
    one that uses such an equation); an unknown name, a cycle or a vector used in another
    equation: not numeric."""
    vectors = {n for n, t in equations.items() if isinstance(t, ast.List)}
    if any(t is not None and _names(t) & vectors for t in equations.values()):
        raise _NotNumeric
    done: dict[str, ast.expr | None] = {}
    pending = dict(equations)
    while pending:
        ready = [n for n, t in pending.items() if t is None or _names(t) <= set(done) | set(parameters)]
        if not ready:
            raise _NotNumeric
        for name in ready:
            tree = pending.pop(name)
            if tree is None or any(done.get(n, 0) is None for n in _names(tree)):
                done[name] = None
            else:
                done[name] = _Inline(done).visit(tree)
    return done


def _function(tree: ast.expr, parameters: Sequence[str]) -> Callable[..., Any]:
    """``lambda <parameters>: <tree>`` compiled; the tree holds only whitelisted nodes."""
    for count, _ in enumerate(ast.walk(tree)):
        if count > MAX_NODES:
            raise _NotNumeric
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in parameters], kwonlyargs=[],
                         kw_defaults=[], defaults=[])
    lam = ast.Expression(body=ast.Lambda(args=args, body=tree))
    ast.fix_missing_locations(lam)
    try:
        code = compile(lam, "<numeric form>", "eval")
    except (RecursionError, MemoryError, ValueError, SyntaxError):
        raise _NotNumeric from None
    return eval(code, {"__builtins__": {}, **_FUNCTIONS})


@dataclass(frozen=True)
class NumericForm:
    """A cost model as numeric equations: ``parameters`` and a function of them per equation;
    ``unread``: equations stated in a form beyond this reader (a load vector as a sum over an
    index), which only the PAMELA compiler evaluates."""

    parameters: tuple[str, ...]
    functions: Mapping[str, Callable[..., Any]]
    unread: frozenset[str] = frozenset()
    #: the parameters each equation uses (once the equations it refers to are written into it)
    uses: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def reads(self, name: str = "main", quantities: Sequence[str] = ("T",)) -> bool:
        """True when every quantity of process ``name`` is stated here in readable form."""
        return f"T_{name}" in self.functions and not any(f"{q}_{name}" in self.unread for q in quantities)

    def needs(self, name: str = "main", quantities: Sequence[str] = ("T",)) -> tuple[str, ...]:
        """The parameters the ``quantities`` of process ``name`` use, in declaration order."""
        used = set().union(*(self.uses.get(f"{q}_{name}", frozenset()) for q in quantities))
        return tuple(p for p in self.parameters if p in used)

    def function(self, name: str = "main", quantity: str = "T") -> Callable[..., float] | None:
        """``quantity_name`` as a function of the parameters (in :attr:`parameters` order)."""
        return self.functions.get(f"{quantity}_{name}")

    def quantity(self, name: str, quantity: str, values: Mapping[str, float], default: Any = None) -> Any:
        """``quantity_name`` at ``values`` (``default`` where the file does not state it); a
        parameter the equation does not use needs no value."""
        fn = self.function(name, quantity)
        if fn is None:
            return default
        try:
            return fn(*(float(values[p]) if p in values else math.nan for p in self.parameters))
        except ValueError as exc:  # math domain errors: log(0), sqrt(-1), ceil(nan)
            where = ", ".join(f"{k}={v:g}" for k, v in values.items())
            raise InputError(f"{quantity}_{name} cannot be evaluated at {where}: {exc}",
                             hint="the model is undefined there; choose other values") from None


def read_numeric_form(text: str) -> NumericForm | None:
    """The numeric form in ``text``, or None where the text is more than numeric equations."""
    if len(text) > MAX_TEXT:
        return None
    parameters: list[str] = []
    equations: dict[str, ast.expr | None] = {}
    try:
        for raw in text.splitlines():
            line = raw.split("%", 1)[0].strip()
            if not line:
                continue
            if m := _PARAMETER.fullmatch(line):
                parameters.append(m.group(1))
            elif (m := _EQUATION.fullmatch(line)) and m.group(1) not in equations:
                equations[m.group(1)] = _readable(m.group(2))
            else:
                return None
        if len(set(parameters)) != len(parameters) or set(parameters) & set(equations):
            return None
        inlined = _inline(equations, parameters)
        return NumericForm(tuple(parameters), {n: _function(t, parameters) for n, t in inlined.items() if t},
                           frozenset(n for n, t in inlined.items() if t is None),
                           {n: frozenset(_names(t)) for n, t in inlined.items() if t})
    except (_NotNumeric, RecursionError):
        return None
