"""The report of a designed program: its term as a tree, each component with source and fit
quality, the composed model, predictions over x (with intervals where the model has them), the
bottleneck per x, and measured against predicted where there are measurements."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from perfcompose.compose.terms import Component, Pipe, Seq, TPool
from perfcompose.report.document import Node, Report, Section, TableBlock, Text, Tree, table
from perfcompose.report.html import figure
from perfcompose.report.numbers import point as point_text
from perfcompose.report.numbers import short_model, sig, size
from perfcompose.report.plots import models_figure


def quality(model: Any) -> str:
    """A fitted model's fit quality in words; '-' where the source is not a fit."""
    stats = getattr(model, "stats", None) or {}
    parts = []
    if stats.get("smape") is not None and stats["smape"] == stats["smape"]:
        parts.append(f"SMAPE {sig(stats['smape'], 3)} %")
    if stats.get("adj_r2") is not None and stats["adj_r2"] == stats["adj_r2"]:
        parts.append(f"adj. R² {stats['adj_r2']:.4f}")
    if stats.get("cv_error") is not None and stats["cv_error"] == stats["cv_error"]:
        parts.append(f"leave-one-out {sig(stats['cv_error'], 3)} %")
    return ", ".join(parts) or "-"


def model_text(model: Any, digits: int = 4) -> str:
    return short_model(model, digits)


def interval_at(model: Any, values: Mapping[str, Any]) -> tuple[Any, Any] | None:
    """The model's interval at ``values``; None for a model without one."""
    interval = getattr(model, "interval", None)
    if interval is None:
        return None
    try:
        return interval(**{p: values[p] for p in model.params})
    except Exception:  # an interval is an extra; a model that cannot give one is shown without
        return None


def _flat(term: Any) -> list[Any]:
    kind = type(term)
    if kind not in (Pipe, Seq):
        return list(term.children())
    out: list[Any] = []
    for c in term.children():
        out += _flat(c) if type(c) is kind else [c]
    return out


def term_tree(term: Any, composer: Any, at: Mapping[str, float], hot: Sequence[str] = (),
              unit: str = "") -> Node:
    """The term as a tree; every node shows its time per element at ``at``, the bottleneck path
    (``hot``, the terms as printed) is marked."""
    def time(t: Any) -> str:
        try:
            m = composer.model(t)
            return f"{sig(float(np.asarray(m(**{p: at[p] for p in m.params}))))} {unit}".strip()
        except Exception:  # a node that cannot be evaluated alone is drawn without its time
            return ""

    def build(t: Any) -> Node:
        if isinstance(t, Component):
            leaf = composer.leaf(t)
            label = t.name
            detail = f"{time(t)} · {leaf.source or 'expression'}"
        else:
            label = (f"tpool_{t.threads}" if isinstance(t, TPool)
                     else {Pipe: "pipe", Seq: "seq"}.get(type(t), type(t).__name__.lower()))
            detail = time(t)
        kids = tuple(build(c) for c in _flat(t))
        return Node(label, detail, kids, emphasis=str(t) in hot)

    return build(term)


def components_table(names: Sequence[str], composer: Any, unit: str) -> TableBlock:
    rows = []
    for name in names:
        leaf = composer.leaf(Component(name))
        raw = composer.components[name]
        rows.append((name, leaf.source or "expression", model_text(leaf, 4), raw.unit or "-",
                     quality(raw), "yes" if getattr(raw, "ensemble", None) is not None else "-"))
    return table("components", ("component", "source", f"model [{unit}] (in the design's unit)", "own unit",
                                "fit quality", "interval"), rows,
                 note="Fit quality of fitted components: symmetric mean absolute percentage error, "
                      "adjusted R² and leave-one-out error of the fit; '-' for sources that are not fits.",
                 numeric=(False,) * 6)


def predictions_table(preds: Sequence[Any], unit: str, size_name: str = "x") -> TableBlock:
    """The predicted points (:class:`perfcompose.compose.prediction.PointPrediction`) as a table."""
    has_band = any(p.low is not None for p in preds)
    has_exact = any(p.exact is not None for p in preds)
    cols = [size_name, f"predicted [{unit}]"]
    cols += [f"90 % interval low [{unit}]", f"high [{unit}]"] if has_band else []
    cols += [f"pointwise max [{unit}]"] if has_exact else []
    cols += ["bottleneck"]
    rows = []
    for p in preds:
        row = [size(p.point[size_name]), sig(p.value, 5)]
        if has_band:
            row += [sig(p.low), sig(p.high)]
        if has_exact:
            row.append(sig(p.exact, 5))
        row.append(" > ".join(p.bottleneck) or "-")
        rows.append(row)
    return table("predicted time per data element", cols, rows,
                 numeric=(True,) * (len(cols) - 1) + (False,))


