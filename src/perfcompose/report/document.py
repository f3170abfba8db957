"""What an HTML report holds, as plain values: builders fill them, :func:`perfcompose.report.html.render` draws them."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Node:
    """One node of a drawn program term: its label, a detail line and its children."""

    label: str
    detail: str = ""
    children: tuple[Node, ...] = ()
    emphasis: bool = False


@dataclass(frozen=True)
class Tree:
    """A program term drawn as a tree."""

    title: str
    root: Node  #: the term's outermost operator or component
    #: every node with children opens and closes (<details>), open at first
    collapsible: bool = False


@dataclass(frozen=True)
class TableBlock:
    """A table: headers (units in brackets) and rows of already formatted cells."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    note: str = ""
    numeric: tuple[bool, ...] = ()

    def is_numeric(self, k: int) -> bool:
        return self.numeric[k] if k < len(self.numeric) else False


@dataclass(frozen=True)
class Figure:
    """A figure as inline SVG markup (no external resources)."""

    title: str
    svg: str
    caption: str = ""


@dataclass(frozen=True)
class Text:
    """A paragraph of plain text (escaped when rendered); ``code`` draws it monospaced."""

    text: str
    code: bool = False


Block = Tree | TableBlock | Figure | Text


@dataclass(frozen=True)
class Section:
    title: str
    blocks: tuple[Block, ...] = ()


@dataclass(frozen=True)
class Report:
    """One page: a title, what it is about, its sections and the commands that regenerate it."""

    title: str
    kind: str
    sections: tuple[Section, ...] = ()
    summary: tuple[tuple[str, str], ...] = ()
    commands: tuple[str, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)


def table(title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]], note: str = "",
          numeric: Sequence[bool] | None = None) -> TableBlock:
    """A :class:`TableBlock` with every cell as text; columns whose cells all read as numbers
    are right-aligned unless ``numeric`` says otherwise. A column whose every cell is None is left
    out; elsewhere None reads '-'."""
    drop = {k for k in range(len(columns)) if rows and all(k < len(r) and r[k] is None for r in rows)}
    columns = [c for k, c in enumerate(columns) if k not in drop]
    numeric = None if numeric is None else [v for k, v in enumerate(numeric) if k not in drop]
    cells = tuple(tuple("-" if c is None else str(c) for k, c in enumerate(r) if k not in drop) for r in rows)
    if numeric is None:
        def number(s: str) -> bool:
            try:
                float(s.replace(",", "").rstrip("%x ").split(" ")[0])
                return True
            except ValueError:
                return s in ("", "-", "n/a")
        numeric = [bool(cells) and all(number(r[k]) for r in cells if k < len(r)) for k in range(len(columns))]
    return TableBlock(title, tuple(columns), cells, note, tuple(numeric))
