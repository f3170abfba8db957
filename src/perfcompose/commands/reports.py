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
from perfcompose.prediction_result import Prediction
from perfcompose.report.demo import demo_report, parts_figure
from perfcompose.report.design import design_report
from perfcompose.report.fit import fit_report
from perfcompose.report.html import figure, this_command, write
from perfcompose.report.study import study_report
from perfcompose.report.tables import svg_of, tables_report


def _done(out: Path) -> None:
    console.print(f"report written to {out}", highlight=False)


def predict_html(out: Path, prediction: Prediction) -> None:
    """``predict --html``: the page of the prediction."""
    _done(write(design_report(prediction, commands=(this_command(),)), out))


def demo_html(out: Path, rows: Sequence[Any], results: Sequence[Any], *, cores: int | None = None) -> None:
    _done(write(demo_report(rows, results, commands=(this_command(),), cores=cores), out))


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
             title: str, saved: Mapping[str, Any] | None = None, *, aggregate: str = "median",
             skipped: Sequence[tuple[str, str]] = (), notes: Sequence[str] = ()) -> None:
    _done(write(fit_report(experiment, fitted, title, commands=(this_command(),), saved=saved, aggregate=aggregate,
                           skipped=skipped, notes=notes), out))


def table1_html(out: Path, table: Any, rows: Sequence[Any], lines: Sequence[str]) -> None:
    """``paper table1``: the table, and each task's measurements with its model."""
    fig = figure(parts_figure(rows), "each task: measurements and fitted model",
                 "dots: medians with min-max bars; line: the fitted model; grey: beyond the measurements")
    tables_html(out, "000 Table 1: models of the sequential task blocks, measured here", "paper table", [table],
                lines=lines, figures=[fig])