def measured_table(measured: Sequence[tuple[float, float]], model: Any, fixed: Mapping[str, float], unit: str,
                   label: str) -> TableBlock:
    rows = []
    for xv, mv in measured:
        pv = float(np.asarray(model(**{p: ({**fixed, "x": xv})[p] for p in model.params})))
        rows.append((size(xv), sig(mv, 5), sig(pv, 5), f"{100 * (pv - mv) / mv:+.1f}" if mv else "n/a"))
    return table(f"measured ({label}) against predicted", ("x", f"measured [{unit}]", f"predicted [{unit}]",
                                                             "error %"), rows,
                 note="error = (predicted - measured) / measured")


def design_report(prediction: Any, *, measured: Sequence[tuple[float, float]] = (), measured_label: str = "",
                  commands: Sequence[str] = ()) -> Report:
    """The page of ``perfcompose predict``: the prediction (:class:`perfcompose.compose.prediction.Prediction`)
    as computed, with measurements where given."""
    composer, model, fixed = prediction.composer, prediction.model, prediction.parameters
    program, title, warnings = prediction.program, prediction.title, prediction.warnings
    unit = model.unit or "no unit"
    preds = list(prediction.points)
    xs = [p.point[composer.size] for p in preds]
    last = preds[-1]
    tree = term_tree(program, composer, last.point, hot=(str(program), *last.bottleneck), unit=unit)
    used = program.components()

    curves = [(f"{program}", model)] + [(f"{n}: {composer.leaf(Component(n)).source or 'expression'}",
                                         composer.leaf(Component(n))) for n in used]
    pts = [(f"measured ({measured_label})", [m[0] for m in measured], [m[1] for m in measured])] if measured else []
    pts += component_points(used, composer)
    fig = figure(models_figure(curves, (min(xs), max(xs)), fixed=fixed, title=title or str(program),
                               points=pts, marks=xs),
                 "program and components per data element",
                 "bold: the composed program (shaded: its 90 % interval where the model has one); dashed: "
                 "each component; dots: the sizes asked for; rings: measurements")
    blocks_pred: list[Any] = [predictions_table(preds, unit), fig]
    if measured:
        blocks_pred.insert(1, measured_table(measured, model, fixed, unit, measured_label))
    summary = (("program", str(program)), ("model", f"{model_text(model, 5)}  [{unit}]"),
               ("pipeline max", composer.pipe),
               *((("parameters", point_text(dict(fixed))),) if fixed else ()),
               ("largest x", f"{size(last.point['x'])}: {sig(last.value, 5)} {unit}"
                + (f" (90 % interval {sig(last.low)} .. {sig(last.high)})" if last.low is not None else "")),
               ("bottleneck there", " > ".join(last.bottleneck) or "-"))
    program_blocks: list[Any] = [Tree(f"term, each part's time per element by the operators at "
                                      f"{point_text(dict(last.point))}; the bottleneck path is marked", tree)]
    plain = prediction.operators
    by_operators = float(np.asarray(plain(**{p: last.point[p] for p in plain.params})))
    if abs(by_operators - last.value) > 1e-6 * abs(last.value):
        program_blocks.append(Text(f"The prediction at this size, {sig(last.value, 5)} {unit}, differs from the "
                                   f"operators' {sig(by_operators, 5)} {unit}: it also counts the workers "
                                   "sharing this machine's cores."))
    sections = [
        Section("Program", tuple(program_blocks)),
        Section("Components", (components_table(used, composer, unit),)),
        Section("Composed model", (Text(f"{model}  [{unit}]", code=True),
                                   Text(f"pipeline max: {composer.pipe}; order in x: {order_text(model)}"),
                                   *(Text("warning: " + w) for w in warnings))),
        Section("Predictions", tuple(blocks_pred)),
    ]
    return Report(title or str(program), "design prediction", tuple(sections), summary, tuple(commands))


def order_text(model: Any, size_name: str = "x") -> str:
    try:
        order = model.order(size_name)
    except Exception:  # numeric models have no closed order
        order = None
    if order is None:
        return "not PMNF"
    return "O(1)" if (order.i, order.j) == (0, 0) else f"O({order})"


def component_points(names: Sequence[str], composer: Any) -> list[tuple[str, list[float], list[float]]]:
    """Measured medians of the components fitted from a file (their source says 'fit of FILE[:REGION]'),
    in the design's unit; components of other sources have none."""
    out = []
    for name in names:
        leaf = composer.leaf(Component(name))
        src = leaf.source or ""
        if not src.startswith("fit of "):
            continue
        path, _, region = src[len("fit of "):].partition(":")
        if not Path(path).is_file() and ":" in src[len("fit of "):]:
            path, region = src[len("fit of "):], ""
        try:
            from perfcompose.data import load
            from perfcompose.units import conversion

            exp = load(Path(path))
            series = exp.select(region=region or None).series if region else exp.series
            if len(series) != 1 or len(exp.parameters) != 1:
                continue
            s = series[0]
            factor = conversion(s.unit, leaf.unit) if s.unit and leaf.unit else 1.0
            out.append((f"measured {name}", list(s.coordinates()[:, 0]), list(s.aggregated("median") * factor)))
        except Exception:  # measurements are shown where they can be read back, the report stands without
            continue
    return out
