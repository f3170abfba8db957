"""``fit``: a PMNF model of every region and metric of an experiment, with advice on what to measure next.

This module declares the command's options only, so that ``perfcompose fit --help`` loads no numerical
library; :mod:`.fit_run` runs it."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from perfcompose.choices import Scaling
from perfcompose.commands.common import cli_command, json_option, shared_option
from perfcompose.fit_options import FitOptions
from perfcompose.option_fields import option, shared


@dataclass(frozen=True)
class FitCommand(FitOptions):
    """The options of ``perfcompose fit``: the fit's own and what the command reads and writes."""

    file: Path = option(..., "Experiment file.", argument=True)
    metric: str | None = option(None, "Fit only this metric.")
    region: str | None = option(None, "Fit only this region (call path).")
    segmented: bool = option(False, "Also try a two-piece model split at a breakpoint between measured points "
                                    "(one parameter); kept only when clearly better.")
    advise: bool = option(False, "Suggest the next points to measure: where the best hypotheses disagree most, "
                                 "in noise widths.")
    json_out: Path | None = shared(json_option("the models"))
    plot: Path | None = option(None, "Plot measurements and models to this PNG.")
    html: Path | None = shared_option("html")
    save_experiment: Path | None = option(
        None, "Write the measurements and these models as an Extra-P saved experiment (.extra-p) here; Extra-P's "
              "GUI shows the models as the model set 'perfcompose PMNF'.")
    scaling: Scaling = shared_option("scaling")
    scheduler: str | None = shared_option("scheduler")
    unit: str | None = shared_option("unit")


@cli_command(FitCommand)
def fit(options: FitCommand) -> None:
    from perfcompose.commands.fit_run import run_fit  # NumPy's, once the command runs

    run_fit(options)
