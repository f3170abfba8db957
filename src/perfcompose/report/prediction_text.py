"""``predict`` on the console: the composed model, each component's time, and per size the
prediction with its interval and bottleneck, all read from a
:class:`perfcompose.prediction_result.Prediction`."""
from __future__ import annotations

import numpy as np
from rich.console import Console
from rich.markup import escape

from perfcompose.prediction_result import PointPrediction, Prediction
from perfcompose.report.numbers import size
from perfcompose.report.tables import ResultTable as Table
from perfcompose.units import human, human_interval

__all__ = ["print_prediction", "print_prediction_notes"]


def _shown(points: tuple[PointPrediction, ...]) -> list[PointPrediction]:
    """At most four of the points, spread over the range, for the components' table."""
    if len(points) <= 4:
        return list(points)
    return [points[k] for k in np.linspace(0, len(points) - 1, 4).round().astype(int)]


def components_table(prediction: Prediction) -> Table:
    """Each component's model and its time at (at most four of) the sizes, as predicted."""
    unit = prediction.unit
    shown = _shown(prediction.points)
    parts = Table(title="components, time per data element" + ("" if unit else " \\[no unit]"),
                  title_justify="left")
    columns = ("component", "source", f"model \\[{unit or 'no unit'}]",
               *(f"x={size(p.point[prediction.size])}" for p in shown))
    for k, col in enumerate(columns):
        parts.add_column(col, justify="right" if col.startswith("x=") else "left",
                         optional={1: 1, 3: 3, 4: 2, 5: 2}.get(k, False))
    for k, part in enumerate(prediction.parts):
        leaf = part.model
        parts.add_row(part.name, part.source or "-", str(leaf.rounded(6)) if not leaf.is_numeric else str(leaf),
                      *(human(p.components[k].value, unit) for p in shown))
    return parts


def prediction_table(prediction: Prediction, page: bool = False) -> Table:
    """Per size the predicted time, its interval where known, the pointwise max and the bottleneck;
    on the report's page (``page``) the interval's ends in columns of their own."""
    unit, fixed = prediction.unit, prediction.parameters
    at = f" at {', '.join(f'{k}={size(v)}' for k, v in fixed.items())}" if fixed and not page else ""
    banded = any(p.low is not None for p in prediction.points)
    interval = f"{100 * prediction.level:g} % interval"
    numbers = ["x", ("predicted" if page else "time") + ("" if unit else " \\[no unit]"),
               *(([f"{interval} low", "high"] if page else [interval]) * banded),
               *(["pointwise max"] if prediction.exact is not None else [])]
    table = Table(*numbers, "bottleneck", title="predicted time per data element" + at, right=range(len(numbers)))
    for p in prediction.points:
        row = [size(p.point[prediction.size]), human(p.value, unit, 5)]
        if banded and page:
            row += [human(p.low, unit), human(p.high, unit)]
        elif banded:
            row.append(human_interval(p.low, p.high, unit) if p.low is not None and p.high is not None else "-")
        if prediction.exact is not None:
            row.append(human(p.exact, unit, 5))
        table.add_row(*row, " > ".join(p.bottleneck) or "-")
    return table


def print_prediction_notes(notes: tuple[str, ...] | list[str], err: Console) -> None:
    """What the design file left to defaults or kept symbolic, one note a line."""
    for note in notes:
        err.print(f"[cyan]note:[/cyan] {escape(note)}", highlight=False, soft_wrap=True)


def print_prediction(prediction: Prediction, out: Console, err: Console) -> None:
    """The prediction as ``predict`` prints it: notes and warnings on ``err``, the rest on ``out``."""
    print_prediction_notes(prediction.notes, err)
    if prediction.shared_cores is not None:
        err.print(f"[yellow]warning:[/yellow] {prediction.shared_cores}", highlight=False)
    model = prediction.model
    unit = model.unit or "no unit"
    out.print(f"[bold]{escape(prediction.title or prediction.program)}[/bold]", highlight=False)
    out.out(f"model: {prediction.operators.rounded(6)}  [{unit}]", highlight=False)
    if str(model) != str(prediction.operators):  # the floor of the cores changed the prediction
        out.out(f"with the workers sharing this machine's {prediction.cores} cores: {model.rounded(6)}  [{unit}]",
                highlight=False)
    out.out(f"order in x: {prediction.order}; pipeline max: {prediction.pipe}", highlight=False)
    out.out(f"cores: {prediction.cores_text}", highlight=False)
    out.print(components_table(prediction))
    out.print(prediction_table(prediction))
    for w in prediction.warnings:
        err.print(f"[yellow]warning:[/yellow] {w}", highlight=False)
