"""``perfcompose fit`` run: the experiment read, fitted and printed; the outputs that need SymPy
(JSON records, plots, HTML, an Extra-P saved experiment) are in :mod:`.fit_symbolic`, and two-piece
models in :mod:`perfcompose.fit.segmented`, each imported only when asked for."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from perfcompose.choices import NEGATIVE_EXPONENTS
from perfcompose.commands.common import (
    Table,
    bar_after,
    console,
    err_console,
    fmt,
    numbers_table,
    print_saved_models,
    progress,
    with_stated_unit,
)
from perfcompose.data import load
from perfcompose.errors import FitError
from perfcompose.fit import PMNFFitter, advise_series
from perfcompose.fit.hypotheses import DEFAULT_I, DEFAULT_J
from perfcompose.fit.profile import fit_profile
from perfcompose.fit.usable import Skipped, fit_usable

if TYPE_CHECKING:
    from perfcompose.commands.fit import FitCommand


def _fit_all(chosen: Any, pmnf: Any, segmented: bool, scheduler: str | None) -> tuple[list[Any], list[Skipped]]:
    """The fit results of the chosen series: single models, or two-piece ones where clearly better,
    and the series that could not be fitted, each with the reason. Several series (a profile's
    call paths) are fitted together, on Dask where ``scheduler`` says."""
    with bar_after(progress()) as step:
        def fit(part: Any) -> list[Any]:
            if segmented:  # each series split in two at a breakpoint where clearly better
                from perfcompose.fit import SegmentedFitter  # two-piece models are SymPy's

                return list(SegmentedFitter(pmnf).fit(part, progress=step).results_)
            if len(part.series) > 1 or scheduler:
                return fit_profile(part, fitter=pmnf, scheduler=scheduler, progress=step)
            return list(pmnf.fit(part, progress=step).results_)

        results, skipped = fit_usable(chosen, fit)
    if not results:
        raise FitError(f"{chosen.source or 'the file'}: no series can be fitted (measure at least 3 values of a "
                       "parameter):\n  " + "\n  ".join(f"{s.label}: {s.reason}" for s in skipped))
    return results, skipped


def _text(result: Any, segmented: bool) -> str:
    return result.describe() if segmented else result.text(digits=6)


def _table(results: list[Any], title: str, segmented: bool) -> Table:
    units = sorted({r.unit for r in results})
    mixed = len(units) > 1
    # one unit heads the model column; models of several units each say theirs; no unit, none
    left = ["region", "metric", f"model [{units[0]}]" if units[0] and not mixed else "model"] + ["unit"] * mixed
    table = numbers_table(title + (", two-piece where clearly better" if segmented else ""), *left,
                          *(["breakpoint"] if segmented else []), "SMAPE %", "adj. R²", "CV error %", left=len(left))
    for r in results:
        cells = [r.region or "-", r.metric, _text(r, segmented)] + ([r.unit or "-"] if mixed else [])
        if segmented:
            cells.append(fmt(r.breakpoint, ".6g") if r.segmented else "-")
        table.add_row(*cells, fmt(r.stats["smape"], ".3f"), fmt(r.stats["adj_r2"], ".5f"),
                      fmt(r.stats["cv_error"], ".3f"))
    return table


def _advise(chosen: Any, pmnf: Any, extend: float, skipped: list[Skipped]) -> None:
    left_out = {(s.region, s.metric) for s in skipped}
    for series in chosen.series:
        if (series.region, series.metric) in left_out:
            continue
        suggestions = advise_series(chosen.parameters, series, pmnf, extend=extend)
        console.print(f"[bold]next measurements for {series.label}[/bold]")
        if not suggestions:
            console.print("  the measurements already single out one hypothesis; no point would separate "
                          "others")
        for k, sug in enumerate(suggestions, 1):
            console.print(f"  {k}. {sug.reason()}")


def run_fit(o: FitCommand) -> None:
    """Fit, print, advise and write what ``perfcompose fit`` was asked for."""
    file, metric, region, aggregate, segmented = o.file, o.metric, o.region, o.aggregate, o.segmented
    if o.extend < 1:
        raise typer.BadParameter(f"{o.extend}; a factor of at least 1", param_hint="--extend")
    exp = with_stated_unit(load(file, metric=metric, scaling=o.scaling), o.unit)
    for note in exp.notes:
        err_console.print(f"note: {note}", highlight=False, soft_wrap=True)
    # a point saved as its statistics (an Extra-P saved experiment) is the one of the aggregate
    exp = exp.for_aggregate(aggregate)
    pmnf = PMNFFitter(aggregate=aggregate, max_terms=o.max_terms,
                      allow_negative_exponents=NEGATIVE_EXPONENTS[o.negative_exponents],
                      exponents_i=DEFAULT_I if o.poly_exponents is None else o.poly_exponents,
                      exponents_j=DEFAULT_J if o.log_exponents is None else o.log_exponents)
    if segmented and len(exp.parameters) != 1:
        raise typer.BadParameter(f"{file} has {len(exp.parameters)} parameters ({', '.join(exp.parameters)}); "
                                 "a segmented model splits along one", param_hint="--segmented")
    chosen = exp.select(metric, region) if (metric or region) else exp
    results, skipped = _fit_all(chosen, pmnf, segmented, o.scheduler)
    title = f"PMNF models of {file} ({aggregate} of repetitions)"
    console.print(_table(results, title, segmented))
    if skipped:
        console.print(f"not fitted ({len(skipped)} series):", highlight=False)
        for s in skipped:
            console.print(f"  {s.label}: {s.reason}", highlight=False, soft_wrap=True)
    unit_notes = (f"{file} states no unit for its times (Extra-P's formats have none): the models are shown "
                  "without one; --unit ns (or s, ms, us) states it",
                  ) if any(not r.unit for r in results) and any(r.metric == "time" for r in results) else ()
    for note in unit_notes:
        err_console.print(f"note: {note}", highlight=False, soft_wrap=True)
    for r in results:
        for warning in r.warnings:
            err_console.print(f"[bold yellow]warning:[/bold yellow] {r.label}: {warning}", highlight=False)
    saved = print_saved_models(file)  # an Extra-P saved experiment's own models, shown beside these
    if o.advise:
        _advise(chosen, pmnf, o.extend, skipped)
    if o.json_out or o.plot or o.html or o.save_experiment:
        from perfcompose.commands.fit_symbolic import save_experiment_with_models, write_outputs  # SymPy's

        write_outputs(exp, results, [_text(r, segmented) for r in results], title, o.json_out, o.plot, o.html, saved,
                      aggregate=aggregate, skipped=skipped, page_notes=unit_notes)
        if o.save_experiment:
            save_experiment_with_models(exp, results, aggregate, o.save_experiment)
