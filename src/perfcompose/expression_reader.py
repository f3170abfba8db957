"""Model expressions read as data, never run as code.

Both forms a model takes in text, the readable arithmetic (``5.2 + 0.51*x^(3/2)*log2(x)``) and
SymPy's ``srepr`` kept in model files (``Add(Float('5.2', precision=53), ...)``), are parsed by
Python's :mod:`ast` and the tree is walked against a whitelist of node kinds, each mapped to one
SymPy constructor. Attribute access, subscripts, lambdas, comprehensions, keywords other than the
few SymPy needs and every name not on the list are refused, so no text reaches ``eval``.

The walk is iterative (deep nesting cannot exhaust Python's stack) and bounded: at most
:data:`MAX_NODES` nodes, numbers inside the range of a double, and ``a**b`` of two numbers only
where the result stays in that range (``10**10**10`` is refused before it is computed).
"""
from __future__ import annotations

import ast
import io
import math
import operator
import tokenize
import warnings
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

import sympy as sp

from perfcompose.errors import ModelSyntaxError

__all__ = ["ExpressionRefused", "read_text", "read_srepr", "nowhere_finite", "MAX_NODES", "symbol", "parse_expression",
           "names_in", "float64", "parse_srepr"]

MAX_NODES = 100_000
"""The most syntax-tree nodes one expression may have."""

MAX_BITS = 1100
"""Numbers, exact or not, must lie within about 2^±1100 (a double reaches 2^±1024)."""

MAX_TEXT = 10_000_000
"""The longest expression text read (characters)."""


class ExpressionRefused(ValueError):
    """Text that is not a model expression; ``column`` (1-based) where known."""

    def __init__(self, message: str, column: int | None = None):
        super().__init__(message)
        self.message, self.column = message, column


def _parse(text: str, mode_name: str) -> ast.AST:
    if len(text) > MAX_TEXT:
        raise ExpressionRefused(f"the {mode_name} is {len(text):,} characters long; at most {MAX_TEXT:,} are read")
    try:
        with warnings.catch_warnings():  # '1x' and the like: the refusal below says it, not a warning
            warnings.simplefilter("ignore", SyntaxWarning)
            return ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise ExpressionRefused(f"cannot parse model: {exc.msg}", exc.offset) from None
    except ValueError as exc:  # Python's limit on the digits of an integer
        raise ExpressionRefused(f"cannot parse model: {exc}") from None
    except (MemoryError, RecursionError):
        raise ExpressionRefused(f"cannot parse model: the {mode_name} is nested too deeply") from None


def _column(node: ast.AST) -> int | None:
    offset = getattr(node, "col_offset", None)
    return offset + 1 if offset is not None else None


def _bits(value: sp.Expr) -> float:
    """log2 of the magnitude of a SymPy number (0 for zero), without computing it as a double."""
    if value.is_zero:
        return 0.0
    if isinstance(value, sp.Integer):
        return float(abs(int(value)).bit_length())
    if isinstance(value, sp.Rational):
        return float(abs(int(value.p)).bit_length() - int(value.q).bit_length())
    if isinstance(value, sp.Float):
        mantissa, exponent = math.frexp(float(value)) if math.isfinite(float(value)) else (1.0, math.inf)
        return float(exponent)
    return 0.0


def _check_number(value: Any, node: ast.AST) -> Any:
    if isinstance(value, sp.Number):
        if value in (sp.nan, sp.oo, -sp.oo, sp.zoo) or abs(_bits(value)) > MAX_BITS:
            raise ExpressionRefused(f"the number {_short(value)} is outside the range of a double", _column(node))
    return value


def _short(value: Any) -> str:
    text = str(value) if not isinstance(value, sp.Integer) or int(value).bit_length() < 200 else \
        f"an integer of {int(value).bit_length()} bits"
    return text if len(text) < 60 else text[:57] + "..."


def _power(base: Any, exponent: Any, node: ast.AST) -> Any:
    """``base**exponent``, refusing a power of two numbers whose result is outside a double."""
    if isinstance(base, sp.Number) and isinstance(exponent, sp.Number):
        size = abs(float(exponent)) * abs(_bits(base)) if not base.is_zero else 0.0
        if not math.isfinite(size) or size > MAX_BITS:
            raise ExpressionRefused(f"{_short(base)}**{_short(exponent)} is outside the range of a double",
                                    _column(node))
        if base.is_zero and exponent.is_negative:
            raise ExpressionRefused("0 to a negative power is not finite", _column(node))
    return _check_number(sp.Pow(base, exponent), node)


