"""``--html OUT`` of the commands: gather what the command computed and write the page.

Each function takes what its command already holds, builds the report with
:mod:`perfcompose.report` and writes it; the command line that ran is listed on the page as the
command that regenerates it.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from perfcompose.commands.common import console
from perfcompose.data import load
from perfcompose.errors import InputError
from perfcompose.report.demo import demo_report, parts_figure
from perfcompose.report.design import design_report
from perfcompose.report.fit import fit_report
from perfcompose.report.html import figure, this_command, write
from perfcompose.report.study import study_report
from perfcompose.report.tables import svg_of, tables_report
from perfcompose.units import conversion


def _done(out: Path) -> None:
    console.print(f"report written to {out}", highlight=False)


def measured_series(spec: str, unit: str) -> tuple[list[tuple[float, float]], str]:
    """``FILE[:REGION]``: the medians per x of one series, in ``unit``, and a label."""
    path, _, region = spec.partition(":")
    if not Path(path).is_file() and ":" in spec:
        path, region = spec, ""
    exp = load(Path(path))
    chosen = exp.select(region=region).series if region else exp.series
    if len(chosen) != 1:
        raise InputError(f"{len(chosen)} series in {path}" + (f" for region '{region}'" if region else ""),
                         path=Path(path), hint="name one region: --measured FILE:REGION (regions: "
                         + ", ".join(exp.regions) + ")")
    if "x" not in exp.parameters:
        raise InputError(f"the measurements in {path} have no parameter x (parameters: "
                         f"{', '.join(exp.parameters)})", path=Path(path), hint="measure the program over x")
    s = chosen[0]
    k = exp.parameters.index("x")
    factor = conversion(s.unit, unit) if s.unit and unit else 1.0
    xs = s.coordinates()[:, k]
    med = s.aggregated("median") * factor
    return sorted(zip((float(v) for v in xs), (float(v) for v in med))), f"{path}" + (f":{region}" if region else "")


def predict_html(out: Path, prediction: Any, measured: Sequence[tuple[float, float]], measured_label: str) -> None:
    report = design_report(prediction, measured=measured, measured_label=measured_label, commands=(this_command(),))
    _done(write(report, out))


def demo_html(out: Path, rows: Sequence[Any], results: Sequence[Any]) -> None:
    _done(write(demo_report(rows, results, commands=(this_command(),)), out))


def study_html(out: Path, study: Any, title: str, paper: Mapping[str, str] | None = None) -> None:
    _done(write(study_report(study, title, paper=paper, commands=(this_command(),)), out))


def tables_html(out: Path, title: str, kind: str, tables: Sequence[Any], *, lines: Sequence[str] = (),
                plots: Sequence[tuple[str, Any]] = (), summary: Sequence[tuple[str, str]] = (),
                figures: Sequence[Any] = ()) -> None:
    """A page of a command's tables; ``plots`` are (title, function writing the plot to a path),
    ``figures`` figures already drawn (:func:`perfcompose.report.html.figure`)."""
    figures = [*figures, *(svg_of(draw, name) for name, draw in plots)]
    _done(write(tables_report(title, kind, tables, lines=lines, figures=figures, summary=summary,
                              commands=(this_command(),)), out))


def fit_html(out: Path, experiment: Any, fitted: Sequence[tuple[str, str, Any, str, Mapping[str, float]]],
             title: str, saved: Mapping[str, Any] | None = None) -> None:
    _done(write(fit_report(experiment, fitted, title, commands=(this_command(),), saved=saved), out))


def table1_html(out: Path, table: Any, rows: Sequence[Any], lines: Sequence[str]) -> None:
    """``paper table1``: the table, and each task's measurements with its model."""
    fig = figure(parts_figure(rows), "each task: measurements and fitted model",
                 "dots: medians with min-max bars; line: the fitted model; grey: beyond the measurements")
    tables_html(out, "000 Table 1: models of the sequential task blocks, measured here", "paper table", [table],
                lines=lines, figures=[fig])
