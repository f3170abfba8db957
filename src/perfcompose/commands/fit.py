"""``fit``: a PMNF model of every region and metric of an experiment, with advice on what to measure next."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from perfcompose.choices import NEGATIVE_EXPONENTS, Aggregate, NegativeExponents, Scaling
from perfcompose.commands.common import (
    Table,
    bar_after,
    console,
    err_console,
    fmt,
    html_option,
    json_option,
    print_saved_models,
    progress,
    saved_models,
    scaling_option,
    scheduler_option,
    user_errors,
    write_json,
)


def _fit_all(exp: Any, pmnf: Any, segmented: bool, metric: str | None, region: str | None,
             scheduler: str | None = None) -> list[Any]:
    """The fit results of the chosen series: single models, or two-piece ones where clearly better.
    Several series (a profile's call paths) are fitted together, on Dask where ``scheduler`` says."""
    with bar_after(progress()) as step:
        if segmented:
            from perfcompose.fit import SegmentedFitter

            return list(SegmentedFitter(pmnf).fit(exp, metric=metric, region=region, progress=step).results_)
        chosen = exp.select(metric, region) if (metric or region) else exp
        if len(chosen.series) > 1 or scheduler:
            from perfcompose.fit.profile import fit_profile

            return fit_profile(chosen, fitter=pmnf, scheduler=scheduler, progress=step)
        return list(pmnf.fit(exp, metric=metric, region=region, progress=step).results_)


def _text(result: Any, segmented: bool) -> str:
    return result.describe() if segmented else result.text(digits=6)


def _table(results: list[Any], title: str, segmented: bool) -> Table:
    table = Table(title=title + (", two-piece where clearly better" if segmented else ""), title_justify="left")
    units = sorted({r.unit or "no unit" for r in results})
    columns = [("region", "left"), ("metric", "left"), (f"model [{units[0]}]" if len(units) == 1 else "model", "left")]
    columns += [("breakpoint", "right")] if segmented else []
    columns += [("SMAPE %", "right"), ("adj. R²", "right"), ("CV error %", "right")]
    for col, just in columns:
        table.add_column(col, justify=just)
    for r in results:
        cells = [r.region or "-", r.metric, _text(r, segmented)]
        if segmented:
            cells.append(fmt(r.breakpoint, ".6g") if r.segmented else "-")
        table.add_row(*cells, fmt(r.stats["smape"], ".3f"), fmt(r.stats["adj_r2"], ".5f"),
                      fmt(r.stats["cv_error"], ".3f"))
    return table


def _advise(exp: Any, pmnf: Any, metric: str | None, region: str | None, extend: float) -> None:
    from perfcompose.fit import advise_series

    chosen = exp.select(metric, region) if (metric or region) else exp
    for series in chosen.series:
        suggestions = advise_series(exp.parameters, series, pmnf, extend=extend)
        console.print(f"[bold]next measurements for {series.label}[/bold]")
        if not suggestions:
            console.print("  the measurements already single out one hypothesis; no point would separate "
                          "others")
        for k, sug in enumerate(suggestions, 1):
            console.print(f"  {k}. {sug.reason()}")


def _write(exp: Any, results: list[Any], segmented: bool, title: str, json_out: Path | None,
           plot: Path | None, html: Path | None, saved: dict[str, Any]) -> None:
    if json_out:
        from perfcompose.fit.record import fit_to_json

        write_json(json_out, [fit_to_json(r) for r in results], "models", indent=2)
    if plot:
        from perfcompose.report import plot_fits

        plot_fits(exp, [(r.region, r.metric, r.model) for r in results], plot, saved=saved)
        console.print(f"plot written to {plot}")
    if html:
        from perfcompose.commands.reports import fit_html

        fit_html(html, exp, [(r.region, r.metric, r.model, _text(r, segmented), r.stats) for r in results], title,
                 saved)


def _save_experiment(exp: Any, results: list[Any], aggregate: Aggregate, path: Path) -> None:
    from perfcompose.data.extrap_saved import write
    from perfcompose.fit.extrap_models import model_set

    write(exp, path, [model_set(exp, results, aggregate)])
    console.print(f"experiment and models written to {path} (Extra-P saved experiment)")


@user_errors
def fit(file: Path = typer.Argument(..., help="Experiment file."),
        metric: str | None = typer.Option(None, "--metric", help="Fit only this metric."),
        region: str | None = typer.Option(None, "--region", help="Fit only this region (call path)."),
        aggregate: Aggregate = typer.Option("median", "--aggregate", help="How repetitions are combined."),
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
        ) -> None:
    from perfcompose.data import load
    from perfcompose.fit import PMNFFitter
    from perfcompose.fit.hypotheses import DEFAULT_I, DEFAULT_J

    if extend < 1:
        raise typer.BadParameter(f"{extend}; a factor of at least 1", param_hint="--extend")
    exp = load(file, metric=metric, scaling=scaling)
    pmnf = PMNFFitter(aggregate=aggregate, max_terms=max_terms,
                      allow_negative_exponents=NEGATIVE_EXPONENTS[negative_exponents],
                      exponents_i=DEFAULT_I if poly_exponents is None else poly_exponents,
                      exponents_j=DEFAULT_J if log_exponents is None else log_exponents)
    if segmented and len(exp.parameters) != 1:
        raise typer.BadParameter(f"{file} has {len(exp.parameters)} parameters ({', '.join(exp.parameters)}); "
                                 "a segmented model splits along one", param_hint="--segmented")
    results = _fit_all(exp, pmnf, segmented, metric, region, scheduler)
    title = f"PMNF models of {file} ({aggregate} of repetitions)"
    console.print(_table(results, title, segmented))
    for r in results:
        for warning in r.warnings:
            err_console.print(f"[bold yellow]warning:[/bold yellow] {r.label}: {warning}", highlight=False)
    saved = saved_models(file)   # an Extra-P saved experiment's own models, shown beside these
    print_saved_models(file, saved)
    if advise:
        _advise(exp, pmnf, metric, region, extend)
    _write(exp, results, segmented, title, json_out, plot, html, saved)
    if save_experiment:
        _save_experiment(exp, results, aggregate, save_experiment)
