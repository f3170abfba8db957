"""The ``perfcompose`` command: one subcommand per job.

Every :class:`~perfcompose.errors.PerfcomposeError` is printed as one message and the command
exits with status 2; no traceback reaches the user.
"""
from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any, Callable, Optional, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from perfcompose import __version__
from perfcompose.errors import PerfcomposeError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Predict how fast a parallel program will run, from performance models of its parts.")
console = Console()
err_console = Console(stderr=True)


def _version(value: bool) -> None:
    if value:
        console.print(f"perfcompose {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit.")) -> None:
    """perfcompose: performance models of parts composed into the model of the whole."""


F = TypeVar("F", bound=Callable[..., Any])


def _user_errors(func: F) -> F:
    """Print a PerfcomposeError as one message and exit 2, instead of a traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except PerfcomposeError as exc:
            err_console.print(f"[bold red]error:[/bold red] {exc}", highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None
        except KeyboardInterrupt:
            err_console.print("interrupted")
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def _fmt(v: float, spec: str = ".4g") -> str:
    return format(v, spec) if v == v else "n/a"


@app.command()
@_user_errors
def show(file: Path = typer.Argument(..., help="Experiment file (perfcompose JSON, CSV, Extra-P text or JSON)."),
         fmt: Optional[str] = typer.Option(None, "--format", help="Input format if detection guesses wrong."),
         ) -> None:
    """Show an experiment: parameters, points, repetitions, median and coefficient of variation."""
    from perfcompose.data import load
    from perfcompose.data.experiment import describe

    exp = load(file, fmt)
    console.print(f"[bold]{file}[/bold]: parameters {', '.join(exp.parameters)}; "
                  f"{len(exp.series)} series")
    for s in exp.series:
        table = Table(title=f"{s.label} [{s.unit}]", title_justify="left")
        table.add_column("point")
        table.add_column("reps", justify="right")
        table.add_column("median", justify="right")
        table.add_column("CV %", justify="right")
        for p in s.points:
            cv = p.cv * 100
            style = "yellow" if cv > 10 else None
            table.add_row(describe(exp.parameters, p.coordinate), str(len(p.values)), _fmt(p.median),
                          f"[{style}]{cv:.2f}[/{style}]" if style else f"{cv:.2f}")
        console.print(table)


@app.command()
@_user_errors
def convert(source: Path = typer.Argument(..., help="Experiment file to read."),
            target: Path = typer.Argument(..., help="File to write; the extension picks the format."),
            to: Optional[str] = typer.Option(None, "--to", help="Output format: perfcompose, csv, extrap-text, "
                                                                  "extrap-json (default: from the extension)."),
            fmt: Optional[str] = typer.Option(None, "--from", help="Input format if detection guesses wrong."),
            ) -> None:
    """Convert an experiment between perfcompose JSON, CSV, Extra-P text and Extra-P JSON."""
    from perfcompose.data import load, save

    exp = load(source, fmt)
    written = save(exp, target, to)
    n = sum(len(s.points) for s in exp.series)
    console.print(f"wrote {target} ({written}): {len(exp.series)} series, {n} points")


@app.command()
@_user_errors
def fit(file: Path = typer.Argument(..., help="Experiment file."),
        metric: Optional[str] = typer.Option(None, "--metric", help="Fit only this metric."),
        region: Optional[str] = typer.Option(None, "--region", help="Fit only this region (call path)."),
        aggregate: str = typer.Option("median", "--aggregate",
                                      help="How repetitions are combined: median, mean, min or max."),
        max_terms: int = typer.Option(2, "--max-terms", help="Terms besides the constant (1 or 2)."),
        json_out: Optional[Path] = typer.Option(None, "--json", help="Write the models as JSON here."),
        plot: Optional[Path] = typer.Option(None, "--plot", help="Plot measurements and models to this PNG."),
        ) -> None:
    """Fit a PMNF model c0 + sum c*x^i*log2(x)^j to every region x metric of an experiment."""
    from perfcompose.data import load
    from perfcompose.fit import PMNFFitter

    if aggregate not in ("median", "mean", "min", "max"):
        raise typer.BadParameter(f"{aggregate!r}; choose median, mean, min or max", param_hint="--aggregate")
    exp = load(file)
    fitter = PMNFFitter(aggregate=aggregate, max_terms=max_terms).fit(exp, metric=metric, region=region)
    table = Table(title=f"PMNF models of {file} ({aggregate} of repetitions)", title_justify="left")
    for col, just in (("region", "left"), ("metric", "left"), ("model", "left"), ("SMAPE %", "right"),
                      ("adj. R²", "right"), ("CV error %", "right")):
        table.add_column(col, justify=just)  # type: ignore[arg-type]
    records = []
    for r in fitter.results_:
        table.add_row(r.region or "-", r.metric, r.model.to_extrap(digits=6), _fmt(r.stats["smape"], ".3f"),
                      _fmt(r.stats["adj_r2"], ".5f"), _fmt(r.stats["cv_error"], ".3f"))
        records.append({"region": r.region, "metric": r.metric, "unit": r.model.unit,
                        "model": r.model.to_json(), "text": r.model.to_extrap(),
                        **{k: (v if v == v else None) for k, v in r.stats.items()}})
    console.print(table)
    if json_out:
        json_out.write_text(json.dumps(records, indent=2) + "\n")
        console.print(f"models written to {json_out}")
    if plot:
        from perfcompose.report import plot_fits

        plot_fits(exp, [(r.region, r.metric, r.model) for r in fitter.results_], plot)
        console.print(f"plot written to {plot}")


def main() -> None:
    """Entry point of the console script."""
    app(prog_name="perfcompose")


if __name__ == "__main__":
    main()
