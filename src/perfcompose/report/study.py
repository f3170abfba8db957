"""The report of a validation study (``validate``, ``paper table2/4/6/7``): every program as a
tree, the parts' models, monolithic against modular and calibrated models, and measured against
predicted per x with the calibrated interval where the study has one."""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from perfcompose.compose import Composer
from perfcompose.compose.parser import parse_term
from perfcompose.compose.prediction import term_times
from perfcompose.report.design import quality, term_tree
from perfcompose.report.document import Report, Section, Tree, table
from perfcompose.report.figures import plt
from perfcompose.report.html import figure
from perfcompose.report.numbers import short_model, sig, size
from perfcompose.report.plots import log_axes


def _pct(v: float | None) -> str:
    return "-" if v is None or v != v else f"{100 * v:.1f}"


def _figure(study: Any) -> Any:
    comps = list(study.comparisons)
    cols = min(3, max(1, len(comps)))
    rows = math.ceil(len(comps) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.4 * cols, 3.4 * rows), squeeze=False)
    for ax, c in zip(axes.flat, comps):
        x = np.asarray(c.x, dtype=float)
        lo, hi = (x.min() / 2, x.max() * 2) if x.size else (1, 2)
        grid = np.geomspace(lo, hi, 120)
        ax.plot(x, np.asarray(c.measured) * 1e9, "o", color="black", ms=4, label="measured (median)")
        ax.plot(grid, c.modular(x=grid) * np.ones_like(grid), "--", lw=1.3, label="papers' operators")
        ax.plot(grid, c.calibrated(x=grid) * np.ones_like(grid), "-", lw=1.6, label="calibrated operators")
        low, high = getattr(c, "low", ()), getattr(c, "high", ())
        if low and high:
            ax.fill_between(x, low, high, alpha=0.2, lw=0, color="tab:orange",
                            label=f"{100 * getattr(c, 'level', 0.9):.0f} % interval")
        log_axes(ax)
        ax.set_title(c.configuration, fontsize=9)
        ax.set(xlabel="x", ylabel="time per element [ns]")
        ax.grid(True, alpha=0.3)
    for ax in list(axes.flat)[len(comps):]:
        ax.set_visible(False)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=8, frameon=False, bbox_to_anchor=(0.5, 0.0))
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return fig


def _trees(comps: Sequence[Any], composer: Any) -> list[Tree]:
    """Every program as a tree of its parts' times at its largest x, bottleneck marked."""
    trees: list[Tree] = []
    if composer is None:
        return trees
    for c in comps:
        term = parse_term(c.configuration)
        at = {"x": float(max(c.x))} if c.x else {"x": 1.0}
        try:
            tree = composer.evaluate(term)
            hot = (str(term), *(str(t) for t, _ in tree.bottleneck(at)[1:]))
            trees.append(Tree(f"{c.configuration}: times per element from the parts at x = {size(at['x'])} "
                              "(exact max), bottleneck marked", term_tree(term_times(tree, at), hot, "ns")))
        except Exception:  # a program the parts cannot evaluate is drawn by its text
            pass
    return trees


def _models_table(comps: Sequence[Any], paper: Mapping[str, str] | None, has_band: bool) -> Any:
    """Monolithic against modular and calibrated models, with their errors."""
    cols = ["program", "monolithic [ns]", "papers' operators [ns]", "calibrated [ns]", "lead coef. err %",
            "err % papers' ops (med / max)", "err % calibrated (med / max)"]
    if paper:
        cols.insert(2, "paper: monolithic [ns]")
    if has_band:
        cols.append("measured inside interval")
    rows = []
    for c in comps:
        row = [c.configuration + (" !" if getattr(c, "disturbed", False) else ""), short_model(c.monolithic),
               short_model(c.modular), short_model(c.calibrated),
               _pct(c.lead_error), f"{_pct(c.error_paper)} / {_pct(max(c.errors_paper))}",
               f"{_pct(c.error_calibrated)} / {_pct(max(c.errors_calibrated))}"]
        if paper:
            row.insert(2, paper.get(c.configuration, "-"))
        if has_band:
            inside = getattr(c, "inside", ())
            row.append(f"{sum(inside)} of {len(inside)}" if inside else "-")
        rows.append(row)
    return table("monolithic (fitted to the program) against modular (composed from the parts)", cols, rows,
                 numeric=(False,) * (len(cols) - (1 if has_band else 0)) + ((True,) if has_band else ()))


