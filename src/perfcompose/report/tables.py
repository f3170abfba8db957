"""Result tables built once and shown twice: printed by Rich on the terminal and written to HTML
as a :class:`~perfcompose.report.document.TableBlock`, with the command's plots as inline SVG;
for commands whose results are tables (``loggp gauss``, ``skeleton forecast``, the papers' tables)."""
from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Container, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich import table as rich_table
from rich.console import Console, ConsoleOptions, RenderableType
from rich.measure import Measurement
from rich.text import Text as RichText

from perfcompose.report.document import Figure, Report, Section, TableBlock, Text, table

_TAG = re.compile(r"(?<!\\)\[(?=[a-z#/@])")


def literal(text: str) -> str:
    """Text whose brackets Rich must print, not read as markup: ``time [ms]`` keeps its unit.

    Brackets already escaped (``\\[ms]``) stay as they are.
    """
    return _TAG.sub(r"\\[", text)


def plain(value: Any) -> str:
    """A cell, header or title as plain text: Rich markup removed, escaped brackets printed."""
    if isinstance(value, RichText):
        return value.plain
    return RichText.from_markup(value).plain if isinstance(value, str) else str(value)


@dataclass(frozen=True)
class Column:
    """One column of a :class:`ResultTable`: its header (Rich markup), alignment, whether it may
    be left out on a narrow terminal (its rank: 1 goes first), and further Rich column options."""

    header: str
    justify: str = "left"
    optional: int = 0
    options: tuple[tuple[str, Any], ...] = ()


class ResultTable:
    """A table of results, filled once (``add_column``, ``add_row``), printed by Rich or turned into
    the report's :class:`TableBlock` (:meth:`block`); units in titles are not markup, long cells
    wrap, and ``optional=True`` columns are left out, with a note, on a narrow terminal.

    >>> t = ResultTable(title="time [ms]"); t.add_column("x", justify="right"); t.add_row("1")
    >>> t.block().title, t.block().rows
    ('time [ms]', (('1',),))
    """

    def __init__(self, *headers: str, title: str | None = None, caption: str | None = None,
                 right: Container[int] = (), **options: Any) -> None:
        """``headers``: the columns, left-aligned but those numbered in ``right``."""
        options.setdefault("title_justify", "left")
        self.title = literal(title) if isinstance(title, str) else title
        self.caption = caption
        self.options = options
        self.columns: list[Column] = []
        self.rows: list[tuple[Any, ...]] = []
        for k, header in enumerate(headers):
            self.add_column(header, justify="right" if k in right else "left")

    def add_column(self, header: str = "", *, justify: str = "left", optional: bool | int = False,
                   **options: Any) -> None:
        """``optional``: True or a rank (1 is left out first) for a column that may be left out."""
        options.setdefault("overflow", "fold")
        self.columns.append(Column(literal(header) if isinstance(header, str) else header, justify,
                                   int(optional), tuple(options.items())))

    def add_row(self, *cells: Any) -> None:
        """One row: a cell per column (text with Rich markup, or a Rich ``Text``)."""
        self.rows.append(cells)

    def block(self) -> TableBlock:
        """The table for a report: title, headers and cells as plain text (markup removed, units kept)."""
        return table(plain(self.title) if self.title else "", [plain(c.header) for c in self.columns],
                     [[plain(v) for v in row] for row in self.rows], note=plain(self.caption or ""),
                     numeric=[c.justify == "right" for c in self.columns])

    def rich(self, left_out: Sequence[int] = ()) -> rich_table.Table:
        """The Rich table to print, without the columns numbered in ``left_out``."""
        keep = [k for k in range(len(self.columns)) if k not in left_out]
        t = rich_table.Table(title=self.title, caption=self.caption, **self.options)
        for k in keep:
            c = self.columns[k]
            t.add_column(c.header, justify=c.justify, **dict(c.options))  # type: ignore[arg-type]
        for row in self.rows:
            t.add_row(*(row[k] if k < len(row) else "" for k in keep))
        return t

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[RenderableType]:
        left_out: list[int] = []
        # leave out optional columns, lowest rank first, while the table would have to wrap
        for k in sorted((k for k, c in enumerate(self.columns) if c.optional),
                        key=lambda k: (self.columns[k].optional, -k)):
            # the table's own measure: Measurement.get would clamp the width to the terminal's
            if self.rich(left_out).__rich_measure__(console, options).maximum <= options.max_width:
                break
            left_out.append(k)
        yield self.rich(left_out)
        if left_out:
            names = ", ".join(plain(self.columns[k].header) for k in sorted(left_out))
            yield RichText(f"(left out at this width: {names}; widen the terminal or set COLUMNS to see them)",
                           style="dim")

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.rich())


def svg_of(draw: Callable[[Path], Any], title: str = "", caption: str = "") -> Figure:
    """The figure a plotting function writes, asked for as SVG (the format follows the suffix)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "figure.svg"
        draw(path)
        text = path.read_text(encoding="utf-8")
    text = text[text.index("<svg"):]
    return Figure(title, text, caption)


def tables_report(title: str, kind: str, tables: Sequence[ResultTable | TableBlock], *, lines: Sequence[str] = (),
                  figures: Sequence[Figure] = (), summary: Sequence[tuple[str, str]] = (),
                  commands: Sequence[str] = ()) -> Report:
    """A page of the command's tables, its notes (``lines``) and its figures."""
    blocks = tuple(t.block() if isinstance(t, ResultTable) else t for t in tables)
    sections = [Section("Results", blocks)]
    if lines:
        sections.append(Section("Notes", tuple(Text(plain(ln)) for ln in lines)))
    if figures:
        sections.append(Section("Figures", tuple(figures)))
    return Report(title, kind, tuple(sections), tuple(summary), tuple(commands))
