"""``analyze``: every call path x metric of a profile fitted, composed along the call tree and
ranked by how fast its share grows toward a target point."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import typer

from perfcompose.analyze import analyze as run
from perfcompose.analyze.analysis import THRESHOLD
from perfcompose.analyze.values import ValueKind
from perfcompose.assignments import parse_point
from perfcompose.choices import Scaling
from perfcompose.commands.common import (
    bar_after,
    cli_command,
    console,
    json_option,
    progress,
    shared_option,
    write_json,
)
from perfcompose.commands.reports import page
from perfcompose.data import load
from perfcompose.data.hatchet_runs import parse_parameters
from perfcompose.option_fields import option, shared
from perfcompose.report.analysis_json import analysis_json
from perfcompose.report.analysis_page import analysis_report
from perfcompose.report.analysis_text import analysis_text
from perfcompose.report.call_tree_table import write_csv


@dataclass(frozen=True)
class AnalyzeCommand:
    profile: Path = option(..., "Profile: an Extra-P text, JSON, JSON Lines or .extra-p file, a directory of CUBE4 "
                                "experiment folders, or a folder of runs Hatchet reads (Caliper .cali or JSON, "
                                "HPCToolkit databases, TAU, cProfile, pyinstrument), one per configuration.",
                           argument=True)
    at: list[str] = option(..., "The target point, a value for every parameter: p=4096,n=1e6 (or --at p=4096 --at "
                                "n=1e6).")
    metric: list[str] = option((), "Analyse only this metric (repeat for more; default: all).")
    values: ValueKind = option("auto", "What a call path's values are where the file holds one kind: inclusive "
                                       "(callees included), exclusive (own only), or auto (decided from the data; "
                                       "CUBE4 holds both).")
    threshold: float = option(THRESHOLD, "A caller's composed and fitted models disagree where they differ by more "
                                         "than this fraction at the target.", minimum=0, max=1e6)
    top: int = option(10, "Ranked call paths printed (all are in --json and --html).", minimum=0)
    tree: bool | None = option(None, "Print the call tree and every caller's composition (default: for a profile "
                                     "of at most 50 call paths; a larger one prints a summary).",
                               flag="--tree/--no-tree")
    html: Path | None = option(None, "Write a self-contained HTML page here.")
    param: list[str] = option((), "Of a folder of runs: a parameter and where each run holds its value, a metadata "
                                  "key (p=mpi.world.size, the default) or its file name (n=file); repeat for more.")
    table: Path | None = option(None, "Write the call paths' models, fit quality, values and intervals at the "
                                      "target and ranks here as CSV.")
    json_out: Path | None = shared(json_option("the whole analysis"))
    scheduler: str | None = shared_option("scheduler")
    scaling: Scaling = shared_option("scaling")


@cli_command(AnalyzeCommand)
def analyze(o: AnalyzeCommand) -> None:
    """The target point (--at) needs a value for every parameter; docs/analyze.md tells how to read the output."""
    target: dict[str, float] = {}
    for item in o.at:
        for name, value in parse_point(item, option="--at", positive=True).items():
            if name in target:
                raise typer.BadParameter(f"{name} is given twice", param_hint="--at")
            target[name] = value
    with bar_after(progress()) as step:
        source = load(o.profile, parameters=parse_parameters(o.param), scaling=o.scaling) if o.param else o.profile
        analysis = run(source, target, metrics=o.metric, values=o.values, scaling=o.scaling, threshold=o.threshold,
                       scheduler=o.scheduler, progress=step)
    console.print(analysis_text(analysis, o.top, o.tree))
    if o.json_out:
        write_json(o.json_out, analysis_json(analysis), "analysis")
    if o.table:
        console.print(f"table written to {write_csv(analysis, o.table)}", highlight=False)
    if o.html:
        page(o.html, analysis_report, analysis)
