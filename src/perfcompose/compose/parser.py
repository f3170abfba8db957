"""The text syntax of terms, read with a lark grammar into :mod:`perfcompose.compose.terms`.

::

    seq(qsort, inc)   pipe(a, b, c)   tpool_4(qsort)   tpool(4, qsort)   tpool_n(qsort)
    mapreduce(map=hist, reduce=sum, m=2, n=12, keys=768, per_key=x, bandwidth=1.25e8)

Every error names the line and column, shows the line with a caret and says what to write.
"""
from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any, cast

import lark
import sympy as sp

from perfcompose.compose.terms import Component, Count, MapReduce, Pipe, Position, Seq, Shuffle, Term, TPool, nest
from perfcompose.errors import InputError, ModelSyntaxError
from perfcompose.model import parse_expression

_GRAMMAR = r"""
?start: expr
?expr: sum
?sum: product
    | sum "+" product   -> add
    | sum "-" product   -> sub
?product: unary
    | product "*" unary -> mul
    | product "/" unary -> div
?unary: power
    | "-" unary         -> neg
?power: atom
    | atom POW unary    -> pow
?atom: NUMBER           -> number
    | NAME              -> name
    | NAME "(" [args] ")" -> call
    | "(" expr ")"
args: arg ("," arg)* [","]
?arg: expr
    | NAME "=" expr     -> kwarg
POW: "^" | "**"
NAME: /[A-Za-z_][A-Za-z0-9_]*/
NUMBER: /(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/
COMMENT: /#[^\n]*/
%ignore /\s+/
%ignore COMMENT
"""

#: the largest count a term may name (threads, nodes): beyond it no arithmetic on counts is exact
MAX_COUNT = 10 ** 12
#: names SymPy reads as numbers (not-a-number, infinities, the imaginary unit, constants): a count
#: kept symbolic under such a name would be that number, not a count
NUMBER_NAMES = frozenset({"nan", "NaN", "inf", "Infinity", "oo", "zoo", "I", "E", "pi", "EulerGamma",
                          "GoldenRatio", "Catalan", "TribonacciConstant", "true", "false", "True", "False", "None"})
#: what an unknown component's hint says where no component is defined at all
NO_COMPONENTS = ("no component is defined: give each with -c NAME=EXPR, e.g. -c a=536.185*x (or a file: "
                 "-c a=tasks.csv:inc), or in a design file's [components] table")


def known_components_hint(known: Any) -> str:
    """The hint of an unknown component: the names known, or how to define one where none is."""
    return f"known components: {', '.join(sorted(known))}" if known else NO_COMPONENTS


_HINT = ("a term is a component name or a pattern: seq(a, b, ...), pipe(a, b, ...), tpool_4(a), "
         "tpool(n, a), mapreduce(map=..., reduce=..., m=..., n=..., keys=..., per_key=...)")
_MAPREDUCE_ARGS = ("map", "reduce", "m", "n", "keys", "per_key", "o", "shuffle", "bandwidth", "bytes")


class TermSyntaxError(InputError):
    """A term that cannot be read: bad syntax, an unknown name, a misplaced pattern."""


@lru_cache(maxsize=1)
def _parser() -> lark.Lark:
    return lark.Lark(_GRAMMAR, parser="lalr", propagate_positions=True, maybe_placeholders=False, cache=True)


