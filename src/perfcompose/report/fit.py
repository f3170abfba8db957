"""The report of ``perfcompose fit``: every series' model with its fit quality, measured against
the model at every point, and the measurements drawn with the model."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from perfcompose.data.experiment import describe
from perfcompose.report.document import Report, Section, Text, table
from perfcompose.report.html import figure
from perfcompose.report.numbers import sig
from perfcompose.report.plots import fits_figure, interval_at


def fit_report(experiment: Any, fitted: Sequence[tuple[str, str, Any, str, Mapping[str, float]]], title: str,
               *, commands: Sequence[str] = (), saved: Mapping[str, Mapping[tuple[str, str], Any]] | None = None,
               aggregate: str = "median", skipped: Sequence[tuple[str, str]] = (), notes: Sequence[str] = ()
               ) -> Report:
    """``fitted``: (region, metric, model, model text, fit statistics) per series, fitted to the
    ``aggregate`` of each point's repetitions; ``saved``: the model sets an Extra-P saved
    experiment holds, listed and drawn dashed beside the fits; ``skipped``: (series, reason) of
    the series left unfitted; ``notes``: what reading the measurements changed."""
    def stat(stats: Mapping[str, float], key: str, spec: str) -> str:
        v = stats.get(key)
        return "n/a" if v is None or v != v else format(v, spec)

    models = table("models", ("region", "metric", "unit", "model", "SMAPE %", "adj. R²", "leave-one-out error %"),
                   [(reg or "-", met, model.unit or "-", text, stat(st, "smape", ".3f"), stat(st, "adj_r2", ".5f"),
                     stat(st, "cv_error", ".3f")) for reg, met, model, text, st in fitted],
                   numeric=(False, False, False, False, True, True, True))
    blocks: list[Any] = [models, Text(f"The models are fitted to the {aggregate} of each point's repetitions.")]
    if skipped:
        blocks.append(table("series not fitted", ("series", "why"), skipped, numeric=(False, False)))
    blocks.extend(Text(f"note: {n}") for n in notes)
    for name, ms in (saved or {}).items():
        blocks.append(table(f"model set '{name}' saved with the experiment", ("call path / metric", "model"),
                            [(f"{c}/{m}", model.to_extrap(digits=6)) for (c, m), model in ms.items()]))
    params = experiment.parameters
    for reg, met, model, _text, _st in fitted:
        series = experiment.get(met, reg)
        coords = series.coordinates()
        med = series.aggregated(aggregate)
        rows = []
        for k, c in enumerate(coords):
            values = dict(zip(params, (float(v) for v in c)))
            pv = float(np.asarray(model(**{p: values[p] for p in model.params})))
            band = interval_at(model, values)
            rows.append([describe(params, tuple(c)), str(len(series.points[k].values)), sig(med[k], 5), sig(pv, 5),
                         f"{100 * (pv - med[k]) / med[k]:+.2f}" if med[k] else "n/a",
                         f"{sig(band[0])} .. {sig(band[1])}" if band is not None else None])
        unit = f" [{series.unit}]" if series.unit else ""
        cols = ["point", "reps", f"measured {aggregate}{unit}", f"model{unit}", "error %", f"90 % interval{unit}"]
        blocks.append(table(f"{series.label}: measured against the model", cols, rows,
                            numeric=(False, True, True, True, True, False)))
    fig = figure(fits_figure(experiment, [(reg, met, model) for reg, met, model, _t, _s in fitted], saved=saved,
                             aggregate=aggregate),
                 "measurements and models", f"dots: the {aggregate} of each point with min-max bars; line: the "
                 "model; grey: beyond the measurements" + ("; dashed: the saved models" if saved else ""))
    summary = (("parameters", ", ".join(params)), ("series", str(len(fitted))), ("modelled", aggregate))
    return Report(title, "fit", (Section("Models", tuple(blocks)), Section("Figure", (fig,))), summary,
                  tuple(commands))
