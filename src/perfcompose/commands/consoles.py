"""The two consoles every command prints on: results on standard output, messages and progress bars
on standard error. Only Rich, so that a command that runs without typer prints alike."""
from __future__ import annotations

import sys
from typing import Any

from rich.console import Console
from rich.markup import escape

from perfcompose.commands.widths import piped_width

# output to a file or a pipe is laid out wide, so that no number is broken across lines
console = Console(width=piped_width(sys.stdout))
err_console = Console(stderr=True, width=piped_width(sys.stderr))


def print_error(error: BaseException) -> None:
    """A user error as the command line prints it: one line on standard error."""
    err_console.print(f"[bold red]error:[/bold red] {escape(str(error))}", highlight=False, soft_wrap=True)


def fmt(v: float, spec: str = ".4g") -> str:
    """A number for a table; NaN prints as n/a."""
    return format(v, spec) if v == v else "n/a"


def progress() -> Any:
    """A rich progress display on stderr (transient: it disappears when done)."""
    import rich.progress as rp

    return rp.Progress(rp.TextColumn("{task.description}"), rp.BarColumn(), rp.MofNCompleteColumn(),
                       rp.TimeElapsedColumn(), rp.TextColumn("ETA"), rp.TimeRemainingColumn(), console=err_console,
                       transient=True)
