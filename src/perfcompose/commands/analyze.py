"""``analyze``: every call path x metric of a profile fitted, composed along the call tree and
ranked by how fast its share grows toward a target point."""
from __future__ import annotations

from pathlib import Path

import typer

from perfcompose.analyze import analyze as run
from perfcompose.analyze.values import ValueKind
from perfcompose.assignments import parse_point
from perfcompose.choices import Scaling
from perfcompose.commands.common import (
    bar_after,
    console,
    json_option,
    progress,
    scaling_option,
    scheduler_option,
    user_errors,
    write_json,
)
from perfcompose.data import load
from perfcompose.data.hatchet_runs import parse_parameters
from perfcompose.report.analysis_json import analysis_json
from perfcompose.report.analysis_page import analysis_report
from perfcompose.report.analysis_text import analysis_text
from perfcompose.report.call_tree_table import write_csv
from perfcompose.report.html import this_command, write


@user_errors
def analyze(profile: Path = typer.Argument(..., help="Profile: an Extra-P text, JSON, JSON Lines or .extra-p file, "
                                                     "a directory of CUBE4 experiment folders, or a folder of runs "
                                                     "Hatchet reads (Caliper .cali or JSON, HPCToolkit databases, "
                                                     "TAU, cProfile, pyinstrument), one per configuration."),
            at: list[str] = typer.Option(..., "--at", help="The target point, a value for every parameter: "
                                                          "p=4096,n=1e6 (or --at p=4096 --at n=1e6)."),
            metric: list[str] = typer.Option([], "--metric", help="Analyse only this metric (repeat for more; "
                                                                  "default: all)."),
            values: ValueKind = typer.Option("auto", "--values", help="What a call path's values are where the "
                                             "file holds one kind: inclusive (callees included), exclusive (own "
                                             "only), or auto (decided from the data; CUBE4 holds both)."),
            threshold: float = typer.Option(0.1, "--threshold", help="A caller's composed and fitted models "
                                                                     "disagree where they differ by more than "
                                                                     "this fraction at the target."),
            top: int = typer.Option(10, "--top", help="Ranked call paths printed (all are in --json and --html)."),
            tree: bool | None = typer.Option(None, "--tree/--no-tree", help="Print the call tree and every "
                                             "caller's composition (default: for a profile of at most 50 call "
                                             "paths; a larger one prints a summary)."),
            html: Path | None = typer.Option(None, "--html", help="Write a self-contained HTML page here."),
            param: list[str] = typer.Option([], "--param", help="Of a folder of runs: a parameter and where each "
                                            "run holds its value, a metadata key (p=mpi.world.size, the default) "
                                            "or its file name (n=file); repeat for more."),
            table: Path | None = typer.Option(None, "--table", help="Write the call paths' models, fit quality, "
                                              "values and intervals at the target and ranks here as CSV."),
            json_out: Path | None = json_option("the whole analysis"),
            scheduler: str | None = scheduler_option(),
            scaling: Scaling = scaling_option(),
            ) -> None:
    """The target point (--at) needs a value for every parameter; docs/analyze.md tells how to read the output."""
    target: dict[str, float] = {}
    for item in at:
        for name, value in parse_point(item, option="--at", positive=True).items():
            if name in target:
                raise typer.BadParameter(f"{name} is given twice", param_hint="--at")
            target[name] = value
    if top < 0:
        raise typer.BadParameter(f"{top}; give 0 or more", param_hint="--top")
    with bar_after(progress()) as step:
        source = load(profile, parameters=parse_parameters(param), scaling=scaling) if param else profile
        analysis = run(source, target, metrics=metric, values=values, scaling=scaling, threshold=threshold,
                       scheduler=scheduler, progress=step)
    console.print(analysis_text(analysis, top, tree))
    if json_out:
        write_json(json_out, analysis_json(analysis), "analysis")
    if table:
        console.print(f"table written to {write_csv(analysis, table)}", highlight=False)
    if html:
        out = write(analysis_report(analysis, (this_command(),)), html)
        console.print(f"report written to {out}", highlight=False)
