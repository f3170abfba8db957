"""``predict``: a designed program's composed model, each component's share, and the bottleneck.

The command parses its options, asks the library for the prediction once
(:func:`perfcompose.compose.prediction.predict_design`) and hands the result to the renderers
of :mod:`perfcompose.report`: the console tables, ``--json``, ``--plot`` and ``--html``.
"""
from __future__ import annotations

from pathlib import Path

import typer

from perfcompose.choices import PipeRule
from perfcompose.commands.common import console, err_console, html_option, json_option, user_errors, write_json
from perfcompose.commands.components import PIPE_HELP, parameter_values, x_values
from perfcompose.commands.reports import predict_html
from perfcompose.compose.prediction import predict_design
from perfcompose.errors import PerfcomposeError
from perfcompose.report.prediction_json import prediction_record
from perfcompose.report.prediction_text import print_prediction, print_prediction_notes


@user_errors
def predict(design: Path = typer.Argument(..., help="Design file (TOML): program term and components."),
            x: list[str] = typer.Option([], "--x", help="Input sizes (or LO:HI); default: the design's."),
            param: list[str] = typer.Option([], "--param", "-p", help="Values for symbolic parameters: n=4."),
            pipe: PipeRule | None = typer.Option(None, "--pipe", help=PIPE_HELP + " Default: the design's "
                                                    "(pointwise unless it says otherwise)."),
            plot: Path | None = typer.Option(None, "--plot", help="Plot program and component models here."),
            json_out: Path | None = json_option("the prediction (per size the time, interval, bottleneck and "
                                                "each component's time; the composed model; each component's "
                                                "source record)"),
            measured: str | None = typer.Option(None, "--measured", help="Measurements of the program "
                                                   "(FILE[:REGION], over x) to set against the prediction."),
            html: Path | None = html_option(),
            ) -> None:
    try:
        result = predict_design(design, x=x_values(x), parameters=parameter_values(param), pipe=pipe,
                                measured=measured)
    except PerfcomposeError as exc:  # what the design left open may be why: say it before the error
        print_prediction_notes(getattr(exc, "__notes__", ()), err_console)
        raise
    print_prediction(result, console, err_console)
    if json_out:
        write_json(json_out, prediction_record(result), "prediction", indent=2)
    if plot:
        from perfcompose.report.design import plot_prediction  # Matplotlib only for a plot

        plot_prediction(result, plot)
        console.print(f"plot written to {plot}")
    if html:
        predict_html(html, result)
