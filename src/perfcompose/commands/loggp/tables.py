"""What ``loggp simulate`` prints: for a program, the table of its processors (the last to finish of a large one) and
the makespan; for a GOAL schedule, its parameters, the ranks that finish last and the makespan. No typer and no NumPy
(times are any sequences of floats), and Rich imported only where it prints.

:func:`show` writes a result as plain text, without importing Rich, where Rich would print it without styles: standard
output not a terminal, no setting that makes Rich style it, UTF-8, and text that Rich prints as it is (no markup, no
emoji codes, ASCII, no word wider than the table, the table as wide as its widest cells). That text is byte for byte
what Rich prints (its heavy-head box, the title wrapped to the table's width and set left, the caption wrapped and
centred); where any of those conditions fails, Rich prints it (:func:`print_layout`). Importing and running Rich takes
about a tenth of a second, as long as a whole small simulation."""
from __future__ import annotations

import heapq
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from perfcompose.commands.widths import WIDE, piped_width

MAX_ROWS = 40  #: ranks (processors) listed in the table of a large schedule (program)

_PLAIN = re.compile(r"[ -~]*\Z")  #: printable ASCII
_SPECIAL = re.compile(r"[\[\]\\]|:\S*?:")  #: what Rich reads as markup or emoji codes
_WORD = re.compile(r"\s*\S+\s*")  #: a word and the spaces around it, as Rich divides lines
_HEADER = re.compile(r"[a-z]+( \[[A-Za-z0-9]+\])?")  #: a column's name and unit, which Rich prints as it is


def critical(finish: Sequence[float], computation: Sequence[float]) -> int:
    """The processor that finishes last (the most computation among equals, then the lowest)."""
    last = max(finish)
    return max((p for p in range(len(finish)) if finish[p] == last), key=lambda p: (computation[p], -p))


def console_width() -> int | None:
    """The width Rich's console gives standard output, or None where Rich might print it with
    styles or otherwise than as plain text (a terminal, forced colour, Jupyter, a narrow encoding)."""
    out, env = sys.stdout, os.environ
    if (piped_width(out, {}) is None or sys.platform == "win32" or env.get("TTY_COMPATIBLE", "") == "1"
            or env.get("FORCE_COLOR") is not None or "get_ipython" in dir(__builtins__)
            or not (getattr(out, "encoding", None) or "utf-8").lower().startswith("utf")):
        return None
    columns = env.get("COLUMNS", "")
    return int(columns) if columns.isdigit() else WIDE  # no terminal: laid out wide (see .widths)


def _printable(*texts: str) -> bool:
    return all(_PLAIN.match(t) and not _SPECIAL.search(t) for t in texts)


