"""The report of ``perfcompose demo``: the parts measured here with their fits, the paper's
Table-2 programs composed from them as trees, predictions over x with the bottleneck, and the
parts' measurements against their models."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from perfcompose.compose import Composer, oversubscription
from perfcompose.compose.parser import parse_term
from perfcompose.compose.prediction import term_times
from perfcompose.report.design import quality, term_tree
from perfcompose.report.document import Report, Section, Text, Tree, table
from perfcompose.report.figures import plt
from perfcompose.report.html import figure
from perfcompose.report.numbers import short_model, sig, size
from perfcompose.report.plots import interval_at, log_axes, models_figure

#: the sizes the demo's predictions are listed at
DEMO_X = (2.0 ** 10, 2.0 ** 14, 2.0 ** 18, 2.0 ** 20)


def demo_report(rows: Sequence[Any], results: Sequence[Any], *, at: float = 2.0 ** 18,
                commands: Sequence[str] = (), cores: int | None = None) -> Report:
    """``rows``: Table-1 rows of the parts (task, experiment, model, cv, paper); ``results``:
    Table-2 rows (configuration, modular model, the paper's models); ``cores``: this machine's
    (the programs that start more threads are flagged)."""
    cores = cores or oversubscription.machine_cores()
    parts = {r.task: r.model for r in rows}
    composer = Composer(parts, pipe="pointwise")
    parts_table = table("fitted models of the parts (time per data element)",
                        ("task", "model here [ns]", "fit quality", "CV % median", "paper (000 Table 1) [ns]"),
                        [(r.task, short_model(r.model, 5), quality(r.model), f"{r.cv[2]:.2f}" if r.cv else "-",
                          r.paper) for r in rows], numeric=(False, False, False, True, False))
    meas_rows = []
    for r in rows:
        s = r.experiment.series[0]
        xs = s.coordinates()[:, 0]
        med = s.aggregated("median")
        pick = sorted(set(np.linspace(0, len(xs) - 1, min(4, len(xs))).round().astype(int)))
        for k in pick:
            pv = float(np.asarray(r.model(**{p: xs[k] for p in r.model.params})))
            meas_rows.append((r.task, size(xs[k]), sig(med[k], 5), sig(pv, 5),
                              f"{100 * (pv - med[k]) / med[k]:+.1f}" if med[k] else "n/a"))
    measured = table("measured against fitted, at some of the measured sizes",
                     ("task", "x", "measured median [ns]", "model [ns]", "error %"), meas_rows)
    trees = []
    prog_rows = []
    over = []
    at_value: dict[str, float] = {}  # each program's time at x = at
    for res in results:
        point = {"x": at}
        evaluated = composer.evaluate(parse_term(res.configuration))
        term, threads = evaluated.term, evaluated.workers
        if threads is not None and threads > cores:
            over.append(res.configuration)
        path = evaluated.bottleneck(point)
        at_value.setdefault(res.configuration, path[0][1])
        hot = (str(term), *(str(t) for t, _ in path[1:]))
        trees.append(Tree(f"{res.configuration}", term_tree(term_times(evaluated, point), hot, "ns")))
        exact = evaluated.model.with_meta(name=str(term), source="composed")
        values = [float(np.asarray(exact(x=v))) for v in DEMO_X]
        band = interval_at(exact, {"x": at})
        prog_rows.append([res.configuration,
                          "-" if threads is None else f"{threads}" + (f" (> {cores} cores)" if threads > cores else ""),
                          short_model(res.modular, 4), str(res.paper_modular),
                          *(sig(v / 1e6, 4) for v in values),
                          f"{sig(band[0] / 1e6)} .. {sig(band[1] / 1e6)}" if band is not None else None,
                          " > ".join(str(t) for t, _ in path[1:]) or "-"])
    cols = ["program", "threads", "modular model, parts measured here [ns]", "paper: modular",
            *(f"x = {size(v)} [ms]" for v in DEMO_X), f"90 % interval at x = {size(at)} [ms]",
            f"bottleneck at x = {size(at)}"]
    programs = table("composed programs (000 Table 2): predicted time per element", cols, prog_rows,
                     note=f"predictions use the exact pointwise max of pipeline stages and assume a core per thread; "
                          f"this machine has {cores} cores"
                          + (f", so {', '.join(over)} will run slower here than predicted" if over else ""),
                     numeric=(False, True, False, False, *(True,) * len(DEMO_X), False, False))
    composed_fig = figure(programs_figure(rows, results), "composed programs and measured parts",
                          "lines: programs composed from the parts' models; rings: the parts' measured medians")
    parts_fig = figure(parts_figure(rows), "each part: measurements and fitted model",
                       "dots: medians with min-max bars; line: the fitted model; grey: beyond the measurements")
    top = max(at_value, key=lambda c: at_value[c]) if at_value else None
    summary = (("parts measured here", ", ".join(f"{r.task}: {short_model(r.model, 4)}" for r in rows) + " [ns]"),
               ("programs", str(len(results))),
               ("cores", f"{cores} on this machine; the predictions assume a core per thread"
                + (f" ({len(over)} programs start more threads)" if over else "")),
               ("slowest at x = " + size(at), "-" if top is None else
                f"{top}: {sig(at_value[top] / 1e6)} ms per element"))
    sections = (Section("Parts", (parts_table, measured, parts_fig)),
                Section("Programs", tuple(trees)),
                Section("Predictions", (programs, composed_fig,
                                        Text("Times are per data element; a program's time for a stream is "
                                             "this times the number of elements."))))
    return Report("perfcompose demo: the paper's programs composed from parts measured here", "demo", sections,
                  summary, tuple(commands))


def programs_figure(rows: Sequence[Any], results: Sequence[Any]) -> Any:
    """Six of the programs composed from the parts' models, and the parts' measured medians."""
    curves = [(r.configuration, r.modular) for r in results
              if r.configuration in ("seq(qsort, inc)", "tpool_4(qsort)", "pipe(inc, qsort)", "seq(inc, nop)",
                                     "pipe(inc, nop)", "tpool_24(qsort)")]
    return models_figure(curves, (2.0 ** 10, 2.0 ** 20), title="programs composed from the parts measured on this "
                         "machine", points=[(f"measured {r.task}", r.experiment.series[0].coordinates()[:, 0],
                                             r.experiment.series[0].aggregated("median")) for r in rows])


def parts_figure(rows: Sequence[Any]) -> Any:
    """One panel per part: measured medians with min-max bars and the fitted model."""
    fig, axes = plt.subplots(1, len(rows), figsize=(4.6 * len(rows), 3.6), squeeze=False)
    for ax, r in zip(axes.flat, rows):
        s = r.experiment.series[0]
        xs = s.coordinates()[:, 0]
        med = s.aggregated("median")
        lo = np.array([min(p.values) for p in s.points])
        hi = np.array([max(p.values) for p in s.points])
        order = np.argsort(xs)
        ax.errorbar(xs[order], med[order], yerr=[med[order] - lo[order], hi[order] - med[order]], fmt="o", ms=3,
                    capsize=2, label="measured")
        grid = np.geomspace(max(xs.min() / 2, 1e-12), xs.max() * 4, 200)
        ax.plot(grid, r.model(**{p: grid for p in r.model.params}) * np.ones_like(grid), lw=1.5, label="model")
        ax.axvspan(xs.max(), grid.max(), color="0.93", zorder=0)
        log_axes(ax)
        ax.set(xlabel="x", ylabel=f"time per element [{s.unit}]" if s.unit else "time per element")
        ax.set_title(f"{r.task}: {short_model(r.model, 4)}", fontsize=9)
        ax.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig
