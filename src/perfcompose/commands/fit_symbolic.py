"""The parts of ``perfcompose fit`` that need SymPy: the models as JSON records,
plots, the HTML page and an Extra-P saved experiment. :mod:`.fit_run` imports this module only
where one of them is asked for, so that a plain fit loads no symbolic algebra."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from perfcompose.choices import Aggregate
from perfcompose.commands.common import console, write_json
from perfcompose.commands.reports import page
from perfcompose.data.extrap_saved import write
from perfcompose.fit.extrap_models import model_set
from perfcompose.fit.record import fit_to_json, skipped_to_json
from perfcompose.report.figures import save
from perfcompose.report.fit import fit_report
from perfcompose.report.plots import fits_figure


def write_outputs(exp: Any, results: list[Any], texts: list[str], title: str, json_out: Path | None,
                  plot: Path | None, html: Path | None, saved: dict[str, Any], *, aggregate: Aggregate,
                  skipped: Sequence[Any] = (), page_notes: Sequence[str] = ()) -> None:
    """The fitted models as JSON records, a plot and an HTML page, where each is asked for
    (``texts``: each result's model as the table printed it; ``aggregate``: what was modelled of
    each point's repetitions; ``skipped``: the series left unfitted, with the reason;
    ``page_notes``: what the page says beside the notes of reading the measurements)."""
    notes = {(c.region, c.metric): (c.note(),) for c in exp.clipped}
    if json_out:
        records = [fit_to_json(r, aggregate, notes.get((r.region, r.metric), ())) for r in results]
        records += [skipped_to_json(s, aggregate, notes.get((s.region, s.metric), ())) for s in skipped]
        write_json(json_out, records, "models", indent=2)
    if plot:
        save(fits_figure(exp, [(r.region, r.metric, r.model) for r in results], saved=saved, aggregate=aggregate), plot)
        console.print(f"plot written to {plot}")
    if html:
        page(html, fit_report, exp, [(r.region, r.metric, r.model, text, r.stats) for r, text in zip(results, texts)],
             title, saved=saved, aggregate=aggregate, skipped=[(s.label, s.reason) for s in skipped],
             notes=(*exp.notes, *page_notes))


def save_experiment_with_models(exp: Any, results: list[Any], aggregate: Aggregate, path: Path) -> None:
    """The measurements and the fitted models as an Extra-P saved experiment (.extra-p)."""
    write(exp, path, [model_set(exp, results, aggregate)])
    console.print(f"experiment and models written to {path} (Extra-P saved experiment)")
