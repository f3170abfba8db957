"""The Modeling Engine (paper 004, section 3): a data-parallel Python program becomes a PAMELA model.

The program is the ``program(dp, ...)`` function of a file written for
:mod:`perfcompose.pamela.dataparallel`: SPMD over ``dp.P`` processors, NumPy on each
processor's part of the arrays declared with ``dp.array`` (owner computes), communication
through ``dp.bcast / allgather / alltoall / redistribute``. The engine reads its source (it
never runs it) and writes one PAMELA process:

* every NumPy operation becomes a call of the machine model on the processor that runs it,
  ``ew(p, n)``, ``ews(p, n)`` (along a column), ``ewm(p, n)`` (on a block of matrix rows),
  ``mxv``, ``mxm``, ``sort``, ``merge``, ``copy``,
  with ``n`` the number of elements it touches, worked out from the declared shapes, the
  layouts (a block or cyclic axis has ``ceil(n / P)`` elements here) and the slices;
* consecutive computation runs in ``par (p = 0, P - 1) { ... }`` (every processor on its own
  part); an exchange (``allgather``, ``alltoall``, ``redistribute``, ``barrier``) is a step of
  its own (every processor takes part), so a loop without one runs inside the ``par``, a loop
  with one outside; a broadcast synchronises nobody (its root sends and goes on, a receiver
  waits for the root alone), so it is a delay of every processor inside the ``par``;
* ``for i in range(a, b)`` becomes ``seq (i = a, b - 1)``, ``if`` a conditional.

What cannot be read off the source is given by a comment on the line of the statement, in the
paper's pragmas: ``# pamela: size = N / P`` (the elements of a value whose length depends on
the data), ``# pamela: lower = 0, upper = N - 1`` (loop bounds), ``# pamela: cond = 0.5`` (the
probability of a branch), ``# pamela: cost = EXPR`` (seconds for the statement, replacing what
the engine would derive). A construct the engine cannot model is an error naming its line.
"""
from __future__ import annotations

import ast
import copy
import importlib.util
import io
import os
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

from perfcompose.pamela.dataparallel.machine_model import MachineParameters
from perfcompose.pamela.language.syntax import PamelaError

__all__ = ["generate", "generate_text", "pragmas", "Generated"]

_PRAGMA = re.compile(r"#\s*pamela\s*:(.*)$")
_KEYS = ("size", "lower", "upper", "cond", "cost")


@dataclass(frozen=True)
class Generated:
    """A generated model: its text, parameters and how many annotations the program needed."""

    text: str
    parameters: tuple[str, ...]
    annotations: int
    #: the statements that cost something: (file, line, source), in the order they were read
    statements: tuple[tuple[str, int, str], ...] = ()


@dataclass
class _Array:
    shape: tuple[str, ...]          # local extents as PAMELA expressions
    strided: bool = False
    width: str | None = None        # length of the rows of memory a slice lies in (None: its own)
    dist_axis: int | None = None    # the distributed axis of a declared array
    layout: str = "replicated"
    global_shape: tuple[str, ...] = ()


@dataclass
class _Scalar:
    expr: str


@dataclass
class _Runs:
    """A list of arrays (what alltoall returns, np.split gives): their total size and count."""

    size: str
    count: str


@dataclass
class _Step:
    text: str
    compute: bool  # runs on processor p (inside par); else a step every processor takes part in


@dataclass
class _Cost:
    steps: list[str] = field(default_factory=list)

    def add(self, text: str) -> None:
        self.steps.append(text)


def pragmas(source: str, path: str | None = None) -> dict[int, dict[str, str]]:
    """``{line: {key: expression}}`` of the ``# pamela: key = expr, ...`` comments."""
    out: dict[int, dict[str, str]] = {}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return out
    for tok in tokens:
        if tok.type != tokenize.COMMENT:
            continue
        m = _PRAGMA.search(tok.string)
        if not m:
            continue
        items: dict[str, str] = {}
        for part in _split_top(m.group(1)):
            key, eq, value = part.partition("=")
            key = key.strip()
            if not eq or key not in _KEYS or not value.strip():
                raise PamelaError(f"'{part.strip()}' is not a pamela annotation", path=path, line=tok.start[0],
                                  column=tok.start[1] + 1, source_line=tok.line.rstrip("\n"),
                                  hint="write '# pamela: KEY = EXPRESSION' with KEY one of " + ", ".join(_KEYS))
            items[key] = value.strip()
        out[tok.start[0]] = items
    return out