class _Reader:
    """Turns the generic parse tree into a term, checking each pattern's arguments."""

    def __init__(self, text: str, source: str | None, first_line: int, first_column: int,
                 components: Iterable[str] | None):
        self.text, self.source = text, source
        self.first_line, self.first_column = first_line, first_column
        self.lines = text.splitlines() or [""]
        self.known = None if components is None else tuple(components)

    # -- positions and errors ---------------------------------------------------------------

    def position(self, line: int, column: int) -> Position:
        return Position(line + self.first_line - 1, column + (self.first_column - 1 if line == 1 else 0))

    def error(self, message: str, line: int | None, column: int | None, hint: str | None = None
              ) -> TermSyntaxError:
        src = self.lines[line - 1] if line is not None and 0 < line <= len(self.lines) else None
        if line is None:
            return TermSyntaxError(message, path=self.source, source_line=self.text if len(self.lines) == 1
                                   else None, hint=hint)
        where = self.position(line, column or 1)
        pad = (self.first_column - 1) if line == 1 else 0
        return TermSyntaxError(message, path=self.source, line=where.line, column=where.column,
                               source_line=(" " * pad + src) if src is not None else None, hint=hint)

    def at(self, node: Any, message: str, hint: str | None = None) -> TermSyntaxError:
        meta = node if isinstance(node, lark.Token) else getattr(node, "meta", None)
        if meta is None or getattr(meta, "empty", False):
            return self.error(message, None, None, hint)
        return self.error(message, meta.line, meta.column, hint)

    def token_position(self, tok: lark.Token) -> Position:
        """Where a token stands in the term (the lexer gives every token a line and a column)."""
        assert tok.line is not None and tok.column is not None
        return self.position(tok.line, tok.column)

    def slice(self, node: Any) -> str:
        return str(node) if isinstance(node, lark.Token) else self.text[node.meta.start_pos:node.meta.end_pos]

    # -- terms ------------------------------------------------------------------------------

    def term(self, node: Any) -> Term:
        kind = node.data if isinstance(node, lark.Tree) else None
        if kind == "name":
            return self.component(cast(lark.Token, node.children[0]))
        if kind == "call":
            return self.call(node)
        if kind == "number":
            raise self.at(node, f"expected a term, found the number {self.slice(node)}", _HINT)
        raise self.at(node, f"expected a term, found the expression '{self.slice(node)}'", _HINT)

    def component(self, tok: lark.Token) -> Component:
        name = str(tok)
        if name in ("seq", "pipe", "tpool", "mapreduce", "mapReduce") or re.fullmatch(r"tpool_\w+", name):
            raise self.at(tok, f"'{name}' is a pattern and needs its arguments in parentheses", _HINT)
        if name == "shuffle":
            raise self.at(tok, "a shuffle stands only inside a mapreduce",
                          "describe it with mapreduce(..., shuffle=NAME) or bandwidth=BYTES_PER_S")
        if self.known is not None and name not in self.known:
            close = difflib.get_close_matches(name, self.known, n=1)
            hint = (f"did you mean '{close[0]}'? " if close else "") + known_components_hint(self.known)
            raise self.at(tok, f"unknown component '{name}'", hint)
        return Component(name, pos=self.token_position(tok))

    def arguments(self, node: lark.Tree) -> tuple[list[Any], dict[str, tuple[lark.Token, Any]]]:
        positional: list[Any] = []
        keywords: dict[str, tuple[lark.Token, Any]] = {}
        args = node.children[1].children if len(node.children) > 1 else []
        for arg in args:
            if isinstance(arg, lark.Tree) and arg.data == "kwarg":
                key, value = cast(lark.Token, arg.children[0]), arg.children[1]
                if str(key) in keywords:
                    raise self.at(key, f"argument '{key}' given twice")
                keywords[str(key)] = (key, value)
            else:
                if keywords:
                    raise self.at(arg, "positional argument after a keyword argument")
                positional.append(arg)
        return positional, keywords

    def call(self, node: lark.Tree) -> Term:
        head = cast(lark.Token, node.children[0])
        name = str(head)
        positional, keywords = self.arguments(node)
        pos = self.token_position(head)
        if name in ("seq", "pipe"):
            if keywords:
                raise self.at(next(iter(keywords.values()))[0], f"{name} takes terms, not keyword arguments",
                              f"write {name}(a, b, ...)")
            if len(positional) < 2:
                raise self.at(head, f"{name} needs at least two terms, got {len(positional)}",
                              f"write {name}(a, b, ...)")
            return nest(Seq if name == "seq" else Pipe, [self.term(arg) for arg in positional], pos)
        m = re.fullmatch(r"tpool_(\w+)", name)
        if m or name == "tpool":
            if keywords:
                raise self.at(next(iter(keywords.values()))[0], "tpool takes no keyword arguments",
                              "write tpool_4(a) or tpool(4, a)")
            if m:
                threads = self.count_text(m.group(1), head, "thread count", offset=len("tpool_"))
            else:
                if len(positional) != 2:
                    raise self.at(head, f"tpool(THREADS, TERM) needs two arguments, got {len(positional)}",
                                  "write tpool(4, a) or tpool_4(a)")
                threads = self.count(positional[0], "thread count")
                positional = positional[1:]
            if len(positional) != 1:
                raise self.at(head, f"a task pool wraps exactly one term, got {len(positional)}",
                              f"write {name}(seq(a, b)) to run several in each task")
            for sub in positional[0].iter_subtrees_topdown() if isinstance(positional[0], lark.Tree) else ():
                if sub.data == "call" and str(sub.children[0]) in ("mapreduce", "mapReduce"):
                    raise self.at(sub.children[0], "a shuffle may not be wrapped inside a task pool: this "
                                  "mapreduce exchanges data between nodes in its shuffle phase",
                                  "parallelise inside map or reduce instead, or raise n (threads per node)")
            body = self.term(positional[0])
            return TPool(threads, body, pos=pos)
        if name in ("mapreduce", "mapReduce"):
            return self.mapreduce(node, positional, keywords, pos)
        close = difflib.get_close_matches(name, ["seq", "pipe", "tpool", "mapreduce"], n=1)
        hint = (f"did you mean '{close[0]}'? " if close else "") + _HINT
        raise self.at(head, f"unknown pattern '{name}'", hint)

    def mapreduce(self, node: lark.Tree, positional: list[Any],
                  keywords: dict[str, tuple[lark.Token, Any]], pos: Position) -> MapReduce:
        head = cast(lark.Token, node.children[0])
        for key, (tok, _) in keywords.items():
            if key not in _MAPREDUCE_ARGS:
                raise self.at(tok, f"unknown mapreduce argument '{key}'",
                              "arguments: " + ", ".join(_MAPREDUCE_ARGS))
        if len(positional) > 2:
            raise self.at(positional[2], "mapreduce takes at most two positional terms (map, reduce)")
        for name, value in zip(("map", "reduce"), positional):
            if name in keywords:
                raise self.at(keywords[name][0], f"'{name}' given twice")
            keywords[name] = (head, value)
        for required in ("map", "reduce", "keys", "per_key"):
            if required not in keywords:
                raise self.at(head, f"mapreduce needs '{required}='",
                              "write mapreduce(map=M, reduce=R, m=1, n=4, keys=768, per_key=x)")
        map_term = self.term(keywords["map"][1])
        reduce_term = self.term(keywords["reduce"][1])
        m = self.count(keywords["m"][1], "node count") if "m" in keywords else 1
        n = self.count(keywords["n"][1], "thread count") if "n" in keywords else 1
        keys = self.expression(keywords["keys"][1], "keys")
        per_key = self.expression(keywords["per_key"][1], "per_key")
        o = self.expression(keywords["o"][1], "o") if "o" in keywords else keys
        shuffle_model = None
        if "shuffle" in keywords:
            value = keywords["shuffle"][1]
            if not (isinstance(value, lark.Tree) and value.data == "name"):
                raise self.at(value, "shuffle= names a component that models the shuffle time",
                              "write shuffle=NAME, or bandwidth=BYTES_PER_S for eq. 7 of 000")
            shuffle_model = self.component(cast(lark.Token, value.children[0])).name
        bandwidth = self.number(keywords["bandwidth"][1], "bandwidth") if "bandwidth" in keywords else None
        pair_bytes = self.number(keywords["bytes"][1], "bytes") if "bytes" in keywords else 16.0
        shuffle = Shuffle(m, n, o, model=shuffle_model, pair_bytes=pair_bytes, bandwidth=bandwidth, pos=pos)
        return MapReduce(map_term, shuffle, reduce_term, m, n, keys, per_key, pos=pos)

    # -- values -----------------------------------------------------------------------------

    def count_text(self, text: str, tok: lark.Token, what: str, offset: int = 0) -> Count:
        assert tok.column is not None
        column = tok.column + offset
        if text.isdigit():
            value = int(text)
            if value < 1:
                raise self.error(f"a {what} must be at least 1, got {value}", tok.line, column,
                                 "a task pool needs one thread or more")
            if value > MAX_COUNT:
                raise self.error(f"a {what} of {value} is beyond what perfcompose models (at most 10^12)",
                                 tok.line, column, "write a smaller count, or a name kept symbolic, e.g. tpool_n")
            return value
        if text in NUMBER_NAMES:
            raise self.error(f"'{text}' cannot name a {what}: it is read as a number, not a count", tok.line,
                             column, "write a positive integer or another name kept symbolic, e.g. tpool_n")
        if re.fullmatch(r"[A-Za-z]\w*", text):
            return text
        raise self.error(f"invalid {what} '{text}'", tok.line, column,
                         "write a positive integer or a name kept symbolic, e.g. tpool_4 or tpool_n")

    def count(self, node: Any, what: str) -> Count:
        if isinstance(node, lark.Tree) and node.data == "name":
            return self.count_text(str(node.children[0]), cast(lark.Token, node.children[0]), what)
        if isinstance(node, lark.Tree) and node.data == "number":
            tok = cast(lark.Token, node.children[0])
            if not re.fullmatch(r"\d+", str(tok)):
                raise self.at(tok, f"a {what} must be a whole number, got {tok}")
            return self.count_text(str(tok), tok, what)
        raise self.at(node, f"a {what} must be a positive integer or a name, got '{self.slice(node)}'")

    def number(self, node: Any, what: str) -> float:
        expr = self.expression(node, what)
        if expr.free_symbols or not expr.is_number or float(expr) <= 0:
            raise self.at(node, f"{what} must be a positive number, got '{self.slice(node)}'")
        return float(expr)

    def expression(self, node: Any, what: str) -> sp.Expr:
        text = self.slice(node)
        try:
            expr = parse_expression(text)
        except ModelSyntaxError as exc:
            raise self.at(node, f"{what}: {exc.reason}", exc.hint) from None
        bad = sorted(s.name for s in expr.free_symbols if s.name != "x")
        if bad:
            raise self.at(node, f"{what} must be an expression in x, the input size; found {', '.join(bad)}")
        return expr