def _wrapped(text: str, width: int, justify: str = "") -> list[str] | None:
    """``text`` wrapped at ``width`` as Rich wraps it, and set ``left`` (padded, a table's title) or ``center`` (a
    caption) or neither (a line printed); None where a word is wider than ``width`` (Rich folds it)."""
    lines, line = [], ""
    for word in _WORD.findall(text):
        if len(word.rstrip()) > width:
            return None
        if line and width - len(line) < len(word.rstrip()):
            lines.append(line)
            line = ""
        line += word
    lines.append(line)
    out = []
    for ln in lines:
        ln = ln[:width]  # every word fits: only spaces lie beyond the width, and they go
        if justify == "center":
            ln = ln.rstrip()
            ln = (" " * ((width - len(ln)) // 2) + ln).ljust(width)
        elif justify == "left":
            ln = ln.ljust(width)
        out.append(ln)
    return out


def _table(title: str | None, headers: Sequence[str], rows: Sequence[Sequence[str]], caption: str | None,
           width: int) -> list[str] | None:
    """A table of right-aligned columns in Rich's heavy-head box, or None where Rich would lay it
    out otherwise (narrower than its cells, a word of the title or caption wider than it)."""
    widths = [max(len(h), *(len(r[k]) for r in rows)) for k, h in enumerate(headers)]
    total = sum(widths) + 3 * len(widths) + 1
    if total > width or not _printable(*(c for r in rows for c in r)):
        return None
    top = _wrapped(title, total, "left") if title else []
    bottom = _wrapped(caption, total, "center") if caption else []
    if top is None or bottom is None:
        return None
    return [*top, "┏" + "┳".join("━" * (w + 2) for w in widths) + "┓",
            "┃" + "┃".join(f" {h:>{w}} " for h, w in zip(headers, widths)) + "┃",
            "┡" + "╇".join("━" * (w + 2) for w in widths) + "┩",
            *("│" + "│".join(f" {c:>{w}} " for c, w in zip(r, widths)) + "│" for r in rows),
            "└" + "┴".join("─" * (w + 2) for w in widths) + "┘", *bottom]


def _number(v: float) -> str:
    return format(v, ".6g") if v == v else "n/a"


@dataclass(frozen=True)
class ResultLayout:
    """What a result prints, whichever writer prints it: lines before the table, the table's
    title, right-aligned columns and caption, and lines after it."""

    head: tuple[str, ...]
    title: str | None
    headers: tuple[str, ...]
    rows: Sequence[tuple[str, ...]]
    caption: str | None
    tail: tuple[str, ...] = ()


def _shown(finish: Any, what: str) -> tuple[Any, str | None]:
    """The ranks (processors) a table lists, in rank order: all, or those that finish last (the lower rank first
    among equal times) with a caption that says so."""
    n = len(finish)
    if n <= MAX_ROWS:
        return range(n), None
    return (sorted(heapq.nsmallest(MAX_ROWS, range(n), key=lambda h: (-finish[h], h))),
            f"the {MAX_ROWS} of {n} {what} that finish last (--json lists all)")


def goal_layout(program: str, num_ranks: int, params: Any, O: float, S: float, finish: Any) -> ResultLayout:
    """A GOAL schedule's result: its parameters, the ranks' finish times (the last :data:`MAX_ROWS`
    of a large schedule) and the makespan."""
    shown, caption = _shown(finish, "ranks")
    head = (f"{program}: LogGOPSim semantics, {num_ranks} ranks; L={params.L:g} o={params.o:g} g={params.g:g} "
            f"G={params.G:g} O={O:g} S={S:g}",)
    return ResultLayout(head, None, ("rank", "finish"), [(str(h), _number(float(finish[h]))) for h in shown],
                        caption, (f"makespan {max(finish, default=0.0):.6g}",))


def program_layout(title: str, unit: str, finish: Any, computation: Any, communication: Any, operations: Any,
                   tail: tuple[str, ...] = ()) -> ResultLayout:
    """A program's table: finish, computation, communication and operations per processor (the
    last :data:`MAX_ROWS` to finish of a large program), times in ``unit``; ``tail``, the lines after it."""
    shown, caption = _shown(finish, "processors")
    u = f" [{unit}]" if unit else ""
    rows = [(str(p), _number(float(finish[p])), _number(float(computation[p])), _number(float(communication[p])),
             str(int(operations[p]))) for p in shown]
    return ResultLayout((), title, ("processor", f"finish{u}", f"computation{u}", f"communication{u}", "operations"),
                        rows, caption, tail)


def makespan_line(makespan: float, unit: str, processor: int) -> str:
    """The makespan line of a program's result."""
    return f"makespan {makespan:.6g}{' ' + unit if unit else ''} (processor {processor})"


def _lines(width: int, *texts: str) -> list[str] | None:
    """Lines of text as Rich prints them on a console ``width`` wide, or None (see the module)."""
    wrapped = [_wrapped(t, width) for t in texts] if _printable(*texts) else [None]
    return None if None in wrapped else [ln for got in wrapped for ln in got or ()]


def result_text(layout: ResultLayout) -> str | None:
    """The layout as Rich prints it on standard output, or None (see the module)."""
    width = console_width()
    if (width is None or (layout.title is not None and not _printable(layout.title))
            or not all(_HEADER.fullmatch(h) for h in layout.headers)):
        return None
    head, tail = _lines(width, *layout.head), _lines(width, *layout.tail)
    table = _table(layout.title, layout.headers, layout.rows, layout.caption, width)
    if head is None or tail is None or table is None:
        return None
    return "".join(ln + "\n" for ln in [*head, *table, *tail])


def show(layout: ResultLayout) -> None:
    """The layout on standard output: as plain text where Rich would print the same without styles, else with Rich."""
    text = result_text(layout)
    if text is None:
        print_layout(layout)
        return
    sys.stdout.write(text)
    sys.stdout.flush()


def print_layout(layout: ResultLayout) -> None:
    """The layout printed with Rich (imported only now), on the command's console; the headers
    escaped, so that a unit's brackets print."""
    from rich.markup import escape

    from perfcompose.commands.consoles import console
    from perfcompose.report.tables import ResultTable as Table

    for line in layout.head:
        console.print(line, highlight=False)
    table = Table(*map(escape, layout.headers), title=layout.title, caption=layout.caption,
                  right=range(len(layout.headers)))
    for row in layout.rows:
        table.add_row(*row)
    console.print(table)
    for line in layout.tail:
        console.print(line)
