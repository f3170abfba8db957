"""Read PAMELA text (paper 004, section 2.1) into :mod:`.syntax` with a lark grammar. Precedence,
loosest first: ``||``, ``;``, comparisons, ``+ -``, ``* / mod div``, unary ``-``, ``^``; ``seq``,
``par``, ``sum``, ``max``, ``min`` and ``if`` are prefix operators whose body is one term; ``%``
starts a comment. Every syntax error names the line and column.
"""
from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path
from typing import cast

import lark

from perfcompose.pamela.language.syntax import (
    BinOp,
    Call,
    Equation,
    EquationKind,
    If,
    Loop,
    LoopKind,
    Name,
    Neg,
    Node,
    Number,
    PamelaError,
    PamelaProgram,
    Pos,
    Vector,
)

__all__ = ["parse", "load", "GRAMMAR", "RESERVED"]

GRAMMAR = r"""
start: (equation | include)*

include: "include" STRING
STRING: /"[^"\n]*"/

equation: kind [PARAMETER] NAME [formals] ["=" expr]
!kind: "numeric" | "process" | "resource"
PARAMETER: "parameter"
formals: "(" [NAME ("," NAME)*] ")"

?expr: par
?par: seq
    | par "||" seq                          -> parallel
?seq: cmp
    | seq ";" cmp                           -> sequential
?cmp: sum
    | sum cmpop sum                         -> compare
?sum: product
    | sum addop product                     -> arith
?product: unary
    | product mulop unary                   -> arith
?unary: power
    | "-" unary                             -> neg
?power: prefix
    | prefix "^" unary                      -> power
?prefix: atom
    | loopkw "(" NAME "=" expr "," expr ")" prefix        -> loop
    | maxmin "(" NAME "=" expr "," expr ")" prefix        -> loop
    | IF "(" expr ")" [THEN] prefix [ELSE prefix]         -> cond
?atom: NUMBER                               -> number
    | NAME                                  -> name
    | NAME "(" [expr ("," expr)*] ")"       -> call
    | maxmin "(" expr ("," expr)* ")"       -> call
    | "(" expr ")"
    | "{" expr "}"
    | "[" [expr ("," expr)*] "]"            -> vector

!loopkw: "seq" | "par" | "sum"
!maxmin: "max" | "min"
!cmpop: "==" | "!=" | "<=" | ">=" | "<" | ">"
!addop: "+" | "-"
!mulop: "*" | "/" | "mod" | "div"
IF: "if"
THEN: "then"
ELSE: "else"
NAME: /[A-Za-z_][A-Za-z0-9_]*/
NUMBER: /(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?/
COMMENT: /%[^\n]*/
%ignore /\s+/
%ignore COMMENT
"""

RESERVED = frozenset({"include", "numeric", "process", "resource", "parameter", "seq", "par", "sum", "max", "min",
                      "if", "then", "else", "mod", "div"})

_HINT = ("an equation reads 'numeric|process|resource [parameter] NAME[(formals)] = expression', e.g. "
         "'process main = par (p = 1, P) { delay(10) ; use(s, 0.1) }'")
_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {v: k for k, v in _OPEN.items()}


@lru_cache(maxsize=1)
def _parser() -> lark.Lark:
    # cache=True: the LALR tables are built once per grammar and kept in the temporary folder
    return lark.Lark(GRAMMAR, parser="lalr", propagate_positions=True, maybe_placeholders=True, cache=True)


def _tok(item: lark.Token | lark.Tree) -> lark.Token:
    """The keyword or operator token of a ``!rule`` that keeps its tokens."""
    tok = item.children[0] if isinstance(item, lark.Tree) else item
    assert isinstance(tok, lark.Token), "a !rule keeps its tokens"
    return tok


def _check_brackets(program: PamelaProgram) -> None:
    """Report the first unbalanced bracket where it is, not where the parser gives up."""
    stack: list[tuple[str, Pos]] = []
    for n, line in enumerate(program.text.splitlines(), start=1):
        for c, ch in enumerate(line, start=1):
            if ch == "%":
                break
            if ch in _OPEN:
                stack.append((ch, Pos(n, c)))
            elif ch in _CLOSE:
                if not stack:
                    raise program.error(f"'{ch}' closes nothing", Pos(n, c),
                                        f"remove it, or open it with '{_CLOSE[ch]}'")
                opener, where = stack.pop()
                if _OPEN[opener] != ch:
                    raise program.error(
                        f"'{ch}' does not match the '{opener}' opened at line {where.line}, column "
                        f"{where.column}", Pos(n, c), f"close that '{opener}' with '{_OPEN[opener]}' first")
    if stack:
        opener, where = stack[-1]
        raise program.error(f"'{opener}' is never closed", where, f"add the matching '{_OPEN[opener]}'")


