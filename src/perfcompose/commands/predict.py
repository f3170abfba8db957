"""``predict``: a designed program's composed model, each component's share, and the bottleneck."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from perfcompose.choices import PipeRule
from perfcompose.commands.common import Table, console, err_console, html_option, json_option, user_errors, write_json
from perfcompose.commands.components import PIPE_HELP, order_text, parameter_values, x_values
from perfcompose.report.numbers import sig, size


def _shown(points: list[Any]) -> list[Any]:
    """At most four of the points, spread over the range, for the components' table."""
    import numpy as np

    return points if len(points) <= 4 else [points[k] for k in np.linspace(0, len(points) - 1, 4).round().astype(int)]


def _components_table(prediction: Any, unit: str) -> Table:
    """Each component's model and its time at (at most four of) the sizes, as predicted."""
    size_name = prediction.composer.size
    shown = _shown(list(prediction.points))
    parts = Table(title=f"components, time per data element \\[{unit}]", title_justify="left")
    for k, col in enumerate(("component", "source", "model", *(f"x={size(p.point[size_name])}" for p in shown))):
        parts.add_column(col, justify="right" if col.startswith("x=") else "left",
                         optional={1: 1, 3: 3, 4: 2, 5: 2}.get(k, False))
    for k, name in enumerate(prediction.components):
        leaf = prediction.leaf(name)
        parts.add_row(name, leaf.source or "-", str(leaf.rounded(6)) if not leaf.is_numeric else str(leaf),
                      *(sig(p.components[k].value) for p in shown))
    return parts


def _prediction_table(prediction: Any) -> Table:
    from perfcompose.commands.intervals import LEVEL_TEXT

    size_name = prediction.composer.size
    unit = prediction.unit or "no unit"
    fixed = prediction.parameters
    at = f" at {', '.join(f'{k}={size(v)}' for k, v in fixed.items())}" if fixed else ""
    table = Table(title="predicted time per data element" + at, title_justify="left")
    table.add_column("x", justify="right")
    table.add_column(f"time \\[{unit}]", justify="right")
    banded = any(p.low is not None for p in prediction.points)
    if banded:
        table.add_column(LEVEL_TEXT, justify="right")
    if prediction.exact is not None:
        table.add_column(f"pointwise max \\[{unit}]", justify="right")
    table.add_column("bottleneck")
    for p in prediction.points:
        row = [size(p.point[size_name]), sig(p.value, 5)]
        if banded:
            row.append(f"{p.low:.4g} .. {p.high:.4g}" if p.low is not None else "-")
        if prediction.exact is not None:
            row.append(sig(p.exact, 5))
        table.add_row(*row, " > ".join(p.bottleneck) or "-")
    return table


def _plot(design: Any, composer: Any, model: Any, xs: list[float], fixed: dict[str, float],
          seen: list[Any], seen_label: str, plot: Path) -> None:
    from perfcompose.compose import Component
    from perfcompose.report import plot_models
    from perfcompose.report.design import component_points

    used = design.program.components()
    curves = [(f"{design.program}", model)]
    curves += [(f"{name}: {composer.leaf(Component(name)).source}", composer.leaf(Component(name)))
               for name in used]
    pts = [(f"measured ({seen_label})", [m[0] for m in seen], [m[1] for m in seen])] if seen else []
    plot_models(curves, (min(xs), max(xs)), plot, fixed=fixed, title=design.title or str(design.program),
                points=pts + component_points(used, composer), marks=xs)
    console.print(f"plot written to {plot}")


@user_errors
def predict(design: Path = typer.Argument(..., help="Design file (TOML): program term and components."),
            x: list[str] = typer.Option([], "--x", help="Input sizes (or LO:HI); default: the design's."),
            param: list[str] = typer.Option([], "--param", "-p", help="Values for symbolic parameters: n=4."),
            pipe: PipeRule | None = typer.Option(None, "--pipe", help=PIPE_HELP + " Default: the design's "
                                                    "(pointwise unless it says otherwise)."),
            plot: Path | None = typer.Option(None, "--plot", help="Plot program and component models here."),
            json_out: Path | None = json_option("the prediction (per size the time, interval, bottleneck and "
                                                "each component's time; the composed model; each component's "
                                                "source record)"),
            measured: str | None = typer.Option(None, "--measured", help="Measurements of the program "
                                                   "(FILE[:REGION], over x) to set against the prediction."),
            html: Path | None = html_option(),
            ) -> None:
    from perfcompose.compose import Composer, load_design
    from perfcompose.compose.prediction import predict as run_prediction

    d = load_design(design)
    for note in d.notes:
        err_console.print(f"[cyan]note:[/cyan] {escape(note)}", highlight=False, soft_wrap=True)
    composer = Composer(d.components, pipe=pipe or d.pipe)  # type: ignore[arg-type]
    fixed = {**d.parameters, **parameter_values(param)}
    xs = x_values(x) if x else list(d.x)
    result = run_prediction(d.program, composer, xs, fixed, title=d.title, design=d.path)
    if result.oversubscription is not None:
        err_console.print(f"[yellow]warning:[/yellow] {result.oversubscription}", highlight=False)
    model = result.model
    unit = model.unit or "no unit"
    console.print(f"[bold]{escape(d.title or str(d.program))}[/bold]", highlight=False)
    print(f"model: {result.operators.rounded(6)}  [{unit}]")
    if str(model) != str(result.operators):
        print(f"with the workers sharing this machine's cores: {model.rounded(6)}  [{unit}]")
    print(f"order in x: {order_text(model)}; pipeline max: {composer.pipe}")
    console.print(_components_table(result, unit))
    console.print(_prediction_table(result))
    for w in result.warnings:
        err_console.print(f"[yellow]warning:[/yellow] {w}", highlight=False)
    if json_out:
        write_json(json_out, result.to_json(), "prediction", indent=2)
    from perfcompose.commands.reports import measured_series

    seen, seen_label = measured_series(measured, model.unit) if measured else ([], "")
    if plot:
        _plot(d, composer, model, xs, fixed, seen, seen_label, plot)
    if html:
        from perfcompose.commands.reports import predict_html

        predict_html(html, result, seen, seen_label)
