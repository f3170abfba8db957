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
from perfcompose.report.analysis_json import analysis_json
from perfcompose.report.analysis_page import analysis_report
from perfcompose.report.analysis_text import analysis_text
from perfcompose.report.html import this_command, write


@user_errors
def analyze(profile: Path = typer.Argument(..., help="Profile: an Extra-P text, JSON, JSON Lines or .extra-p file, "
                                                     "or a directory of CUBE4 experiment folders."),
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
            html: Path | None = typer.Option(None, "--html", help="Write a self-contained HTML page here."),
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
        analysis = run(profile, target, metrics=metric, values=values, scaling=scaling, threshold=threshold,
                       scheduler=scheduler, progress=step)
    console.print(analysis_text(analysis, top))
    if json_out:
        write_json(json_out, analysis_json(analysis), "analysis")
    if html:
        out = write(analysis_report(analysis, (this_command(),)), html)
        console.print(f"report written to {out}", highlight=False)
