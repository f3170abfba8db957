"""The Modeling Engine's reading of expressions: Python scalars as PAMELA numbers, and what an
expression yields (array, scalar or runs) with the machine calls it costs, communication included;
the ``# pamela: key = expression, ...`` annotations of a program's lines."""
from __future__ import annotations

import ast
import io
import math
import os
import re
import tokenize

from perfcompose.pamela.dataparallel.engine_values import Array, Cost, Runs, Scalar, elementwise, mul, paren
from perfcompose.pamela.dataparallel.machine_model import MachineParameters
from perfcompose.pamela.language.syntax import PamelaError

__all__ = ["ExpressionReader", "pragmas", "PRAGMA_KEYS"]

#: the machine model's numeric parameters (t_call, t_ew, ...), which a cost annotation may use
_MACHINE_PARAMETERS = frozenset(MachineParameters.__dataclass_fields__)
#: Python's arithmetic and comparison operators in PAMELA
_OPERATORS: dict[type[ast.AST], str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "div", ast.Mod: "mod", ast.Pow: "^",
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}


_PRAGMA = re.compile(r"#\s*pamela\s*:(.*)$")
PRAGMA_KEYS = ("size", "lower", "upper", "cond", "cost")


def pragmas(source: str, path: str | None = None) -> dict[int, dict[str, str]]:
    """``{line: {key: expression}}`` of the ``# pamela: key = expr, ...`` comments."""
    out: dict[int, dict[str, str]] = {}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return out
    for tok in tokens:
        m = _PRAGMA.search(tok.string) if tok.type == tokenize.COMMENT else None
        if not m:
            continue
        items: dict[str, str] = {}
        for part in _split_top(m.group(1)):
            key, eq, value = part.partition("=")
            key = key.strip()
            if not eq or key not in PRAGMA_KEYS or not value.strip():
                raise PamelaError(f"'{part.strip()}' is not a pamela annotation", path=path, line=tok.start[0],
                                  column=tok.start[1] + 1, source_line=tok.line.rstrip("\n"),
                                  hint="write '# pamela: KEY = EXPRESSION' with KEY one of " + ", ".join(PRAGMA_KEYS))
            items[key] = value.strip()
        out[tok.start[0]] = items
    return out


