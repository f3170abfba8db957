"""``show`` and ``convert``: an experiment file read, shown, or written in another format."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from perfcompose.choices import ExperimentFormat, OutputFormat, Scaling
from perfcompose.commands.common import (
    cli_command,
    console,
    input_format_option,
    numbers_table,
    print_saved_models,
    shared_option,
    with_stated_unit,
)
from perfcompose.data import load, save
from perfcompose.data.experiment import describe
from perfcompose.option_fields import option, shared
from perfcompose.units import human


@dataclass(frozen=True)
class ShowCommand:
    file: Path = option(..., "Experiment file (perfcompose JSON, CSV, Extra-P text, JSON, JSON Lines, Talpas, "
                             ".extra-p) or a directory of CUBE4 profiles.", argument=True)
    fmt: ExperimentFormat | None = shared(input_format_option("--format"))
    scaling: Scaling = shared_option("scaling")
    unit: str | None = shared_option("unit")


@cli_command(ShowCommand)
def show(o: ShowCommand) -> None:
    """Of an Extra-P saved experiment (.extra-p), also the model sets saved with it."""
    exp = with_stated_unit(load(o.file, o.fmt, scaling=o.scaling), o.unit)
    console.print(f"[bold]{o.file}[/bold]: parameters {', '.join(exp.parameters)}; "
                  f"{len(exp.series)} series")
    for note in exp.notes:
        console.print(f"note: {note}", highlight=False, soft_wrap=True)
    for s in exp.series:
        table = numbers_table(f"{s.label} [{s.unit}]" if s.unit else f"{s.label} (no unit stated)", "point", "reps",
                              "median", "CV %", left=1)
        for p in s.points:
            cv = f"{p.cv * 100:.2f}"
            table.add_row(describe(exp.parameters, p.coordinate), str(p.repetitions), human(p.median, s.unit),
                          f"[yellow]{cv}[/yellow]" if p.cv * 100 > 10 else cv)
        console.print(table)
    print_saved_models(o.file)


@dataclass(frozen=True)
class ConvertCommand:
    source: Path = option(..., "Experiment file to read.", argument=True)
    target: Path = option(..., "File to write; the extension picks the format.", argument=True)
    to: OutputFormat | None = option(None, "Output format (default: from the extension).")
    fmt: ExperimentFormat | None = shared(input_format_option("--from"))
    scaling: Scaling = shared_option("scaling")


@cli_command(ConvertCommand)
def convert(o: ConvertCommand) -> None:
    """A .extra-p archive is an Extra-P saved experiment, which Extra-P's GUI opens."""
    exp = load(o.source, o.fmt, scaling=o.scaling)
    written = save(exp, o.target, o.to)
    n = sum(len(s.points) for s in exp.series)
    console.print(f"wrote {o.target} ({written}): {len(exp.series)} series, {n} points")
