"""A report of the tables a command printed: Rich tables become HTML tables, with the command's
plots as inline SVG; for commands whose results are tables (``loggp gauss``, ``skeleton
forecast``, the papers' tables)."""
from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from perfcompose.report.document import Figure, Report, Section, TableBlock, Text, table


def _plain(value: Any) -> str:
    from rich.text import Text as RichText

    if isinstance(value, RichText):
        return value.plain
    return RichText.from_markup(str(value)).plain if isinstance(value, str) else str(value)


def from_rich(t: Any) -> TableBlock:
    """A Rich table's title, headers and cells as plain text (markup removed, units kept)."""
    columns = [_plain(c.header) for c in t.columns]
    cells = [[_plain(v) for v in c._cells] for c in t.columns]
    rows = list(zip(*cells)) if cells else []
    numeric = [c.justify == "right" for c in t.columns]
    return table(_plain(t.title) if t.title else "", columns, rows, numeric=numeric)


def svg_of(draw: Callable[[Path], Any], title: str = "", caption: str = "") -> Figure:
    """The figure a plotting function writes, asked for as SVG (the format follows the suffix)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "figure.svg"
        draw(path)
        text = path.read_text(encoding="utf-8")
    text = text[text.index("<svg"):]
    return Figure(title, text, caption)


def tables_report(title: str, kind: str, tables: Sequence[Any], *, lines: Sequence[str] = (),
                  figures: Sequence[Figure] = (), summary: Sequence[tuple[str, str]] = (),
                  commands: Sequence[str] = ()) -> Report:
    """A page of the command's tables, its notes (``lines``) and its figures."""
    blocks: list[Any] = [from_rich(t) for t in tables]
    sections = [Section("Results", tuple(blocks))]
    if lines:
        sections.append(Section("Notes", tuple(Text(_plain(ln)) for ln in lines)))
    if figures:
        sections.append(Section("Figures", tuple(figures)))
    return Report(title, kind, tuple(sections), tuple(summary), tuple(commands))
