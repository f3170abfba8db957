"""``--html OUT`` of the commands: gather what the command computed and write the page.

Each function takes what its command already holds, builds the report with
:mod:`perfcompose.report` and writes it; the command line that ran is listed on the page as the
command that regenerates it.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from perfcompose.commands.common import console
from perfcompose.report.html import this_command, write
from perfcompose.report.tables import svg_of, tables_report


def page(out: Path, build: Callable[..., Any], *args: Any, **options: Any) -> None:
    """The page ``build(*args, **options)`` makes (a :mod:`perfcompose.report` builder), listing the
    command that ran, written to ``out``."""
    written = write(build(*args, commands=(this_command(),), **options), out)
    console.print(f"report written to {written}", highlight=False)


def tables_html(out: Path, title: str, kind: str, tables: Sequence[Any], *, lines: Sequence[str] = (),
                plots: Sequence[tuple[str, Any]] = (), summary: Sequence[tuple[str, str]] = (),
                figures: Sequence[Any] = ()) -> None:
    """A page of a command's tables; ``plots`` are (title, function writing the plot to a path),
    ``figures`` figures already drawn (:func:`perfcompose.report.html.figure`)."""
    page(out, tables_report, title, kind, tables, lines=lines, summary=summary,
         figures=[*figures, *(svg_of(draw, name) for name, draw in plots)])
