"""What every subcommand shares: the consoles, the user-error wrapper and progress bars."""
from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

import typer
from rich.console import Console

from perfcompose.errors import PerfcomposeError

console = Console()
err_console = Console(stderr=True)

F = TypeVar("F", bound=Callable[..., Any])


def user_errors(func: F) -> F:
    """Print a PerfcomposeError as one message and exit 2, instead of a traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except PerfcomposeError as exc:
            err_console.print(f"[bold red]error:[/bold red] {exc}", highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None
        except KeyboardInterrupt:
            err_console.print("interrupted")
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def fmt(v: float, spec: str = ".4g") -> str:
    """A number for a table; NaN prints as n/a."""
    return format(v, spec) if v == v else "n/a"


def progress() -> Any:
    """A rich progress display on stderr (transient: it disappears when done)."""
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                               TimeRemainingColumn)

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    TextColumn("ETA"), TimeRemainingColumn(), console=err_console, transient=True)


def one_bar(bar: Any) -> Callable[[str, int, int], None]:
    """A progress callback with one bar for the whole job; the label says what runs now."""
    job: list[Any] = []

    def step(label: str, k: int, n: int) -> None:
        if not job:
            job.append(bar.add_task(label, total=n))
        bar.update(job[0], completed=k, description=label)

    return step
