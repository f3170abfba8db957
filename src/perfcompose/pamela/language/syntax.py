"""The abstract syntax of a PAMELA model (paper 004, section 2.1): untyped nodes, each with the line
and column it was written at.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from perfcompose.errors import InputError

__all__ = ["Pos", "Number", "Name", "Call", "BinOp", "Neg", "Loop", "If", "Vector", "Node",
           "Equation", "PamelaProgram", "PamelaError"]


class PamelaError(InputError):
    """A PAMELA model that cannot be read, typed, compiled or simulated; it names the place."""


@dataclass(frozen=True)
class Pos:
    """A place in the model text: 1-based line and column."""

    line: int
    column: int
    file: str | None = None  #: the included file it was written in; None: the program's own file


@dataclass(frozen=True)
class Number:
    """A numeric literal, kept as written (``10``, ``0.1``, ``1e6``)."""

    text: str
    pos: Pos


@dataclass(frozen=True)
class Name:
    """A reference to an equation, a formal parameter, a loop index or a predefined name."""

    name: str
    pos: Pos


@dataclass(frozen=True)
class Call:
    """``name(arg, ...)``: an equation with formal parameters, or a predefined operator."""

    name: str
    args: tuple[Node, ...]
    pos: Pos


@dataclass(frozen=True)
class BinOp:
    """A binary operator: numeric (``+ - * / ^ mod div == != < <= > >=``) or process (``;`` ``||``)."""

    op: str
    left: Node
    right: Node
    pos: Pos


@dataclass(frozen=True)
class Neg:
    """Unary minus."""

    operand: Node
    pos: Pos


LoopKind = Literal["seq", "par", "sum", "max", "min"]
EquationKind = Literal["numeric", "process", "resource"]


@dataclass(frozen=True)
class Loop:
    """``kind (index = lo, hi) body``: ``seq``/``par`` over processes, ``sum``/``max``/``min`` over numbers."""

    kind: LoopKind
    index: str
    lo: Node
    hi: Node
    body: Node
    pos: Pos


@dataclass(frozen=True)
class If:
    """``if (cond) then_ else else_``; without ``else`` the other branch does nothing (or is 0)."""

    cond: Node
    then: Node
    else_: Node | None
    pos: Pos


@dataclass(frozen=True)
class Vector:
    """A vector literal ``[a, b, c]`` (base 0)."""

    items: tuple[Node, ...]
    pos: Pos


Node = Number | Name | Call | BinOp | Neg | Loop | If | Vector


@dataclass(frozen=True)
class Equation:
    """``kind [parameter] name[(formals)] [= body]``: one line of the model (which may span several)."""

    kind: EquationKind
    name: str
    formals: tuple[str, ...]
    parameter: bool
    body: Node | None
    pos: Pos
    has_formals: bool = False


@dataclass(frozen=True)
class PamelaProgram:
    """A parsed model: its equations in order, and the text they came from (for error carets)."""

    equations: tuple[Equation, ...]
    text: str
    path: str | None = None
    sources: tuple[tuple[str, str], ...] = ()  #: (path, text) of every included file

    def line(self, number: int, file: str | None = None) -> str | None:
        """Source line ``number`` (1-based) of the program or of an included ``file``, for carets."""
        lines = (self.text if file is None or file == self.path else dict(self.sources).get(file, "")).splitlines()
        return lines[number - 1] if 0 < number <= len(lines) else None

    def error(self, message: str, pos: Pos | None, hint: str | None = None) -> PamelaError:
        """A located error: file, line, column, the source line with a caret, and what to do."""
        if pos is None:
            return PamelaError(message, path=self.path, hint=hint)
        return PamelaError(message, path=pos.file or self.path, line=pos.line, column=pos.column,
                           source_line=self.line(pos.line, pos.file), hint=hint)

    @property
    def source_name(self) -> str:
        return Path(self.path).name if self.path else "<model>"