def _split_top(text: str) -> list[str]:
    """Split at commas outside brackets."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += (ch in "([{") - (ch in ")]}")
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return parts


class ExpressionReader:
    """The expressions of one program's source (``path``); ``only``: the (file, line) of the one
    statement to model."""

    def __init__(self, source: str, path: str | None, only: tuple[str, int] | None = None):
        self.only = None if only is None else (os.path.realpath(only[0]), only[1])
        self.statements: list[tuple[str, int, str]] = []
        self.path, self.lines, self.pragmas = path, source.splitlines(), pragmas(source, path)
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
                value = self.sym(expr)
            except PamelaError as exc:
                raise self.error(node, f"in the annotation {key} = {found}: {exc.reason}",
                                 "annotations use the program's parameters, loop indices, P and p "
                                 "(a cost also the machine model's t_... parameters)") from None
            finally:
                self.machine_names = False
            number = float(value) if re.fullmatch(r"-?[0-9.]+(e[-+]?[0-9]+)?", value) else None
            if number is not None and (key == "cond" and not 0 <= number <= 1
                                       or key in ("cost", "size") and number < 0):
                raise self.error(node, f"the annotation {key} = {found} is "
                                 + ("a probability, from 0 to 1" if key == "cond" else "below zero"))
            return value
        return None

    # -- numbers --------------------------------------------------------------------------------

    def sym(self, node: ast.AST) -> str:
        """A Python scalar expression as PAMELA numeric text."""
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
                and not isinstance(node.value, bool):
            if not math.isfinite(node.value):
                raise self.error(node, "a number beyond 1.8e308 is not finite", "write a smaller number")
            return repr(node.value)
        if isinstance(node, ast.Name):
            v = self.env.get(node.id)
            if isinstance(v, Scalar):
                return v.expr
            if node.id in self.params or node.id in self.indices:
                return node.id
            if node.id in ("P", "p") and node.id not in self.env:
                return node.id  # the processors, in annotations
            if self.machine_names and node.id in _MACHINE_PARAMETERS:
                return node.id
            raise self.error(node, f"'{node.id}' is not a number the engine knows here")
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self.dp \
                and node.attr in ("P", "p"):
            return node.attr
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return f"-{paren(self.sym(node.operand))}"
        if isinstance(node, ast.BinOp) and (op := _OPERATORS.get(type(node.op))):
            return f"{paren(self.sym(node.left))} {op} {paren(self.sym(node.right))}"
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and (op := _OPERATORS.get(type(node.ops[0]))):
            return f"{paren(self.sym(node.left))} {op} {paren(self.sym(node.comparators[0]))}"
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) \
                and node.value.attr == "shape" and isinstance(node.slice, ast.Constant) \
                and isinstance(node.slice.value, int):
            return self.array_of(node.value.value).shape[node.slice.value]
        if isinstance(node, ast.Call):
            name = self.call_name(node)
            if name in ("max", "min") and len(node.args) >= 2:
                return f"{name}(" + ", ".join(self.sym(a) for a in node.args) + ")"
            if name in ("log2", "math.log2", "np.log2", "ceil", "math.ceil") and len(node.args) == 1:
                return f"{name.rpartition('.')[2]}({self.sym(node.args[0])})"
            if name == "len" and len(node.args) == 1:
                info = self.value(node.args[0], [])
                if isinstance(info, Array):
                    return info.shape[0]
            if name == "dp.after":
                return self.after(node)
        raise self.error(node, f"the engine cannot read '{ast.unparse(node)}' as a number")

    def call_name(self, node: ast.Call) -> str:
        f = node.func
        if isinstance(f, ast.Name):
            return f.id
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
            return f"{'dp' if f.value.id == self.dp else f.value.id}.{f.attr}"
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

    def array_of(self, node: ast.AST) -> Array:
        if isinstance(node, ast.Name) and isinstance(arr := self.env.get(node.id), Array):
            return arr
        raise self.error(node, f"'{ast.unparse(node)}' is not an array the engine knows",
                         "declare arrays with dp.array((shape), layout) or make them from declared ones")

    def subscript(self, node: ast.Subscript, cost: Cost) -> Array:
        arr = self.array_of(node.value)
        cost.append("index(p)")
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
                    length = f"min({extent}, {hi}) - {paren(lo)}"
                else:
                    length = extent if lo == "0" else f"{paren(extent)} - {paren(lo)}"
                if item.step is not None:
                    length = f"ceil(({length}) / {paren(self.sym(item.step))})"
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
        return Array(tuple(shape), strided, width)

    # -- values and their costs -----------------------------------------------------------------

    def value(self, node: ast.AST, cost: Cost, size: str | None = None) -> object:
        """What an expression yields (array, scalar or runs), with its cost added to ``cost``."""
        if isinstance(node, ast.Name):
            v = self.env.get(node.id)
            return v if v is not None and not isinstance(v, Scalar) else Scalar(self.sym(node))
        if isinstance(node, ast.Constant):
            return Scalar(self.sym(node)) if isinstance(node.value, (int, float)) else Scalar("0")
        if isinstance(node, ast.Subscript):
            base = self.env.get(node.value.id) if isinstance(node.value, ast.Name) else None
            if isinstance(base, Array) and self._is_mask(node.slice):
                mask = self.value(node.slice, cost)
                if size is None:
                    raise self.error(node, "the length of a masked selection depends on the data",
                                     "give it: '# pamela: size = EXPRESSION'")
                cost.append(f"copy(p, {self.elements(mask)})")
                return Array((size,))
            if isinstance(base, Array):
                return self.subscript(node, cost)
            if isinstance(node.value, (ast.Subscript, ast.Call)):
                inner = self.value(node.value, cost)
                if isinstance(inner, Array):
                    cost.append("index(p)")
                    return Array((size,) if size else inner.shape, True)
            return Scalar(self.sym(node))
        if isinstance(node, (ast.BinOp, ast.Compare, ast.BoolOp)):
            left, right = (node.values[:2] if isinstance(node, ast.BoolOp) else
                           (node.left, node.right if isinstance(node, ast.BinOp) else node.comparators[0]))
            a, b = self.value(left, cost), self.value(right, cost)
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
                return self.matmul(node, a, b, cost)
            if isinstance(a, Array) or isinstance(b, Array):
                arrays = [x for x in (a, b) if isinstance(x, Array)]
                out = max(arrays, key=lambda x: len(x.shape))
                cost.append(elementwise(out, any(x.strided for x in arrays), self.elements(out)))
                return Array(out.shape)
            return Scalar(self.sym(node))
        if isinstance(node, ast.UnaryOp):
            a = self.value(node.operand, cost)
            if isinstance(a, Array):
                cost.append(elementwise(a, a.strided, self.elements(a)))
                return Array(a.shape)
            return Scalar(f"-{paren(a.expr)}" if isinstance(a, Scalar) else "0")
        if isinstance(node, ast.IfExp):
            return self._ifexp(node, cost)
        if isinstance(node, ast.Attribute):  # dp.P, dp.p; else a constant such as np.inf
            return Scalar(self.sym(node) if isinstance(node.value, ast.Name) and node.value.id == self.dp else "0")
        if isinstance(node, ast.Call):
            return self.call(node, cost, size)
        raise self.error(node, f"the engine cannot model '{ast.unparse(node)}'")

    def _ifexp(self, node: ast.IfExp, cost: Cost) -> object:
        a, b = self.value(node.body, cost), self.value(node.orelse, cost)
        if isinstance(a, Scalar) and isinstance(b, Scalar):
            try:
                return Scalar(f"if ({self.sym(node.test)}) {paren(a.expr)} else {paren(b.expr)}")
            except PamelaError:
                return Scalar("0")  # a value that does not decide any cost
        return a

    @staticmethod
    def _is_mask(node: ast.AST) -> bool:
        return isinstance(node, (ast.Compare, ast.BoolOp)) or (
            isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr)))

    def elements(self, v: object) -> str:
        if isinstance(v, Array):
            return mul(*v.shape) if v.shape else "1"
        if isinstance(v, Runs):
            return v.size
        return "1"

    def matmul(self, node: ast.AST, a: object, b: object, cost: Cost) -> Array:
        if not (isinstance(a, Array) and isinstance(b, Array)):
            raise self.error(node, "'@' needs two arrays")
        if len(a.shape) == 1 and len(b.shape) == 2:
            cost.append(f"mxv(p, {mul(b.shape[0], b.shape[1])})")
            return Array((b.shape[1],))
        if len(a.shape) == 2 and len(b.shape) == 1:
            cost.append(f"mxv(p, {mul(a.shape[0], a.shape[1])})")
            return Array((a.shape[0],))
        if len(a.shape) == 2 and len(b.shape) == 2:
            cost.append(f"mxm(p, {mul(a.shape[0], a.shape[1], b.shape[1])})")
            return Array((a.shape[0], b.shape[1]))
        cost.append(f"ew(p, {self.elements(a)})")
        return Array(())

    def call(self, node: ast.Call, cost: Cost, size: str | None) -> object:
        name = self.call_name(node)
        args = node.args
        if name in ("np.sort", "np.concatenate"):  # a sort, or runs copied into one vector
            n = size or self.elements(self.value(args[0], cost))
            cost.append(f"{'sort' if name == 'np.sort' else 'copy'}(p, {n})")
            return Array((n,))
        if name == "np.outer":
            a, b = self.value(args[0], cost), self.value(args[1], cost)
            shape = (self.elements(a), self.elements(b))
            # the rows are parts of b's rows where b is part of a row: they fill the memory alike
            width = b.width if isinstance(b, Array) and len(b.shape) == 1 else None
            cost.append(elementwise(Array(shape, width=width), False, mul(*shape)))
            return Array(shape)
        if name == "np.searchsorted":
            self.value(args[0], cost)
            v = self.value(args[1], cost)
            cost.append("call(p)")
            return Array((self.elements(v),))
        if name == "np.split":
            x = self.value(args[0], cost)
            cuts = self.value(args[1], cost)
            cost.append("call(p)")
            return Runs(self.elements(x), f"{paren(self.elements(cuts))} + 1")
        if name in ("max", "min", "len") or name == "dp.after":
            return Scalar(self.sym(node))
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
            n = mul(*rest)
            # a slice of the last axis of a matrix is a column: its root copies it out element by element
            column = int(len(arr.global_shape) > 1 and arr.dist_axis == len(arr.global_shape) - 1)
            # cyclic: the root of slice i + 1 is another processor, which sends it only when done with
            # its step for slice i: every step carries the copy and a message's latency (bcastc)
            return f"{'bcastc' if arr.layout == 'cyclic' else 'bcast'}({n}, {column})", Array(rest)
        if name in ("dp.allgather", "dp.alltoall"):
            x = self.value(node.args[0], [])
            n = self.elements(x)
            if name == "dp.alltoall":
                return f"alltoall({n})", Runs(size or n, "P")
            shape = (mul("P", x.shape[0]),) + tuple(x.shape[1:]) if isinstance(x, Array) and x.shape else ("P",)
            return f"allgather({n})", Array(shape)
        if name == "dp.redistribute":
            arr = self.array_of(node.args[0])
            axis = int(ast.literal_eval(node.args[1]))
            dims = list(arr.global_shape)
            dims[axis] = f"ceil({dims[axis]} / P)"
            moved = Array(tuple(dims), False, dist_axis=axis, layout="block", global_shape=arr.global_shape)
            return f"redistribute({self.elements(arr)})", moved
        if name == "dp.barrier":
            return "bcast(0, 0)", Scalar("0")
        raise self.error(node, f"'{name}' is not a communication call the engine knows",
                         "use dp.bcast, dp.allgather, dp.alltoall, dp.redistribute or dp.barrier")