_TEXT_BINARY: dict[type, Callable[[Any, Any], Any]] = {ast.Add: operator.add, ast.Sub: operator.sub,
                                                      ast.Mult: operator.mul}


def _walk(root: ast.AST, children: Callable[[ast.AST], list[ast.AST]],
          build: Callable[[ast.AST, list[Any]], Any]) -> Any:
    """Post-order over ``root`` without recursion: ``children`` checks a node and names its
    operands, ``build`` makes its value from theirs."""
    stack: list[tuple[ast.AST, bool]] = [(root, False)]
    values: list[Any] = []
    arity: dict[int, int] = {}
    seen = 0
    while stack:
        node, ready = stack.pop()
        if not ready:
            seen += 1
            if seen > MAX_NODES:
                raise ExpressionRefused(f"the expression has more than {MAX_NODES:,} parts")
            kids = children(node)
            arity[id(node)] = len(kids)
            stack.append((node, True))
            stack.extend((k, False) for k in reversed(kids))
            continue
        n = arity.pop(id(node))
        args = values[len(values) - n:] if n else []
        if n:
            del values[len(values) - n:]
        values.append(build(node, args))
    return values[0]


# ---------------------------------------------------------------------------------------------
# readable arithmetic


def read_text(text: str, names: Mapping[str, Any]) -> sp.Expr:
    """The SymPy expression of arithmetic text (``**`` for powers); ``names`` maps each name to a
    symbol or, where the name is called, a function."""
    tree = _parse(text, "model")

    def children(node: ast.AST) -> list[ast.AST]:
        if isinstance(node, ast.Expression):
            return [node.body]
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)):
            return [node.left, node.right]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return [node.operand]
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
                raise ExpressionRefused(f"{node.value!r} is not a number", _column(node))
            return []
        if isinstance(node, ast.Name):
            if node.id not in names or callable(names[node.id]) and not isinstance(names[node.id], sp.Basic):
                raise ExpressionRefused(f"'{node.id}' is a function: call it, e.g. {node.id}(x)", _column(node))
            return []
        if isinstance(node, ast.Call):
            func = node.func
            if not isinstance(func, ast.Name) or func.id not in names or isinstance(names[func.id], sp.Basic):
                raise ExpressionRefused("only the known functions may be called", _column(node))
            if node.keywords or any(isinstance(a, ast.Starred) for a in node.args) or not node.args:
                raise ExpressionRefused(f"{func.id}() takes plain arguments", _column(node))
            return list(node.args)
        raise ExpressionRefused(f"a model must be a numeric expression: '{type(node).__name__}' is not allowed",
                                _column(node))

    def build(node: ast.AST, args: list[Any]) -> Any:
        if isinstance(node, ast.Expression):
            return args[0]
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, float):
                if not math.isfinite(value):
                    raise ExpressionRefused(f"the number {value} is not finite", _column(node))
                return sp.Float(value)
            return _check_number(sp.Integer(value), node)
        if isinstance(node, ast.Name):
            return names[node.id]
        if isinstance(node, ast.UnaryOp):
            return -args[0] if isinstance(node.op, ast.USub) else args[0]
        if isinstance(node, ast.BinOp):
            a, b = args
            if isinstance(node.op, ast.Pow):
                return _power(a, b, node)
            if isinstance(node.op, ast.Div):
                if b == 0:
                    raise ExpressionRefused("division by zero", _column(node))
                return _check_number(a / b, node)
            return _check_number(_TEXT_BINARY[type(node.op)](a, b), node)
        if isinstance(node, ast.Call):
            try:
                return _check_number(names[node.func.id](*args), node)  # type: ignore[attr-defined]
            except (TypeError, ValueError) as exc:  # SymPy's Max/Min refuse an argument that is not real
                raise ExpressionRefused(f"{node.func.id}(): {exc}", _column(node)) from None  # type: ignore[attr-defined]
        raise AssertionError(type(node))  # children() admitted only the kinds above

    result = _walk(tree, children, build)
    if not isinstance(result, sp.Expr):
        raise ExpressionRefused("a model must be a numeric expression")
    return result


# ---------------------------------------------------------------------------------------------
# SymPy srepr, as model files hold it

_SYMBOL_ASSUMPTIONS = frozenset({"positive", "real", "nonnegative", "integer", "finite", "commutative"})

