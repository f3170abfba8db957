"""The report and plot of a designed program (term tree, components, composed model, predictions,
bottleneck, measured against predicted), from a :class:`perfcompose.prediction_result.Prediction`."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from perfcompose.model import Model
from perfcompose.prediction_result import MeasuredSeries, PartPrediction, Prediction, TermNode
from perfcompose.report.document import Node, Report, Section, TableBlock, Text, Tree, table
from perfcompose.report.html import figure
from perfcompose.report.numbers import fit_quality, short_model, size
from perfcompose.report.numbers import point as point_text
from perfcompose.report.plots import models_figure
from perfcompose.report.prediction_text import prediction_table
from perfcompose.units import human, human_interval


def quality(model: Any) -> str:
    """A fitted model's fit quality in words; '-' where the source is not a fit."""
    return fit_quality(getattr(model, "stats", None) or {}, nan=False)


def term_tree(node: TermNode, hot: Sequence[str] = (), unit: str = "") -> Node:
    """The term as a tree; every node shows its time per element, the bottleneck path (``hot``,
    the terms as printed) is marked."""
    time = "" if node.time is None else human(node.time, unit)
    detail = time if node.source is None else f"{time} · {node.source}"
    return Node(node.label, detail, tuple(term_tree(c, hot, unit) for c in node.children), emphasis=node.text in hot)


def components_table(parts: Sequence[PartPrediction], unit: str) -> TableBlock:
    rows = [(part.name, part.source or "expression", short_model(part.model, 4), part.own.unit or "-",
             quality(part.own), "yes" if getattr(part.own, "ensemble", None) is not None else "-") for part in parts]
    return table("components", ("component", "source", f"model [{unit or 'no unit'}] (in the design's unit)",
                                "own unit", "fit quality", "interval"), rows,
                 note="Fit quality of fitted components: symmetric mean absolute percentage error, "
                      "adjusted R² and leave-one-out error of the fit; '-' for sources that are not fits.",
                 numeric=(False,) * 6)


def measured_table(measured: MeasuredSeries, unit: str) -> TableBlock:
    rows = [(size(xv), human(mv, unit, 5), human(pv, unit, 5), f"{100 * (pv - mv) / mv:+.1f}" if mv else "n/a")
            for xv, mv, pv in zip(measured.x, measured.measured, measured.predicted)]
    return table(f"measured ({measured.label}) against predicted", ("x", "measured", "predicted", "error %"), rows,
                 note="error = (predicted - measured) / measured")


def _curves(prediction: Prediction) -> list[tuple[str, Model]]:
    """The program's model (drawn bold) and each component's, labelled with its source."""
    return [(prediction.program, prediction.model)] + [
        (f"{part.name}: {part.source or 'expression'}", part.model) for part in prediction.parts]


def _points(prediction: Prediction) -> list[tuple[str, list[float], list[float]]]:
    """The measurements of the program, then those each fitted component was fitted to."""
    seen = prediction.measured
    pts = [(f"measured ({seen.label})", list(seen.x), list(seen.measured))] if seen and seen.x else []
    return pts + [(f"measured {part.name}", [x for x, _ in part.measured], [y for _, y in part.measured])
                  for part in prediction.parts if part.measured]


def prediction_figure(prediction: Prediction) -> Any:
    """The program's and its components' models over the sizes predicted (``predict --plot`` and the page)."""
    xs = [p.point[prediction.size] for p in prediction.points]
    return models_figure(_curves(prediction), (min(xs), max(xs)), fixed=dict(prediction.parameters),
                         title=prediction.title or prediction.program, points=_points(prediction), marks=xs)


def design_report(prediction: Prediction, *, commands: Sequence[str] = ()) -> Report:
    """The page of ``perfcompose predict``: the prediction as computed, with measurements where given."""
    model, fixed = prediction.model, prediction.parameters
    program, title, warnings = prediction.program, prediction.title, prediction.warnings
    unit = model.unit
    preds = list(prediction.points)
    last = preds[-1]
    tree = term_tree(prediction.tree, hot=(program, *last.bottleneck), unit=unit)
    fig = figure(prediction_figure(prediction), "program and components per data element",
                 "bold: the composed program (shaded: its 90 % interval where the model has one); dashed: "
                 "each component; dots: the sizes asked for; rings: measurements")
    blocks_pred: list[Any] = [prediction_table(prediction, page=True).block(), fig]
    if prediction.measured is not None and prediction.measured.x:
        blocks_pred.insert(1, measured_table(prediction.measured, unit))
    summary = (("program", program), ("model", f"{short_model(model, 5)}  [{unit or 'no unit'}]"),
               ("pipeline max", prediction.pipe),
               *((("parameters", point_text(dict(fixed))),) if fixed else ()),
               ("largest x", f"{size(last.point['x'])}: {human(last.value, unit, 5)}"
                + (f" (90 % interval {human_interval(last.low, last.high, unit)})"
                   if last.low is not None and last.high is not None else "")),
               ("bottleneck there", " > ".join(last.bottleneck) or "-"),
               ("cores", prediction.cores_text))
    program_blocks: list[Any] = [Tree(f"term, each part's time per element by the operators at "
                                      f"{point_text(dict(last.point))}; the bottleneck path is marked", tree)]
    plain = prediction.operators
    by_operators = float(np.asarray(plain(**{p: last.point[p] for p in plain.params})))
    if abs(by_operators - last.value) > 1e-6 * abs(last.value):
        program_blocks.append(Text(f"The prediction at this size, {human(last.value, unit, 5)}, differs from the "
                                   f"operators' {human(by_operators, unit, 5)}: it also counts the workers "
                                   f"sharing this machine's {prediction.cores} cores."))
    sections = [
        Section("Program", tuple(program_blocks)),
        Section("Components", (components_table(prediction.parts, unit),)),
        Section("Composed model", (Text(f"{model}  [{unit or 'no unit'}]", code=True),
                                   Text(f"pipeline max: {prediction.pipe}; order in x: {prediction.order}"),
                                   *(Text("warning: " + w) for w in warnings))),
        Section("Predictions", tuple(blocks_pred)),
    ]
    return Report(title or program, "design prediction", tuple(sections), summary, tuple(commands))
