"""A compiled cost model (the output of ``pamela compile``) read back and evaluated without SymPy.

Each right-hand side is read with Python's :mod:`ast` against a whitelist (numbers, names,
``+ - * / ^ mod div``, a few functions, ``[a, b, ...]`` load vectors), the equations it uses are
written into it, and it is compiled into a plain function on floats. Anything else makes
:func:`read_numeric_form` return None, and the file is compiled as a PAMELA program.

Compiled models are kept on disk as Python keeps compiled modules in ``__pycache__``: an entry (the
numeric form) is keyed by the model's path, text, process and ``paper_phi`` and records a hash of
every included file; a change makes it stale. Entries live in
``platformdirs.user_cache_dir("perfcompose")/pamela``; ``PERFCOMPOSE_CACHE_DIR`` names another
folder, ``PERFCOMPOSE_CACHE_DIR=off`` turns the cache off.
"""
from __future__ import annotations

import ast
import contextlib
import hashlib
import json
import math
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from platformdirs import user_cache_dir

from perfcompose.errors import InputError

if TYPE_CHECKING:
    from perfcompose.pamela.compile.costmodel import CostModel

__all__ = ["MAX_TEXT", "NumericForm", "read_numeric_form", "cache_folder", "compile_cached", "numeric_form"]

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
            done[name] = (None if tree is None or any(done.get(n, 0) is None for n in _names(tree))
                          else _Inline(done).visit(tree))
    return done


def _function(tree: ast.expr, parameters: Sequence[str]) -> Callable[..., Any]:
    """``lambda <parameters>: <tree>`` compiled; the tree holds only whitelisted nodes."""
    if any(count > MAX_NODES for count, _ in enumerate(ast.walk(tree))):
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


#: changes whenever the compiler's output for the same source may change
_FORMAT = "perfcompose-pamela-numeric/1"


def cache_folder() -> Path | None:
    """Where entries are kept; None when the cache is off."""
    chosen = os.environ.get("PERFCOMPOSE_CACHE_DIR")
    if chosen is not None:
        return None if chosen.strip().lower() in ("", "off", "0", "no") else Path(chosen) / "pamela"
    return Path(user_cache_dir("perfcompose")) / "pamela"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _entry(path: Path, text: str, process: str, paper_phi: bool) -> Path | None:
    folder = cache_folder()
    if folder is None:
        return None
    key = _digest("\n".join((_FORMAT, str(path.resolve()), process, str(paper_phi), text)))
    return folder / f"{key[:40]}.json"


def _fresh(sources: Mapping[str, str]) -> bool:
    """True when every included file still has the text it had when the entry was made."""
    try:
        return all(_digest(Path(name).read_text(encoding="utf-8")) == digest for name, digest in sources.items())
    except (OSError, UnicodeDecodeError):
        return False


def numeric_form(path: Path, process: str = "main", paper_phi: bool = False,
                 quantities: tuple[str, ...] = ("T",)) -> NumericForm | None:
    """The numeric form of the model in ``path`` stating ``quantities`` of ``process``, from the
    file itself or a fresh cache entry; None: the model must be compiled."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None  # the compiler reports it, with its place
    form = read_numeric_form(text)
    if form is None:  # a fresh cache entry, if any
        entry = _entry(path, text, process, paper_phi)
        try:
            record = json.loads(entry.read_text(encoding="utf-8")) if entry is not None else None
        except (OSError, ValueError):
            return None
        if not isinstance(record, dict) or record.get("format") != _FORMAT or not _fresh(record.get("sources", {})):
            return None
        form = read_numeric_form(str(record.get("numeric", "")))
    return form if form is not None and form.reads(process, quantities) else None


def compile_cached(path: Path, process: str = "main", paper_phi: bool = False) -> CostModel:
    """Compile the model in ``path`` and store its numeric form for :func:`numeric_form`."""
    from perfcompose.pamela.compile.costmodel import compile_file

    cm = compile_file(path, paper_phi=paper_phi)
    entry = _entry(path, cm.program.text, process, paper_phi)
    if entry is None or process not in cm.processes:
        return cm
    numeric = cm.text(process, everything=True)
    form = read_numeric_form(numeric)
    if form is None or not form.reads(process):
        return cm  # no closed form: the compiler's exact evaluator is needed every time
    record = {"format": _FORMAT, "model": str(path), "process": process,
              "sources": {name: _digest(src) for name, src in cm.program.sources}, "numeric": numeric}
    with contextlib.suppress(OSError):  # an entry that cannot be written is compiled again next time
        entry.parent.mkdir(parents=True, exist_ok=True)
        partial = entry.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(json.dumps(record), encoding="utf-8")
        partial.replace(entry)  # whole entries only, whoever reads at the same time
    return cm