def _bracket_check(reader: _Reader, text: str) -> None:
    """Unbalanced parentheses get their own message, pointing at the bracket at fault."""
    stack: list[tuple[int, int]] = []
    for line, row in enumerate(text.split("\n"), start=1):
        for col, ch in enumerate(row.split("#", 1)[0], start=1):  # a comment runs to the end of its line
            if ch == "(":
                stack.append((line, col))
            elif ch == ")":
                if not stack:
                    raise reader.error("unbalanced parentheses: this ')' closes nothing", line, col,
                                       "remove it or add the matching '('")
                stack.pop()
    if stack:
        line, col = stack[-1]
        raise reader.error("unbalanced parentheses: this '(' is never closed", line, col,
                           "add the matching ')'")


def parse_term(text: str, *, components: Iterable[str] | None = None, source: str | None = None,
               line: int = 1, column: int = 1) -> Term:
    """Read a term from its text syntax.

    ``components``, when given, are the known component names; any other name is an error that
    lists them. ``source``, ``line`` and ``column`` say where the text sits in a file, so that
    errors point there.

    >>> str(parse_term("pipe(tpool_4(qsort), inc, nop)"))
    'pipe(tpool_4(qsort), inc, nop)'
    """
    reader = _Reader(text, source, line, column, components)
    if not text.strip():
        raise reader.error("empty term", None, None, _HINT)
    _bracket_check(reader, text)
    try:
        tree = _parser().parse(text)
    except lark.UnexpectedCharacters as exc:
        raise reader.error(f"unexpected character {exc.char!r}", exc.line, exc.column,
                           _HINT) from None
    except (lark.UnexpectedEOF, lark.UnexpectedToken) as exc:
        tok = exc.token if isinstance(exc, lark.UnexpectedToken) and exc.token.type != "$END" else None
        if tok is None:
            raise reader.error("the term ends too early", len(reader.lines), len(reader.lines[-1]) + 1,
                               _HINT) from None
        raise reader.error(f"unexpected '{tok}'", tok.line, tok.column, _HINT) from None
    return reader.term(tree)
