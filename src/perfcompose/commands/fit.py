"""``fit``: a PMNF model of every region and metric of an experiment, with advice on what to measure next.

This module declares the command's options only, so that ``perfcompose fit --help`` loads no numerical
library; :mod:`.fit_run` runs it."""
from __future__ import annotations

from pathlib import Path

import typer

from perfcompose.choices import Aggregate, NegativeExponents, Scaling
from perfcompose.commands.common import (
    html_option,
    json_option,
    scaling_option,
    scheduler_option,
    unit_option,
    user_errors,
)
from perfcompose.fit_options import FitOptions
from perfcompose.option_fields import cli_option


@user_errors
def fit(file: Path = typer.Argument(..., help="Experiment file."),
        metric: str | None = typer.Option(None, "--metric", help="Fit only this metric."),
        region: str | None = typer.Option(None, "--region", help="Fit only this region (call path)."),
        aggregate: Aggregate = cli_option(FitOptions, "aggregate"),
        max_terms: int = typer.Option(2, "--max-terms", help="Terms besides the constant (1 or 2)."),
        negative_exponents: NegativeExponents = typer.Option(
            "auto", "--negative-exponents", help="Also try x^-i*log2(x)^-j (strong scaling): auto where the "
                                                 "values fall as a parameter grows, yes always, no never."),
        segmented: bool = typer.Option(False, "--segmented",
                                       help="Also try a two-piece model split at a breakpoint between measured "
                                            "points (one parameter); kept only when clearly better."),
        advise: bool = typer.Option(False, "--advise",
                                    help="Suggest the next points to measure: where the best hypotheses "
                                         "disagree most, in noise widths."),
        extend: float = typer.Option(4.0, "--extend", help="With --advise: consider points up to this factor "
                                                           "beyond the largest measured value."),
        json_out: Path | None = json_option("the models"),
        plot: Path | None = typer.Option(None, "--plot", help="Plot measurements and models to this PNG."),
        html: Path | None = html_option(),
        poly_exponents: str | None = typer.Option(
            None, "--poly-exponents", help="The exponents i of x^i to search, comma-separated fractions (as "
                                           "Extra-P's poly_exponents; default 0 to 3 in Extra-P's steps)."),
        log_exponents: str | None = typer.Option(
            None, "--log-exponents", help="The exponents j of log2(x)^j to search (as Extra-P's log_exponents; "
                                          "default 0,1,2)."),
        save_experiment: Path | None = typer.Option(
            None, "--save-experiment", help="Write the measurements and these models as an Extra-P saved "
                                            "experiment (.extra-p) here; Extra-P's GUI shows the models as the "
                                            "model set 'perfcompose PMNF'."),
        scaling: Scaling = scaling_option(),
        scheduler: str | None = scheduler_option(),
        unit: str | None = unit_option(),
        ) -> None:
    from perfcompose.commands.fit_run import run_fit  # NumPy's, once the command runs

    run_fit(file=file, metric=metric, region=region, aggregate=aggregate, max_terms=max_terms,
            negative_exponents=negative_exponents, segmented=segmented, advise=advise, extend=extend,
            json_out=json_out, plot=plot, html=html, poly_exponents=poly_exponents, log_exponents=log_exponents,
            save_experiment=save_experiment, scaling=scaling, scheduler=scheduler, unit=unit)