def _split_top(text: str) -> list[str]:
    """Split at commas outside brackets."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return parts


#: the machine model's numeric parameters (t_call, t_ew, ...), which a cost annotation may use
_MACHINE_PARAMETERS = frozenset(MachineParameters.__dataclass_fields__)


def _elementwise(out: _Array, strided: bool, elements: str) -> str:
    """The machine call of element-wise work on ``elements`` elements yielding ``out``: along a
    column (``ews``), on a block of matrix rows (``ewb`` where the block is part of rows of a known
    length, which it may or may not fill; ``ewm`` otherwise) or on a contiguous vector (``ew``)."""
    if strided:
        return f"ews(p, {elements})"
    if len(out.shape) == 2 and out.width is not None:
        return f"ewb(p, {out.shape[0]}, {out.shape[1]}, {out.width})"
    return f"{'ewm' if len(out.shape) >= 2 else 'ew'}(p, {elements})"


def _paren(e: str) -> str:
    return e if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*|\d+(\.\d*)?", e) else f"({e})"


def _mul(*factors: str) -> str:
    fs = [f for f in factors if f != "1"]
    return " * ".join(_paren(f) for f in fs) if fs else "1"


class _Substitute(ast.NodeTransformer):
    """A helper's parameters replaced by the caller's arguments."""

    def __init__(self, bound: dict[str, ast.expr]):
        self.bound = bound

    def visit_Name(self, node: ast.Name) -> ast.AST:  # noqa: N802 - ast's visitor naming
        arg = self.bound.get(node.id)
        return copy.deepcopy(arg) if arg is not None and isinstance(node.ctx, ast.Load) else node


class _Engine:
    def __init__(self, source: str, path: str | None, only: tuple[str, int] | None = None):
        self.only = None if only is None else (os.path.realpath(only[0]), only[1])
        self.statements: list[tuple[str, int, str]] = []
        self.source = source
        self.path = path
        self.lines = source.splitlines()
        self.pragmas = pragmas(source, path)
        self.used_pragmas = 0
        self.machine_names = False
        self.helpers: dict[str, tuple[str, str]] = {}
        self.env: dict[str, object] = {}
        self.params: list[str] = []
        self.indices: set[str] = set()
        self.dp = "dp"

    # -- errors ---------------------------------------------------------------------------------

    def error(self, node: ast.AST | None, message: str, hint: str | None = None) -> PamelaError:
        line = getattr(node, "lineno", None)
        col = getattr(node, "col_offset", None)
        return PamelaError(message, path=self.path, line=line, column=None if col is None else col + 1,
                           source_line=self.lines[line - 1] if line and line <= len(self.lines) else None,
                           hint=hint or "annotate the statement: '# pamela: cost = SECONDS' (or size, "
                                        "lower/upper, cond), or write it with the constructs the engine reads")

    def pragma(self, node: ast.AST, key: str) -> str | None:
        found = self.pragmas.get(getattr(node, "lineno", -1), {}).get(key)
        if found is not None:
            self.used_pragmas += 1
            try:
                expr = ast.parse(found, mode="eval").body
            except SyntaxError:
                raise self.error(node, f"the annotation {key} = {found} is not an expression") from None
            self.machine_names = key == "cost"  # a cost may be stated in the machine model's parameters
            try:
                return self.sym(expr)
            except PamelaError as exc:
                raise self.error(node, f"in the annotation {key} = {found}: {exc.reason}",
                                 "annotations use the program's parameters, loop indices, P and p "
                                 "(a cost also the machine model's t_... parameters)") from None
            finally:
                self.machine_names = False
        return None

    # -- numbers --------------------------------------------------------------------------------

    def sym(self, node: ast.AST) -> str:
        """A Python scalar expression as PAMELA numeric text."""
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
                and not isinstance(node.value, bool):
            return repr(node.value)
        if isinstance(node, ast.Name):
            v = self.env.get(node.id)
            if isinstance(v, _Scalar):
                return v.expr
            if node.id in self.params or node.id in self.indices:
                return node.id
            if node.id in ("P", "p") and node.id not in self.env:
                return node.id  # the processors, in annotations
            if self.machine_names and node.id in _MACHINE_PARAMETERS:
                return node.id
            raise self.error(node, f"'{node.id}' is not a number the engine knows here")
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self.dp:
            if node.attr == "P":
                return "P"
            if node.attr == "p":
                return "p"
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return f"-{_paren(self.sym(node.operand))}"
        if isinstance(node, ast.BinOp):
            ops = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "div",
                   ast.Mod: "mod", ast.Pow: "^"}
            op = ops.get(type(node.op))
            if op is not None:
                return f"{_paren(self.sym(node.left))} {op} {_paren(self.sym(node.right))}"
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            comparisons: dict[type[ast.cmpop], str] = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
                                                       ast.Eq: "==", ast.NotEq: "!="}
            op = comparisons.get(type(node.ops[0]))
            if op is not None:
                return f"{_paren(self.sym(node.left))} {op} {_paren(self.sym(node.comparators[0]))}"
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) \
                and node.value.attr == "shape" and isinstance(node.slice, ast.Constant) \
                and isinstance(node.slice.value, int):
            arr = self.array_of(node.value.value)
            return arr.shape[node.slice.value]
        if isinstance(node, ast.Call):
            name = self.call_name(node)
            if name in ("max", "min") and len(node.args) >= 2:
                return f"{name}(" + ", ".join(self.sym(a) for a in node.args) + ")"
            if name in ("log2", "math.log2", "np.log2", "ceil", "math.ceil") and len(node.args) == 1:
                return f"{name.rpartition('.')[2]}({self.sym(node.args[0])})"
            if name == "len" and len(node.args) == 1:
                info = self.value(node.args[0], _Cost())
                if isinstance(info, _Array):
                    return info.shape[0]
            if name == "dp.after":
                return self.after(node)
        raise self.error(node, f"the engine cannot read '{ast.unparse(node)}' as a number")

    def call_name(self, node: ast.Call) -> str:
        f = node.func
        if isinstance(f, ast.Name):
            return f.id
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
            base = "dp" if f.value.id == self.dp else f.value.id
            return f"{base}.{f.attr}"
        return ast.unparse(f)

    def after(self, node: ast.Call) -> str:
        arr = self.array_of(node.args[0])
        k = self.sym(node.args[2])
        n = arr.global_shape[arr.dist_axis] if arr.dist_axis is not None else "0"
        if arr.layout == "cyclic":
            return f"max(0, ({k} - p) div P + 1)"
        b = f"ceil({n} / P)"
        return f"min({b}, max(0, {k} + 1 - p * {b}))"

    # -- arrays ---------------------------------------------------------------------------------

    def array_of(self, node: ast.AST) -> _Array:
        if isinstance(node, ast.Name) and isinstance(arr := self.env.get(node.id), _Array):
            return arr
        raise self.error(node, f"'{ast.unparse(node)}' is not an array the engine knows",
                         "declare arrays with dp.array((shape), layout) or make them from declared ones")

    def subscript(self, node: ast.Subscript, cost: _Cost) -> _Array:
        arr = self.array_of(node.value)
        cost.add("index(p)")
        items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if len(items) > len(arr.shape):
            raise self.error(node, f"{len(items)} subscripts on an array of {len(arr.shape)} axes")
        last = len(arr.shape) - 1
        shape: list[str] = []
        kept: list[int] = []
        strided = arr.strided
        for axis, item in enumerate(items):
            extent = arr.shape[axis]
            if isinstance(item, ast.Slice):
                lo = self.sym(item.lower) if item.lower is not None else "0"
                hi = self.sym(item.upper) if item.upper is not None else extent
                if item.upper is not None and item.lower is None:
                    length = f"min({extent}, {hi})"
                elif item.upper is not None:
                    length = f"min({extent}, {hi}) - {_paren(lo)}"
                else:
                    length = extent if lo == "0" else f"{_paren(extent)} - {_paren(lo)}"
                if item.step is not None:
                    step = self.sym(item.step)
                    length = f"ceil(({length}) / {_paren(step)})"
                    strided = True
                shape.append(length)
                kept.append(axis)
            else:
                self.sym(item)  # an index: the axis goes
        shape += list(arr.shape[len(items):])
        kept += list(range(len(items), len(arr.shape)))
        if len(arr.shape) > 1 and last not in kept and kept:
            strided = True  # a column (or a slice of one) of a row-major array
        width = (arr.width or arr.shape[last]) if last in kept and len(arr.shape) > 1 else arr.width
        return _Array(tuple(shape), strided, width)

    # -- values and their costs -----------------------------------------------------------------

    def value(self, node: ast.AST, cost: _Cost, size: str | None = None) -> object:
        """What an expression yields (array, scalar or runs), with its cost added to ``cost``."""
        if isinstance(node, ast.Name):
            v = self.env.get(node.id)
            if v is not None and not isinstance(v, _Scalar):
                return v
            return _Scalar(self.sym(node))
        if isinstance(node, ast.Constant):
            return _Scalar(self.sym(node)) if isinstance(node.value, (int, float)) else _Scalar("0")
        if isinstance(node, ast.Subscript):
            base = self.env.get(node.value.id) if isinstance(node.value, ast.Name) else None
            if isinstance(base, _Array) and self._is_mask(node.slice):
                mask = self.value(node.slice, cost)
                if size is None:
                    raise self.error(node, "the length of a masked selection depends on the data",
                                     "give it: '# pamela: size = EXPRESSION'")
                n = self.elements(mask)
                cost.add(f"copy(p, {n})")
                return _Array((size,))
            if isinstance(base, _Array):
                return self.subscript(node, cost)
            if isinstance(node.value, ast.Subscript) or isinstance(node.value, ast.Call):
                inner = self.value(node.value, cost)
                if isinstance(inner, _Array):
                    cost.add("index(p)")
                    return _Array((size,) if size else inner.shape, True)
            return _Scalar(self.sym(node))
        if isinstance(node, (ast.BinOp, ast.Compare, ast.BoolOp)):
            if isinstance(node, ast.BinOp):
                left, right = node.left, node.right
            elif isinstance(node, ast.Compare):
                left, right = node.left, node.comparators[0]
            else:
                left, right = node.values[0], node.values[1]
            a, b = self.value(left, cost), self.value(right, cost)
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
                return self.matmul(node, a, b, cost)
            if isinstance(a, _Array) or isinstance(b, _Array):
                arrays = [x for x in (a, b) if isinstance(x, _Array)]
                out = max(arrays, key=lambda x: len(x.shape))
                strided = any(x.strided for x in arrays)
                cost.add(_elementwise(out, strided, self.elements(out)))
                return _Array(out.shape)
            return _Scalar(self.sym(node))
        if isinstance(node, ast.UnaryOp):
            a = self.value(node.operand, cost)
            if isinstance(a, _Array):
                cost.add(_elementwise(a, a.strided, self.elements(a)))
                return _Array(a.shape)
            return _Scalar(f"-{_paren(a.expr)}" if isinstance(a, _Scalar) else "0")
        if isinstance(node, ast.IfExp):
            return self._ifexp(node, cost)
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id == self.dp:
                return _Scalar(self.sym(node))
            return _Scalar("0")  # a constant such as np.inf
        if isinstance(node, ast.Call):
            return self.call(node, cost, size)
        raise self.error(node, f"the engine cannot model '{ast.unparse(node)}'")

    def _ifexp(self, node: ast.IfExp, cost: _Cost) -> object:
        a = self.value(node.body, cost)
        b = self.value(node.orelse, cost)
        if isinstance(a, _Scalar) and isinstance(b, _Scalar):
            try:
                return _Scalar(f"if ({self.sym(node.test)}) {_paren(a.expr)} else {_paren(b.expr)}")
            except PamelaError:
                return _Scalar("0")  # a value that does not decide any cost
        return a

    @staticmethod
    def _is_mask(node: ast.AST) -> bool:
        return isinstance(node, (ast.Compare, ast.BoolOp)) or (
            isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr)))

    def elements(self, v: object) -> str:
        if isinstance(v, _Array):
            return _mul(*v.shape) if v.shape else "1"
        if isinstance(v, _Runs):
            return v.size
        return "1"

    def matmul(self, node: ast.AST, a: object, b: object, cost: _Cost) -> _Array:
        if not (isinstance(a, _Array) and isinstance(b, _Array)):
            raise self.error(node, "'@' needs two arrays")
        if len(a.shape) == 1 and len(b.shape) == 2:
            cost.add(f"mxv(p, {_mul(b.shape[0], b.shape[1])})")
            return _Array((b.shape[1],))
        if len(a.shape) == 2 and len(b.shape) == 1:
            cost.add(f"mxv(p, {_mul(a.shape[0], a.shape[1])})")
            return _Array((a.shape[0],))
        if len(a.shape) == 2 and len(b.shape) == 2:
            cost.add(f"mxm(p, {_mul(a.shape[0], a.shape[1], b.shape[1])})")
            return _Array((a.shape[0], b.shape[1]))
        cost.add(f"ew(p, {self.elements(a)})")
        return _Array(())

    def call(self, node: ast.Call, cost: _Cost, size: str | None) -> object:
        name = self.call_name(node)
        args = node.args
        if name in ("np.sort",):
            x = self.value(args[0], cost)
            n = size or self.elements(x)
            cost.add(f"sort(p, {n})")
            return _Array((n,))
        if name == "np.outer":
            a, b = self.value(args[0], cost), self.value(args[1], cost)
            shape = (self.elements(a), self.elements(b))
            # the rows are parts of b's rows where b is part of a row: they fill the memory alike
            width = b.width if isinstance(b, _Array) and len(b.shape) == 1 else None
            cost.add(_elementwise(_Array(shape, width=width), False, _mul(*shape)))
            return _Array(shape)
        if name == "np.searchsorted":
            self.value(args[0], cost)
            v = self.value(args[1], cost)
            cost.add("call(p)")
            return _Array((self.elements(v),))
        if name == "np.split":
            x = self.value(args[0], cost)
            cuts = self.value(args[1], cost)
            cost.add("call(p)")
            return _Runs(self.elements(x), f"{_paren(self.elements(cuts))} + 1")
        if name == "np.concatenate":
            x = self.value(args[0], cost)
            n = size or self.elements(x)
            cost.add(f"copy(p, {n})")
            return _Array((n,))
        if name in ("max", "min", "len") or name == "dp.after":
            return _Scalar(self.sym(node))
        raise self.error(node, f"the engine does not know the cost of '{name}(...)'",
                         "give it: '# pamela: cost = SECONDS' on this line")

    # -- communication --------------------------------------------------------------------------

    def comm(self, node: ast.Call, size: str | None) -> tuple[str, object]:
        """A dp communication call: its machine process and what it yields."""
        name = self.call_name(node)
        if name == "dp.bcast":
            arr = self.array_of(node.args[0])
            self.sym(node.args[1])
            if arr.dist_axis is None:
                raise self.error(node, "dp.bcast sends a slice of a distributed array")
            rest = tuple(s for i, s in enumerate(arr.global_shape) if i != arr.dist_axis)
            n = _mul(*rest)
            # a slice of the last axis of a matrix is a column: its root copies it out element by element
            column = int(len(arr.global_shape) > 1 and arr.dist_axis == len(arr.global_shape) - 1)
            # cyclic: the root of slice i + 1 is another processor, which sends it only when done with
            # its step for slice i: every step carries the copy and a message's latency (bcastc)
            kind = "bcastc" if arr.layout == "cyclic" else "bcast"
            return f"{kind}({n}, {column})", _Array(rest)
        if name == "dp.allgather":
            x = self.value(node.args[0], _Cost())
            n = self.elements(x)
            shape = (_mul("P", x.shape[0]),) + tuple(x.shape[1:]) if isinstance(x, _Array) and x.shape else ("P",)
            return f"allgather({n})", _Array(shape)
        if name == "dp.alltoall":
            x = self.value(node.args[0], _Cost())
            n = self.elements(x)
            return f"alltoall({n})", _Runs(size or n, "P")
        if name == "dp.redistribute":
            arr = self.array_of(node.args[0])
            axis = int(ast.literal_eval(node.args[1]))
            n = self.elements(arr)
            dims = list(arr.global_shape)
            dims[axis] = f"ceil({dims[axis]} / P)"
            moved = _Array(tuple(dims), False, dist_axis=axis, layout="block", global_shape=arr.global_shape)
            return f"redistribute({n})", moved
        if name == "dp.barrier":
            return "bcast(0, 0)", _Scalar("0")
        raise self.error(node, f"'{name}' is not a communication call the engine knows",
                         "use dp.bcast, dp.allgather, dp.alltoall, dp.redistribute or dp.barrier")

    # -- statements -----------------------------------------------------------------------------

    def declare(self, node: ast.Call) -> _Array:
        shape_node = node.args[0]
        dims = list(shape_node.elts) if isinstance(shape_node, ast.Tuple) else [shape_node]
        gshape = tuple(self.sym(d) for d in dims)
        layout, axis = "replicated", None
        lay = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "layout"), None)
        if lay is not None:
            if not (isinstance(lay, ast.Call) and isinstance(lay.func, ast.Name)
                    and lay.func.id in ("block", "cyclic", "replicated")):
                raise self.error(lay, "a layout is block(axis), cyclic(axis) or replicated()")
            layout = lay.func.id
            if layout != "replicated":
                axis = int(ast.literal_eval(lay.args[0])) if lay.args else 0
        local = list(gshape)
        if axis is not None:
            local[axis] = f"ceil({_paren(gshape[axis])} / P)"
        return _Array(tuple(local), False, dist_axis=axis, layout=layout, global_shape=gshape)

    def assign_target(self, target: ast.AST, value: object) -> None:
        if isinstance(target, ast.Name):
            self.env[target.id] = value
        elif isinstance(target, (ast.Subscript, ast.Attribute)):
            pass
        else:
            raise self.error(target, "assign to one name or one subscript")

    def statement(self, node: ast.stmt) -> list[_Step]:
        override = self.pragma(node, "cost")
        if override is not None:
            return self.kept(node, [_Step(f"use(cpu(p), {override})", True)])
        call = node.value if isinstance(node, (ast.Expr, ast.Assign)) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in self.helpers:
            target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None
            return self.inline(call, call.func.id, target)
        if isinstance(node, ast.For):
            return self.loop(node)
        if isinstance(node, ast.If):
            return self.branch(node)
        if isinstance(node, (ast.Expr,)) and isinstance(node.value, ast.Constant):
            return []  # a docstring
        if isinstance(node, ast.Pass):
            return []
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.Expr)):
            return self.kept(node, self.simple(node))
        raise self.error(node, f"the engine cannot model a '{type(node).__name__}' statement",
                         "write the program with for, if, assignments and dp calls (no while, break, return)")

    def simple(self, node: ast.Assign | ast.AugAssign | ast.Expr) -> list[_Step]:
        size = self.pragma(node, "size")
        value_node = node.value
        if isinstance(node, ast.Assign) and len(node.targets) != 1:
            raise self.error(node, "assign to one target at a time")
        if isinstance(value_node, ast.Call):
            name = self.call_name(value_node)
            if name == "dp.array":
                if not isinstance(node, ast.Assign):
                    raise self.error(node, "dp.array(...) declares an array: assign it to a name",
                                     "write 'a = dp.array((shape), layout)'")
                self.assign_target(node.targets[0], self.declare(value_node))
                return []
            if name.startswith("dp.") and name not in ("dp.after", "dp.merge"):
                text, result = self.comm(value_node, size)
                if isinstance(node, ast.Assign):
                    self.assign_target(node.targets[0], result)
                # a broadcast's root sends and goes on, a receiver waits for the root only: no step of
                # all processors together, each goes on with its own work (a pipeline over a loop)
                return [_Step(text, name == "dp.bcast")]
            if name == "dp.merge":
                runs = self.value(value_node.args[0], _Cost())
                n = size or self.elements(runs)
                k = runs.count if isinstance(runs, _Runs) else "1"
                if isinstance(node, ast.Assign):
                    self.assign_target(node.targets[0], _Array((n,)))
                return [_Step(f"merge(p, {n}, {k})", True)]
        cost = _Cost()
        value = self.value(value_node, cost, size)
        if isinstance(node, ast.AugAssign):
            target = self.value(node.target, cost)
            if isinstance(target, _Array):
                cost.add(_elementwise(target, target.strided, self.elements(target)))
        elif isinstance(node, ast.Assign):
            target = node.targets[0]
            if isinstance(target, ast.Subscript):
                t = self.value(target, cost)
                if isinstance(value, _Array):  # the value is written into the target
                    cost.add(f"copy(p, {self.elements(t)})")
            else:
                if size is not None and isinstance(value, _Array):
                    value = _Array((size,), value.strided)
                self.assign_target(target, value)
        return [_Step(s, True) for s in cost.steps]

    def kept(self, node: ast.stmt, steps: list[_Step]) -> list[_Step]:
        """A statement's steps, noted; none where the model is of another statement alone."""
        where = (os.path.realpath(self.path or ""), node.lineno)
        if steps:
            self.statements.append((*where, self.lines[node.lineno - 1].strip() if node.lineno <= len(self.lines)
                                    else ""))
        return steps if self.only is None or self.only == where else []

    def loop(self, node: ast.For) -> list[_Step]:
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "a loop runs over one index")
        if node.orelse:
            raise self.error(node, "for ... else cannot be modelled")
        index = node.target.id
        lower, upper = self.pragma(node, "lower"), self.pragma(node, "upper")
        it = node.iter
        if lower is None or upper is None:
            if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
                    and 1 <= len(it.args) <= 2):
                raise self.error(it, "the engine reads loops over range(a, b); give other bounds",
                                 "annotate: '# pamela: lower = FIRST, upper = LAST'")
            a = self.sym(it.args[0]) if len(it.args) == 2 else "0"
            b = self.sym(it.args[-1])
            lower = lower or a
            upper = upper or f"{_paren(b)} - 1"
        self.indices.add(index)
        body: list[_Step] = []
        for stmt in node.body:
            body += self.statement(stmt)
        if not body:
            return []
        head = f"seq ({index} = {lower}, {upper})"
        if all(s.compute for s in body):
            return [_Step(f"{head} {{ {' ; '.join(s.text for s in body)} }}", True)]
        return [_Step(f"{head} {{ {_render(body)} }}", False)]

    def branch(self, node: ast.If) -> list[_Step]:
        cond = self.pragma(node, "cond")
        if cond is None:
            try:
                cond = self.sym(node.test)
            except PamelaError:
                raise self.error(node.test, "the condition depends on the data",
                                 "give its probability: '# pamela: cond = 0.5'") from None
        then: list[_Step] = []
        for s in node.body:
            then += self.statement(s)
        other: list[_Step] = []
        for s in node.orelse:
            other += self.statement(s)
        if not then and not other:
            return []
        compute = all(s.compute for s in then + other)
        if compute:
            a = " ; ".join(s.text for s in then) or "delay(0)"
            b = " ; ".join(s.text for s in other) or "delay(0)"
        else:
            a, b = _render(then) or "delay(0)", _render(other) or "delay(0)"
        return [_Step(f"if ({cond}) {{ {a} }} else {{ {b} }}", compute)]

    # -- helpers: functions of other modules the program calls, read as if written in place ------

    def find_helpers(self, tree: ast.Module) -> None:
        """Every ``from MODULE import name`` of the program whose module has Python source."""
        for node in tree.body:
            if not isinstance(node, ast.ImportFrom) or not node.module or node.level:
                continue
            try:
                spec = importlib.util.find_spec(node.module)
            except (ImportError, ValueError):
                continue
            if spec is None or not spec.origin or not spec.origin.endswith(".py"):
                continue
            for alias in node.names:
                self.helpers[alias.asname or alias.name] = (spec.origin, alias.name)

    def inline(self, call: ast.Call, helper: str, target: ast.expr | None) -> list[_Step]:
        """The steps of the body of ``helper`` (the function ``call`` calls), its parameters replaced by
        the call's arguments; ``target = <the value it returns>`` where the call is assigned."""
        origin, name = self.helpers[helper]
        source = Path(origin).read_text(encoding="utf-8")
        fn = next((n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name == name), None)
        if fn is None or call.keywords or len(call.args) != len(fn.args.args):
            raise self.error(call, f"'{ast.unparse(call.func)}' is not a function the engine can read here",
                             "call a function of a module of your own with its positional parameters")
        bound = dict(zip((a.arg for a in fn.args.args), call.args))
        body = [_Substitute(bound).visit(stmt) for stmt in fn.body]
        if body and isinstance(body[-1], ast.Return):
            value = body.pop().value
            if target is not None and value is not None:
                body.append(ast.copy_location(ast.Assign(targets=[target], value=value), fn.body[-1]))
        saved = (self.path, self.lines, self.pragmas)
        self.path, self.lines, self.pragmas = origin, source.splitlines(), pragmas(source, origin)
        try:
            steps: list[_Step] = []
            for stmt in body:
                steps += self.statement(stmt)
            return steps
        finally:
            self.path, self.lines, self.pragmas = saved

    def program(self, tree: ast.Module) -> Generated:
        fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "program"), None)
        if fn is None:
            raise PamelaError("no function 'program(dp, ...)'", path=self.path,
                              hint="define 'def program(dp, N): ...' whose parameters are the model's")
        args = [a.arg for a in fn.args.args]
        if not args:
            raise self.error(fn, "program takes the machine first: program(dp, N, ...)")
        self.dp = args[0]
        self.params = args[1:]
        for name in self.params:
            if name in ("P", "p"):
                raise self.error(fn, f"'{name}' names the processors; call the parameter something else")
        self.find_helpers(tree)
        steps: list[_Step] = []
        for stmt in fn.body:
            steps += self.statement(stmt)
        body = _render(steps) or "delay(0)"
        header = "".join(f"numeric parameter {p}\n" for p in self.params)
        text = (f"% generated from {Path(self.path).name if self.path else 'a program'} by the Modeling Engine\n"
                + "{include}" + header + f"\nprocess main = {body}\n")
        return Generated(text, tuple(self.params) + ("P",), self.used_pragmas, tuple(self.statements))


