"""What every subcommand shares: the consoles, the user-error wrapper and progress bars."""
from __future__ import annotations

import contextlib
import functools
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import typer
from rich import table as _rich_table
from rich.console import Console
from rich.markup import escape

from perfcompose.errors import from_exception

console = Console()
err_console = Console(stderr=True)

F = TypeVar("F", bound=Callable[..., Any])


def user_errors(func: F) -> F:
    """Print a PerfcomposeError, or a failure :func:`perfcompose.errors.from_exception` knows (a
    file that cannot be read or written, text that is not UTF-8, nesting too deep), as one message
    and exit 2, instead of a traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except Exception as exc:  # foreseeable failures become located errors; defects propagate
            error = from_exception(exc)
            if error is None:
                raise
            err_console.print(f"[bold red]error:[/bold red] {escape(str(error))}", highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None
        except KeyboardInterrupt:
            err_console.print("interrupted")
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


_TAG = re.compile(r"(?<!\\)\[(?=[a-z#/@])")


def literal(text: str) -> str:
    """Text whose brackets Rich must print, not read as markup: ``time [ms]`` keeps its unit.

    Brackets already escaped (``\\[ms]``) stay as they are.
    """
    return _TAG.sub(r"\\[", text)


class Table(_rich_table.Table):
    """A Rich table for results: units in the title and headers are printed (not read as markup),
    long cells wrap instead of being cut, and columns added with ``optional=True`` are left out,
    with a note, when the terminal is too narrow for all columns."""

    def __init__(self, *headers: Any, title: str | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("title_justify", "left")
        super().__init__(*headers, title=literal(title) if isinstance(title, str) else title, **kwargs)
        self._optional: dict[int, int] = {}

    def add_column(self, header: Any = "", *args: Any, optional: bool | int = False, **kwargs: Any) -> None:
        """``optional``: True or a rank (1 is left out first) for columns that may be left out."""
        kwargs.setdefault("overflow", "fold")
        if optional:
            self._optional[len(self.columns)] = int(optional)
        super().add_column(literal(header) if isinstance(header, str) else header, *args, **kwargs)

    def __rich_console__(self, console: Any, options: Any) -> Any:
        if not self._optional:
            yield from super().__rich_console__(console, options)
            return
        columns = self.columns
        dropped: list[str] = []
        try:
            # leave out optional columns, lowest rank first, while the table would have to wrap
            for k in sorted(self._optional, key=lambda k: (self._optional[k], -k)):
                if self.__rich_measure__(console, options).maximum <= options.max_width:
                    break
                dropped.insert(0, str(columns[k].header))
                self.columns = [c for c in self.columns if c is not columns[k]]
            yield from super().__rich_console__(console, options)
        finally:
            self.columns = columns
        if dropped:
            names = ", ".join(d.replace(chr(92) + "[", "[") for d in dropped)
            yield _rich_table.Text(f"(left out at this width: {names}; "
                                   "widen the terminal or set COLUMNS to see them)", style="dim")


def fmt(v: float, spec: str = ".4g") -> str:
    """A number for a table; NaN prints as n/a."""
    return format(v, spec) if v == v else "n/a"


def progress() -> Any:
    """A rich progress display on stderr (transient: it disappears when done)."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

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


def per_task(bar: Any) -> Callable[[str, int, int], None]:
    """A progress callback that shows one bar per task."""
    jobs: dict[str, Any] = {}

    def step(name: str, k: int, n: int) -> None:
        if name not in jobs:
            jobs[name] = bar.add_task(name, total=n)
        bar.update(jobs[name], completed=k)

    return step


@contextlib.contextmanager
def bar_after(bar: Any, delay: float = 1.0) -> Iterator[Callable[[str, int, int], None]]:
    """A :func:`one_bar` callback whose progress display appears only once the job has run for
    ``delay`` seconds (a quick job shows none); the display is closed on leaving."""
    start = time.perf_counter()
    step = one_bar(bar)
    shown: list[bool] = []

    def report(label: str, k: int, n: int) -> None:
        if not shown and time.perf_counter() - start >= delay:
            bar.start()
            shown.append(True)
        step(label, k, n)

    try:
        yield report
    finally:
        if shown:
            bar.stop()


def scaling_option() -> Any:
    """``--scaling``: how the processes' and threads' values of a CUBE profile combine (Extra-P's option)."""
    return typer.Option("weak", "--scaling", help="CUBE profiles: weak keeps each process's (thread's) value as "
                                                  "a repetition, weak-threaded the non-zero ones, strong sums them.")


def saved_models(file: Path) -> dict[str, dict[tuple[str, str], Any]]:
    """The model sets an Extra-P saved experiment holds (none for other files)."""
    from perfcompose.data.extrap_saved import sniff

    if not file.is_file():
        return {}
    with file.open("rb") as f:
        if not sniff(f.read(8)):
            return {}
    from perfcompose.fit.extrap_models import saved_model_sets

    return saved_model_sets(file)


def print_saved_models(file: Path, sets: dict[str, dict[tuple[str, str], Any]]) -> None:
    """Print model sets saved in ``file``, in Extra-P's syntax."""
    for name, models in sets.items():
        table = Table(title=f"model set {name!r} saved in {file.name}", title_justify="left")
        table.add_column("call path / metric")
        table.add_column("model")
        for (callpath, metric), model in models.items():
            table.add_row(f"{callpath}/{metric}", model.to_extrap(digits=6))
        console.print(table)