_SREPR_CALLS: dict[str, Callable[..., Any]] = {
    "Add": sp.Add, "Mul": sp.Mul, "log": sp.log, "exp": sp.exp, "Max": sp.Max, "Min": sp.Min,
    "Abs": sp.Abs, "sqrt": sp.sqrt, "ceiling": sp.ceiling, "floor": sp.floor,
    "Piecewise": sp.Piecewise, "ExprCondPair": sp.functions.elementary.piecewise.ExprCondPair,
    "LessThan": sp.LessThan, "StrictLessThan": sp.StrictLessThan, "GreaterThan": sp.GreaterThan,
    "StrictGreaterThan": sp.StrictGreaterThan, "And": sp.And, "Or": sp.Or,
}
_SREPR_ATOMS: dict[str, Any] = {"true": sp.true, "false": sp.false, "pi": sp.pi, "E": sp.E}
_NUMBER_CALLS = frozenset({"Integer", "Float", "Rational", "Symbol", "Pow"})


def _srepr_literal(node: ast.AST) -> Any:
    """A literal argument: a number (maybe negated) or a string."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str)) \
            and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and isinstance(node.operand.value, (int, float)) and not isinstance(node.operand.value, bool):
        return -node.operand.value
    raise ExpressionRefused("a number or a name in quotes was expected here", _column(node))


def _srepr_children(node: ast.AST, known: Mapping[str, Any]) -> list[ast.AST]:
    """The sub-expressions of an srepr node, refusing every node kind a model file does not hold
    and every applied function not ``known``."""
    applied = _applied_function(node)
    if applied is not None:
        if applied not in known:
            raise ExpressionRefused(f"the function '{applied}' is not known here", _column(node))
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):  # type: ignore[attr-defined]
            raise ExpressionRefused(f"{applied}() takes plain arguments", _column(node))
        return list(node.args)  # type: ignore[attr-defined]
    if isinstance(node, ast.Expression):
        return [node.body]
    if isinstance(node, ast.Name):
        if node.id not in _SREPR_ATOMS:
            raise ExpressionRefused(f"'{node.id}' is not allowed in a model expression", _column(node))
        return []
    if not isinstance(node, ast.Call):
        raise ExpressionRefused(f"'{type(node).__name__}' is not allowed in a model expression", _column(node))
    if not isinstance(node.func, ast.Name):
        raise ExpressionRefused("only SymPy constructors such as Add(...) may be called", _column(node))
    name = node.func.id
    if any(isinstance(a, ast.Starred) for a in node.args):
        raise ExpressionRefused(f"{name}() takes plain arguments", _column(node))
    if name in _NUMBER_CALLS and name != "Pow":
        return []  # their arguments are literals, read by build()
    if name not in _SREPR_CALLS and name != "Pow":
        raise ExpressionRefused(f"'{name}' is not allowed in a model expression", _column(node))
    if node.keywords:
        raise ExpressionRefused(f"{name}() takes no keywords", _column(node))
    return list(node.args)


def _srepr_build(node: ast.AST, args: list[Any], known: Mapping[str, Any]) -> Any:
    """The SymPy value of a node from the values of its sub-expressions."""
    applied = _applied_function(node)
    if applied is not None:
        try:
            return known[applied](*args)
        except (TypeError, ValueError) as exc:
            raise ExpressionRefused(f"{applied}(): {exc}", _column(node)) from None
    if isinstance(node, ast.Expression):
        return args[0]
    if isinstance(node, ast.Name):
        return _SREPR_ATOMS[node.id]
    assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    name = node.func.id
    if name == "Pow":
        if len(args) != 2:
            raise ExpressionRefused("Pow() takes two arguments", _column(node))
        return _power(args[0], args[1], node)
    if name in _NUMBER_CALLS:
        return _srepr_number(name, node)
    try:
        return _check_number(_SREPR_CALLS[name](*args), node)
    except (TypeError, ValueError) as exc:
        raise ExpressionRefused(f"{name}(): {exc}", _column(node)) from None


def _srepr_number(name: str, node: ast.Call) -> Any:
    """``Symbol``, ``Integer``, ``Rational`` or ``Float`` from its literal arguments."""
    values = [_srepr_literal(a) for a in node.args]
    keywords = {str(k.arg): _srepr_literal(k.value) if not isinstance(k.value, ast.Constant) or not isinstance(
        k.value.value, bool) else k.value.value for k in node.keywords}
    if name == "Symbol":
        if len(values) != 1 or not isinstance(values[0], str) or not values[0].isidentifier() \
                or values[0].startswith("_"):
            raise ExpressionRefused("Symbol() takes a parameter name", _column(node))
        if not set(keywords) <= _SYMBOL_ASSUMPTIONS or not all(isinstance(v, bool) for v in keywords.values()):
            raise ExpressionRefused("Symbol() takes only assumptions such as positive=True", _column(node))
        return sp.Symbol(values[0], **keywords)
    if name == "Integer":
        if len(values) != 1 or not isinstance(values[0], int) or keywords:
            raise ExpressionRefused("Integer() takes one whole number", _column(node))
        return _check_number(sp.Integer(values[0]), node)
    if name == "Rational":
        if len(values) != 2 or not all(isinstance(v, int) for v in values) or keywords or values[1] == 0:
            raise ExpressionRefused("Rational() takes two whole numbers, the second not zero", _column(node))
        return _check_number(sp.Rational(values[0], values[1]), node)
    # Float('digits', precision=53)
    if len(values) != 1 or not isinstance(values[0], (str, float, int)) or set(keywords) - {"precision"}:
        raise ExpressionRefused("Float() takes a number", _column(node))
    try:
        value = float(values[0])
    except (ValueError, OverflowError):
        raise ExpressionRefused(f"Float(): {_short(values[0])} is not a number", _column(node)) from None
    if not math.isfinite(value):
        raise ExpressionRefused(f"Float(): {_short(values[0])} is not finite", _column(node))
    return sp.Float(value)


def _applied_function(node: ast.AST) -> str | None:
    """The name ``f`` of a node ``Function('f')(...)``, the srepr of a function applied; else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Call):
        inner = node.func
        if isinstance(inner.func, ast.Name) and inner.func.id == "Function" and len(inner.args) == 1 \
                and not inner.keywords and isinstance(inner.args[0], ast.Constant) \
                and isinstance(inner.args[0].value, str):
            return inner.args[0].value
    return None