def _where(configuration: str, composer: Any, xv: float) -> str:
    """The bottleneck of the program at x by the parts' models, or '-'."""
    if composer is None:
        return "-"
    try:
        path = composer.evaluate(parse_term(configuration)).bottleneck({"x": float(xv)})
        return " > ".join(str(t) for t, _ in path[1:]) or "-"
    except Exception:  # a program the parts cannot evaluate has no bottleneck to show
        return "-"


def _per_x_table(comps: Sequence[Any], composer: Any) -> Any:
    """Measured against predicted at every x, with the interval where the study has one."""
    per_x = ["program", "x", "measured [ns]", "papers' operators [ns]", "calibrated [ns]", "interval low [ns]",
             "high [ns]", "err % papers'", "err % calibrated", "bottleneck (parts, exact max)"]
    rows = []
    for c in comps:
        low, high = getattr(c, "low", ()), getattr(c, "high", ())
        for k, xv in enumerate(c.x):
            rows.append([c.configuration, size(xv), sig(c.measured[k] * 1e9, 5), sig(float(c.modular(x=xv)), 5),
                         sig(float(c.calibrated(x=xv)), 5), sig(low[k]) if low else None,
                         sig(high[k]) if high else None, _pct(c.errors_paper[k]), _pct(c.errors_calibrated[k]),
                         _where(c.configuration, composer, xv)])
    return table("measured against predicted, per x", per_x, rows,
                 note="errors are |predicted - measured| / measured; times per data element",
                 numeric=(False,) + (True,) * (len(per_x) - 2) + (False,))


def _summary(study: Any, comps: Sequence[Any]) -> tuple[tuple[str, str], ...]:
    errs_p = [c.error_paper for c in comps]
    errs_c = [c.error_calibrated for c in comps]
    disturbed = [c.configuration for c in comps if getattr(c, "disturbed", False)]
    return (("programs", str(len(comps))),
            ("x", ", ".join(size(v) for v in study.x)),
            ("runs", f"{study.rounds} rounds of {study.count}+ elements, {study.workers}"),
            ("median error, papers' operators", f"{_pct(float(np.median(errs_p))) if errs_p else '-'} %"),
            ("median error, calibrated", f"{_pct(float(np.median(errs_c))) if errs_c else '-'} %"),
            *((("measured points inside their intervals", f"{_pct(coverage)} %"),)
              if (coverage := getattr(study, "coverage", None)) is not None else ()),
            *((("disturbed by other work (!)", ", ".join(disturbed)),) if disturbed else ()))


def study_report(study: Any, title: str, *, paper: Mapping[str, str] | None = None,
                 commands: Sequence[str] = ()) -> Report:
    """The page of a validation study."""
    parts = dict(study.parts)
    composer = Composer(parts, pipe="pointwise") if parts else None
    comps = list(study.comparisons)
    has_band = any(getattr(c, "low", ()) for c in comps)
    parts_table = table("the parts, measured alone", ("part", "model [ns]", "source", "fit quality"),
                        [(k, short_model(m, 4), m.source or "-", quality(m)) for k, m in parts.items()],
                        numeric=(False,) * 4)
    sections = [Section("Programs", tuple(_trees(comps, composer))),
                Section("Parts", (parts_table,)),
                Section("Models", (_models_table(comps, paper, has_band),)),
                Section("Measured against predicted", (_per_x_table(comps, composer),) + ((figure(
                    _figure(study), "measured against predicted, per program",
                    "dots: measured medians; dashed: the papers' operators; solid: calibrated operators"),)
                    if comps else ()))]
    skipped = getattr(study, "skipped", ())
    if skipped:
        sections.append(Section("Skipped", (table("programs not run", ("program", "why"), skipped,
                                                  numeric=(False, False)),)))
    return Report(title, "validation", tuple(sections), _summary(study, comps), tuple(commands))
