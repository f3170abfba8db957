"""What every subcommand shares: the consoles, the user-error wrapper and progress bars."""
from __future__ import annotations

import contextlib
import functools
import json
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

import typer

from perfcompose.choices import Scaling
from perfcompose.commands.consoles import console as console
from perfcompose.commands.consoles import err_console as err_console
from perfcompose.commands.consoles import fmt as fmt
from perfcompose.commands.consoles import print_error
from perfcompose.commands.consoles import progress as progress
from perfcompose.errors import InputError, from_exception
from perfcompose.option_fields import cli_option, command, option, shared
from perfcompose.progress_callbacks import one_bar
from perfcompose.progress_callbacks import per_task as per_task
from perfcompose.report.tables import ResultTable as Table
from perfcompose.units import check_unit

F = TypeVar("F", bound=Callable[..., Any])


def numbers_table(title: str | None, *columns: str, left: int = 0, **settings: Any) -> Table:
    """A table of numbers titled ``title``: its ``columns`` right-aligned but the first ``left``;
    ``settings``, the table's other settings (``title_justify``, ``caption``)."""
    return Table(*columns, title=title, right=range(left, len(columns)), **settings)


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
            print_error(error)
            raise typer.Exit(2) from None
        except KeyboardInterrupt:
            err_console.print("interrupted")
            raise typer.Exit(130) from None
        finally:
            console.stderr = False  # --json - sent the printed output to stderr for this command only

    return wrapper  # type: ignore[return-value]


def cli_command(cls: type) -> Callable[[Callable[[Any], Any]], Any]:
    """A command taking the options ``cls`` declares (:func:`perfcompose.option_fields.command`), its
    foreseeable failures printed as one message (:func:`user_errors`)."""
    return lambda run: user_errors(command(cls)(run))


#: the value of ``--json`` that writes the JSON to standard output
STDOUT = "-"


def file_to_write(value: Path | None) -> Path | None:
    """An option's file to write, or a usage error where the path names a folder (``""`` and ``.``
    read as the working folder, ``..``, ``/``): a file is written under a name."""
    if value is not None and value.name in ("", ".", ".."):
        raise typer.BadParameter(f"{str(value)!r} names a folder, not a file: give a file name (folder/name)")
    return value


def _json_target(value: Path | None) -> Path | None:
    """With ``--json -`` standard output carries the JSON alone: what the command prints goes to stderr."""
    console.stderr = value is not None and str(value) == STDOUT
    return file_to_write(value)


def json_option(what: str) -> Any:
    """``--json PATH``, the same in every command: ``what`` written as JSON to PATH, or with
    ``--json -`` to standard output, everything else the command prints then going to stderr."""
    return typer.Option(None, "--json", metavar="PATH", callback=_json_target,
                        help=f"Write {what} as JSON to this file ('-': to standard output, which then carries "
                             "nothing else).")


@dataclass(frozen=True)
class SharedOptions:
    """The options several commands share, declared once; a command takes each with :func:`shared_option`."""

    html: Path | None = option(None, "Write a self-contained HTML report here.", callback=file_to_write)
    restart: bool = option(False, "Discard finished measurements.")
    no_plot: bool = option(False, "Do not write the plot.")
    scaling: Scaling = option("weak", "CUBE profiles and folders of runs: weak keeps each process's (thread's) value "
                                      "as a repetition, weak-threaded the non-zero ones, strong sums them.")
    seed: int = option(0, "Seed of the shuffled order of points.")
    unit: str | None = option(None, "The unit of the values where the file states none (Extra-P's formats): s, ms, "
                                    "us or ns. Without it such values have no unit.")
    scheduler: str | None = option(None, "Fit the series on a Dask cluster: 'local' (a worker per core) or a "
                                         "scheduler's address tcp://HOST:PORT (needs the 'dask' extra). Default: "
                                         "in this process, or for a large profile in a process per core forked "
                                         "from it.")


def shared_option(name: str) -> Any:
    """A command's field whose option is the one :class:`SharedOptions` declares as ``name``."""
    return shared(cli_option(SharedOptions, name))


def plot_option(default: Path) -> Any:
    """``--plot PATH`` of a command that draws its plot unless ``--no-plot``."""
    return typer.Option(default, "--plot", callback=file_to_write, help="Where to write the plot.")


def input_format_option(*flags: str) -> Any:
    """The format of an experiment file to read, where detection guesses wrong."""
    return typer.Option(None, *flags, help="Input format if detection guesses wrong.")


def records_json() -> Any:
    """``--json PATH`` of the commands that write one record per configuration they ran."""
    return json_option("one record per configuration")


def write_json(path: Path | str, doc: Any, what: str, *, indent: int | None = 1) -> None:
    """Write ``doc`` (a JSON-ready value, or JSON text) where ``--json`` says, and tell where
    (``what`` written to PATH) unless it went to standard output."""
    text = doc if isinstance(doc, str) else json.dumps(doc, indent=indent)
    if not text.endswith("\n"):
        text += "\n"
    if str(path) == STDOUT:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    Path(path).write_text(text, encoding="utf-8")
    console.print(f"{what} written to {path}", highlight=False, soft_wrap=True)


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


def with_stated_unit(experiment: Any, unit: str | None) -> Any:
    """``experiment`` with ``unit`` given to every series whose file states no unit; a unit that
    contradicts a file's own is an error."""
    if not unit:
        return experiment
    try:
        check_unit(unit)
    except Exception as exc:
        raise InputError(str(exc), hint="e.g. --unit ns") from None
    for s in experiment.series:
        if s.unit and s.unit != unit:
            raise InputError(f"--unit {unit}: {s.label} in {experiment.source or 'the file'} is in {s.unit}, "
                             "as the file states", hint="leave out --unit (it is for files that state no unit)")
    series = tuple(s if s.unit else replace(s, unit=unit) for s in experiment.series)
    return replace(experiment, series=series)


def print_saved_models(file: Path) -> dict[str, dict[tuple[str, str], Any]]:
    """Print the model sets an Extra-P saved experiment holds, in Extra-P's syntax, and return them
    (none for other files)."""
    from perfcompose.data.extrap_saved import sniff

    if not file.is_file():
        return {}
    with file.open("rb") as f:
        if not sniff(f.read(8)):
            return {}
    from perfcompose.fit.extrap_models import saved_model_sets

    sets = saved_model_sets(file)
    for name, models in sets.items():
        table = Table("call path / metric", "model", title=f"model set {name!r} saved in {file.name}")
        for (callpath, metric), model in models.items():
            table.add_row(f"{callpath}/{metric}", model.to_extrap(digits=6))
        console.print(table)
    return sets