def read_srepr(text: str, functions: Mapping[str, Any] | None = None) -> sp.Expr:
    """The expression of SymPy ``srepr`` text as perfcompose writes it to model files.

    ``functions`` names the functions known only numerically that the text may apply
    (``Function('halo')(Symbol('x'))``): each name to the function; any other is refused.
    """
    known = functions or {}
    result = _walk(_parse(text, "expression"), lambda node: _srepr_children(node, known),
                   lambda node, args: _srepr_build(node, args, known))
    if not isinstance(result, sp.Expr):
        raise ExpressionRefused("not an expression")
    return result


# ---------------------------------------------------------------------------------------------
# finite values

_PROBES = (3.0, 7.0)
#: the SymPy operations evaluated here, each on doubles
_OPERATIONS: dict[type, Callable[..., Any]] = {
    sp.Add: lambda *a: math.fsum(a) if all(isinstance(x, float) for x in a) else sum(a),
    sp.Mul: lambda *a: math.prod(a), sp.Pow: pow, sp.log: math.log, sp.Max: max, sp.Min: min,
    sp.exp: math.exp, sp.Abs: abs, sp.floor: math.floor, sp.ceiling: math.ceil}


def _value(expr: sp.Expr, at: float) -> float | None:
    """The value of ``expr`` with every symbol at ``at``, in doubles, without recursion; None
    where it is not a finite real number, NaN where a node kind is not known here."""
    stack: list[tuple[Any, bool]] = [(expr, False)]  # SymPy nodes
    values: list[Any] = []
    try:
        while stack:
            node, ready = stack.pop()
            if not ready:
                if node.is_Symbol:
                    values.append(at)
                elif node.is_Number or node in (sp.pi, sp.E):
                    values.append(complex(node) if node.has(sp.I) else float(node))
                elif any(isinstance(node, kind) for kind in _OPERATIONS):
                    stack.append((node, True))
                    stack.extend((a, False) for a in reversed(node.args))
                else:
                    return math.nan
                continue
            n = len(node.args)
            args = values[len(values) - n:]
            del values[len(values) - n:]
            v = next(f for kind, f in _OPERATIONS.items() if isinstance(node, kind))(*args)
            if isinstance(v, complex) or not math.isfinite(v):
                return None
            values.append(float(v))
    except (OverflowError, ValueError, ZeroDivisionError, TypeError):
        return None
    return values[0]


def nowhere_finite(expr: sp.Expr) -> bool:
    """True when ``expr`` is not a finite real number at any of the probe points (every
    parameter 3, then every parameter 7): complex (``log2(-x)``), overflowing (``x**1e9``) or
    undefined everywhere. A model undefined at one point only (``1/(x-3)``) is kept."""
    return bool(expr.has(sp.zoo, sp.nan, sp.oo, -sp.oo, sp.I)) or all(_value(expr, at) is None for at in _PROBES)


# ---------------------------------------------------------------------------------------------
# model text read into a SymPy expression: parameters are positive symbols, coefficients doubles


@cache
def symbol(name: str) -> sp.Symbol:
    """The SymPy symbol of parameter ``name``: parameters are positive reals, always."""
    return sp.Symbol(name, positive=True)


