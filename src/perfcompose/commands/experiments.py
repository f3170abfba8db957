"""``show`` and ``convert``: an experiment file read, shown, or written in another format."""
from __future__ import annotations

from pathlib import Path

import typer

from perfcompose.choices import ExperimentFormat, OutputFormat, Scaling
from perfcompose.commands.common import (
    Table,
    console,
    input_format_option,
    print_saved_models,
    saved_models,
    scaling_option,
    unit_option,
    user_errors,
    with_stated_unit,
)
from perfcompose.data import load, save
from perfcompose.data.experiment import describe
from perfcompose.units import human


@user_errors
def show(file: Path = typer.Argument(..., help="Experiment file (perfcompose JSON, CSV, Extra-P text, JSON, "
                                                   "JSON Lines, Talpas, .extra-p) or a directory of CUBE4 "
                                                   "profiles."),
         fmt: ExperimentFormat | None = input_format_option("--format"),
         scaling: Scaling = scaling_option(),
         unit: str | None = unit_option(),
         ) -> None:
    """Of an Extra-P saved experiment (.extra-p), also the model sets saved with it."""
    exp = with_stated_unit(load(file, fmt, scaling=scaling), unit)
    console.print(f"[bold]{file}[/bold]: parameters {', '.join(exp.parameters)}; "
                  f"{len(exp.series)} series")
    for note in exp.notes:
        console.print(f"note: {note}", highlight=False, soft_wrap=True)
    for s in exp.series:
        table = Table(title=f"{s.label} [{s.unit}]" if s.unit else f"{s.label} (no unit stated)",
                      title_justify="left")
        table.add_column("point")
        table.add_column("reps", justify="right")
        table.add_column("median", justify="right")
        table.add_column("CV %", justify="right")
        for p in s.points:
            cv = p.cv * 100
            style = "yellow" if cv > 10 else None
            table.add_row(describe(exp.parameters, p.coordinate), str(p.repetitions), human(p.median, s.unit),
                          f"[{style}]{cv:.2f}[/{style}]" if style else f"{cv:.2f}")
        console.print(table)
    print_saved_models(file, saved_models(file))


@user_errors
def convert(source: Path = typer.Argument(..., help="Experiment file to read."),
            target: Path = typer.Argument(..., help="File to write; the extension picks the format."),
            to: OutputFormat | None = typer.Option(None, "--to", help="Output format (default: from the extension)."),
            fmt: ExperimentFormat | None = input_format_option("--from"),
            scaling: Scaling = scaling_option(),
            ) -> None:
    """A .extra-p archive is an Extra-P saved experiment, which Extra-P's GUI opens."""
    exp = load(source, fmt, scaling=scaling)
    written = save(exp, target, to)
    n = sum(len(s.points) for s in exp.series)
    console.print(f"wrote {target} ({written}): {len(exp.series)} series, {n} points")