class _Builder:
    """Turns lark's tree into syntax nodes."""

    def __init__(self, program: PamelaProgram, file: str | None = None):
        self.program = program
        self.file = file

    def pos(self, item: lark.Token | lark.Tree) -> Pos:
        if isinstance(item, lark.Token):
            return Pos(item.line or 1, item.column or 1, self.file)
        return Pos(item.meta.line, item.meta.column, self.file)

    def equation(self, tree: lark.Tree) -> Equation:
        kind_tree, param, name, formals, body = tree.children
        kind = _tok(kind_tree)
        if str(name) in RESERVED:
            raise self.program.error(f"'{name}' is a reserved word and cannot name an equation", self.pos(name))
        toks = [t for t in formals.children if t is not None] if formals is not None else []
        names = tuple(str(t) for t in toks)
        for k, tok in enumerate(toks):
            if str(tok) in names[:k]:
                raise self.program.error(f"formal parameter '{tok}' appears twice", self.pos(tok))
            if str(tok) in RESERVED:
                raise self.program.error(f"'{tok}' is a reserved word", self.pos(tok))
        # the grammar's TYPE token is one of the three kinds
        return Equation(kind=cast(EquationKind, str(kind)), name=str(name), formals=names, parameter=param is not None,
                        body=None if body is None else self.node(body), pos=self.pos(kind),
                        has_formals=formals is not None)

    def node(self, item: lark.Tree | lark.Token) -> Node:
        if isinstance(item, lark.Token):  # a bare token only reaches here through inlined rules
            raise self.program.error(f"unexpected '{item}'", self.pos(item), _HINT)
        kind = item.data
        ch = item.children
        if kind == "number":
            if not math.isfinite(float(str(ch[0]))):
                raise self.program.error(f"the number {str(ch[0])[:40]} is beyond the range of a double",
                                         self.pos(ch[0]), "numbers must be at most about 1.8e308")
            return Number(str(ch[0]), self.pos(ch[0]))
        if kind == "name":
            return Name(str(ch[0]), self.pos(ch[0]))
        if kind == "call":
            head = _tok(ch[0])
            args = tuple(self.node(c) for c in ch[1:] if c is not None)
            return Call(str(head), args, self.pos(head))
        if kind == "vector":
            return Vector(tuple(self.node(c) for c in ch if c is not None), self.pos(item))
        if kind in ("arith", "compare"):
            left, op_tree, right = ch
            op = _tok(op_tree)
            return BinOp(str(op), self.node(left), self.node(right), self.pos(op))
        if kind in ("power", "sequential", "parallel"):
            word = {"power": "^", "sequential": ";", "parallel": "||"}[kind]
            return BinOp(word, self.node(ch[0]), self.node(ch[1]), self.pos(item))
        if kind == "neg":
            return Neg(self.node(ch[0]), self.pos(item))
        if kind == "loop":
            head_tree, index, lo, hi, body = ch
            head = _tok(head_tree)
            if str(index) in RESERVED:
                raise self.program.error(f"'{index}' is a reserved word and cannot be a loop index", self.pos(index))
            # the grammar's loop keywords are the five kinds
            return Loop(cast(LoopKind, str(head)), str(index), self.node(lo), self.node(hi), self.node(body),
                        self.pos(head))
        if_tok, cond, _then, body, _else, other = ch  # the last construct of the grammar: cond
        return If(self.node(cond), self.node(body), None if other is None else self.node(other), self.pos(if_tok))


def parse(text: str, path: str | Path | None = None) -> PamelaProgram:
    """Parse PAMELA text into a :class:`PamelaProgram`, ``include "FILE.pam"`` read in place (found beside
    the including file); errors name file, line and column."""
    equations, sources = _parse(text, None if path is None else str(path), None, ())
    return PamelaProgram(equations, text, None if path is None else str(path), tuple(sources.items()))


def _parse(text: str, path: str | None, file: str | None,
           chain: tuple[str, ...]) -> tuple[tuple[Equation, ...], dict[str, str]]:
    """The equations of ``text`` with its includes spliced in, and the text of every included file."""
    program = PamelaProgram((), text, file or path)
    _check_brackets(program)
    try:
        tree = _parser().parse(text)
    except lark.UnexpectedCharacters as exc:
        raise program.error(f"unexpected character {exc.char!r}", Pos(exc.line, exc.column),
                            "PAMELA uses names, numbers, + - * / ^ mod div == != < <= > >= ; || "
                            "( ) { } [ ] , = and % for comments") from None
    except lark.UnexpectedToken as exc:
        tok = exc.token
        if tok.type == "$END":
            lines = text.splitlines() or [""]
            raise program.error("the model ends in the middle of an expression",
                                Pos(len(lines), len(lines[-1]) + 1), _HINT) from None
        hint = _HINT
        if tok.type in ("TYPE", "PARAMETER"):
            hint = "the previous equation is incomplete; " + _HINT
        elif "EQUAL" in exc.expected and tok.type not in ("EQUAL",):
            hint = "write '=' before the right-hand side; " + _HINT
        raise program.error(f"unexpected '{tok}'", Pos(tok.line, tok.column), hint) from None
    builder = _Builder(program, file)
    equations: list[Equation] = []
    sources: dict[str, str] = {}
    here = Path(file or path or ".").resolve()
    for item in tree.children:
        assert isinstance(item, lark.Tree), "the start rule holds equations and includes"
        if item.data != "include":
            equations.append(builder.equation(item))
            continue
        tok = item.children[0]
        where = builder.pos(tok)
        target = (here.parent / str(tok)[1:-1]).resolve()
        name = str(target)
        if name in chain or target == here:
            raise program.error("this include makes a cycle", where,
                           "a file cannot include itself, directly or through others")
        try:
            included = target.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = "no such file" if isinstance(exc, FileNotFoundError) else f"cannot read it ({exc})"
            raise program.error(f"include {tok}: {reason}: {target}", where,
                           "paths are relative to the including file") from None
        sub, subsources = _parse(included, path, name, chain + (str(here),))
        equations.extend(sub)
        sources[name] = included
        sources.update(subsources)
    return tuple(equations), sources



def load(path: str | Path) -> PamelaProgram:
    """Read and parse a ``.pam`` file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PamelaError(f"no such file: {p}", path=str(p), hint="check the path") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise PamelaError(f"cannot read {p}: {exc}", path=str(p)) from None
    return parse(text, p)