def float64(expr: sp.Expr) -> sp.Expr:
    """Coefficients are IEEE doubles: round every Float to 53 bits so equality is exact."""
    floats = {f: sp.Float(float(f)) for f in expr.atoms(sp.Float) if f._prec != 53}
    return expr.xreplace(floats) if floats else expr


_FUNCTIONS: dict[str, Callable[..., sp.Expr]] = {
    "log2": lambda a: sp.log(a, 2), "log10": lambda a: sp.log(a, 10), "log": sp.log, "ln": sp.log, "sqrt": sp.sqrt,
    "exp": sp.exp, "max": sp.Max, "Max": sp.Max, "min": sp.Min, "Min": sp.Min}
_NOT_FINITE_NAMES = frozenset({"nan", "NaN", "oo", "zoo", "inf", "Infinity", "I"})
_KEYWORDS = frozenset({"and", "or", "not", "if", "else", "lambda", "import", "for", "in", "is"})


def names_in(text: str) -> list[tuple[str, int, bool]]:
    """Identifier tokens of ``text``: name, 1-based column, and whether a call ``(`` follows."""
    names: list[tuple[str, int, bool]] = []
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
                  if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER)]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return names  # the parser reports the syntax error with its position
    for k, tok in enumerate(tokens):
        if tok.type == tokenize.NAME:
            called = k + 1 < len(tokens) and tokens[k + 1].string == "("
            names.append((tok.string, tok.start[1] + 1, called))
    return names


def parse_expression(text: str, *, source: str | None = None, line: int | None = None) -> sp.Expr:
    """Parse model text (perfcompose or Extra-P syntax) into a SymPy expression.

    ``^`` and ``**`` are powers, ``log2(x)`` is ``log(x, 2)``, ``·`` and ``×`` multiply; every
    other name is a positive parameter. Errors point at the column with a caret.
    """
    original = text
    cleaned = text.replace("·", "*").replace("×", "*").replace("−", "-").strip()
    if not cleaned:
        raise ModelSyntaxError("empty model expression", path=source, line=line,
                               hint="write a model such as '5.2 + 0.51 * x^(3/2) * log2(x)'")
    shown = original if len(original) < 200 else None
    local: dict[str, Any] = {}
    for name, col, called in names_in(cleaned):
        where: dict[str, Any] = dict(path=source, line=line, column=col, source_line=original)
        if name in _FUNCTIONS:
            local[name] = _FUNCTIONS[name]
        elif called:
            raise ModelSyntaxError(f"unknown function {name!r}", **where,
                                   hint="known functions: " + ", ".join(sorted(set(_FUNCTIONS))))
        elif name in _KEYWORDS:
            raise ModelSyntaxError(f"'{name}' is not allowed in a model expression", **where)
        elif name.startswith("_"):
            raise ModelSyntaxError(f"parameter names may not start with '_': {name!r}", **where)
        elif name in _NOT_FINITE_NAMES:
            raise ModelSyntaxError(f"'{name}' is not a finite real number", **where,
                                   hint="a model is finite and real; these names cannot be parameters: "
                                        + ", ".join(sorted(_NOT_FINITE_NAMES)))
        else:
            local[name] = symbol(name)
    lead = len(text) - len(text.lstrip())
    try:
        expr = read_text(cleaned.replace("^", "**"), local)
    except ExpressionRefused as exc:
        at = (exc.column + lead) if exc.column else None
        raise ModelSyntaxError(exc.message, path=source, line=line, column=at, source_line=shown,
                               hint="use + - * / ^ ( ), numbers, parameter names and log2(...)") from None
    if nowhere_finite(expr):
        raise ModelSyntaxError("the model is not a finite real expression", path=source, line=line,
                               source_line=shown,
                               hint="a model's value must be a finite real number for positive parameters "
                                    "(no log of a negative number, nan, oo, I or overflowing powers)")
    return float64(expr)


def parse_srepr(text: str, functions: Mapping[str, Any] | None = None) -> sp.Expr:
    """The expression of a model file's ``expr`` field, read as data (never evaluated as code);
    ``functions`` are the numerically known functions it may apply, by name."""
    try:
        expr = read_srepr(text, functions)
    except ExpressionRefused as exc:
        raise ModelSyntaxError(f"invalid model expression in JSON: {exc.message}",
                               hint="the 'expr' field must be SymPy srepr as written by perfcompose") from None
    if nowhere_finite(expr):
        raise ModelSyntaxError("invalid model expression in JSON: not a finite real expression",
                               hint="a model's value must be a finite real number for positive parameters")
    return expr
