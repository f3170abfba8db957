"""``predict``: a designed program's composed model, each component's share, and the bottleneck.

The command parses its options, asks the library for the prediction once
(:func:`perfcompose.compose.prediction.predict_design`) and hands the result to the renderers
of :mod:`perfcompose.report`: the console tables, ``--json``, ``--plot`` and ``--html``.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from perfcompose.choices import PipeRule
from perfcompose.commands.common import cli_command, console, err_console, json_option, shared_option, write_json
from perfcompose.commands.components import PIPE_HELP, parameter_values, x_values
from perfcompose.commands.reports import page
from perfcompose.compose.prediction import predict_design
from perfcompose.errors import PerfcomposeError
from perfcompose.option_fields import option, shared
from perfcompose.report.design import design_report
from perfcompose.report.prediction_json import prediction_record
from perfcompose.report.prediction_text import print_prediction, print_prediction_notes


@dataclass(frozen=True)
class PredictCommand:
    design: Path = option(..., "Design file (TOML): program term and components.", argument=True)
    x: list[str] = option((), "Input sizes (or LO:HI); default: the design's.")
    param: list[str] = option((), "Values for symbolic parameters: n=4.", aliases=("-p",))
    pipe: PipeRule | None = option(None, PIPE_HELP + " Default: the design's (pointwise unless it says otherwise).")
    plot: Path | None = option(None, "Plot program and component models here.")
    json_out: Path | None = shared(json_option("the prediction (per size the time, interval, bottleneck and each "
                                               "component's time; the composed model; each component's source "
                                               "record)"))
    measured: str | None = option(None, "Measurements of the program (FILE[:REGION], over x) to set against the "
                                        "prediction.")
    html: Path | None = shared_option("html")


@cli_command(PredictCommand)
def predict(o: PredictCommand) -> None:
    try:
        result = predict_design(o.design, x=x_values(o.x), parameters=parameter_values(o.param), pipe=o.pipe,
                                measured=o.measured)
    except PerfcomposeError as exc:  # what the design left open may be why: say it before the error
        print_prediction_notes(getattr(exc, "__notes__", ()), err_console)
        raise
    print_prediction(result, console, err_console)
    if o.json_out:
        write_json(o.json_out, prediction_record(result), "prediction", indent=2)
    if o.plot:
        from perfcompose.report.design import prediction_figure  # Matplotlib only for a plot
        from perfcompose.report.figures import save

        save(prediction_figure(result), o.plot, bbox_inches="tight")
        console.print(f"plot written to {o.plot}")
    if o.html:
        page(o.html, design_report, result)