def _render(steps: list[_Step]) -> str:
    """Steps in sequence, every run of computation inside one ``par (p = 0, P - 1)``."""
    out: list[str] = []
    run: list[str] = []
    for s in steps:
        if s.compute:
            run.append(s.text)
            continue
        if run:
            out.append(f"par (p = 0, P - 1) {{ {' ; '.join(run)} }}")
            run = []
        out.append(s.text)
    if run:
        out.append(f"par (p = 0, P - 1) {{ {' ; '.join(run)} }}")
    return " ;\n    ".join(out)


def generate_text(source: str, path: str | Path | None = None, machine: str | None = "machine.pam",
                  only: tuple[str, int] | None = None) -> Generated:
    """The PAMELA model of a program's source; ``machine``: the machine model file it includes;
    ``only``: (file, line) of the one statement to model (the others cost nothing), for a cost
    per statement."""
    p = None if path is None else str(path)
    try:
        tree = ast.parse(source, filename=p or "<program>")
    except SyntaxError as exc:
        raise PamelaError(f"not Python: {exc.msg}", path=p, line=exc.lineno, column=exc.offset,
                          source_line=(exc.text or "").rstrip("\n") or None) from None
    g = _Engine(source, p, only).program(tree)
    include = f'include "{machine}"\n' if machine else ""
    return Generated(g.text.replace("{include}", include, 1), g.parameters, g.annotations, g.statements)


def generate(path: str | Path, machine: str | None = "machine.pam", only: tuple[str, int] | None = None) -> Generated:
    """The PAMELA model of a program file (``only``: as for :func:`generate_text`)."""
    p = Path(path)
    try:
        source = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PamelaError(f"cannot read {p}: {exc}", path=str(p), hint="check the path") from None
    return generate_text(source, p, machine, only)
