"""``predict``: a designed program's composed model, each component's share, and the bottleneck."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from perfcompose.choices import PipeRule
from perfcompose.commands.common import Table, console, err_console, user_errors
from perfcompose.commands.components import PIPE_HELP, order_text, parameter_values, x_values
from perfcompose.report.numbers import sig, size


def _shown(xs: list[float]) -> list[float]:
    """At most four of the sizes, spread over the range, for the components' table."""
    import numpy as np

    return xs if len(xs) <= 4 else [xs[k] for k in np.linspace(0, len(xs) - 1, 4).round().astype(int)]


def _components_table(composer: Any, used: list[str], xs: list[float], fixed: dict[str, float], unit: str) -> Table:
    import numpy as np

    from perfcompose.compose import Component

    shown = _shown(xs)
    parts = Table(title=f"components, time per data element \\[{unit}]", title_justify="left")
    for k, col in enumerate(("component", "source", "model", *(f"x={size(v)}" for v in shown))):
        parts.add_column(col, justify="right" if col.startswith("x=") else "left",
                         optional={1: 1, 3: 3, 4: 2, 5: 2}.get(k, False))
    for name in used:
        leaf = composer.leaf(Component(name))
        values = [float(np.asarray(leaf(**{p: v if p == "x" else fixed[p] for p in leaf.params}))) for v in shown]
        parts.add_row(name, leaf.source or "-", str(leaf.rounded(6)) if not leaf.is_numeric else str(leaf),
                      *(sig(v) for v in values))
    return parts


def _on_grid(model: Any, grid: Any, fixed: dict[str, float]) -> Any:
    import numpy as np

    return np.broadcast_to(model(**{p: (grid if p == "x" else fixed[p]) for p in model.params}), grid.shape)


def _prediction_table(design: Any, composer: Any, model: Any, exact: Any, xs: list[float],
                      fixed: dict[str, float]) -> Table:
    import numpy as np

    from perfcompose.commands.intervals import LEVEL_TEXT, interval_cells
    from perfcompose.compose import bottleneck

    unit = model.unit or "no unit"
    at = f" at {', '.join(f'{k}={size(v)}' for k, v in fixed.items())}" if fixed else ""
    table = Table(title="predicted time per data element" + at, title_justify="left")
    table.add_column("x", justify="right")
    table.add_column(f"time \\[{unit}]", justify="right")
    if model.ensemble is not None:
        table.add_column(LEVEL_TEXT, justify="right")
    if exact is not None:
        table.add_column(f"pointwise max \\[{unit}]", justify="right")
    table.add_column("bottleneck")
    grid = np.asarray(xs, dtype=float)
    values = _on_grid(model, grid, fixed)
    exact_values = None if exact is None else _on_grid(exact, grid, fixed)
    cells = interval_cells(model, {p: (grid if p == "x" else fixed[p]) for p in model.params}, len(xs))
    for k, xv in enumerate(xs):
        path = bottleneck(design.program, composer, {"x": xv, **fixed})
        row = [size(xv), sig(values[k], 5), *([cells[k]] if cells else [])]
        if exact_values is not None:
            row.append(sig(exact_values[k], 5))
        table.add_row(*row, " > ".join(str(t) for t, _ in path[1:]) or "-")
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
            json_out: Path | None = typer.Option(None, "--json", help="Write the composed model as JSON here."),
            measured: str | None = typer.Option(None, "--measured", help="Measurements of the program "
                                                   "(FILE[:REGION], over x) to set against the prediction."),
            html: Path | None = typer.Option(None, "--html", help="Write a self-contained HTML report here."),
            ) -> None:
    """Predict a designed program: composed model, each component's share, and the bottleneck."""
    from perfcompose.commands.intervals import prediction
    from perfcompose.compose import Composer, load_design

    d = load_design(design)
    for note in d.notes:
        err_console.print(f"[cyan]note:[/cyan] {escape(note)}", highlight=False, soft_wrap=True)
    composer = Composer(d.components, pipe=pipe or d.pipe)  # type: ignore[arg-type]
    operators = composer(d.program)
    model = prediction(composer, d.program)
    fixed = {**d.parameters, **parameter_values(param)}
    missing = [p for p in model.params if p != "x" and p not in fixed]
    if missing:
        raise typer.BadParameter(f"the model keeps {', '.join(missing)} symbolic; give values with "
                                 f"--param {missing[0]}=4 or in [parameters]", param_hint="--param")
    xs = x_values(x) if x else list(d.x)
    unit = model.unit or "no unit"
    console.print(f"[bold]{d.title or d.program}[/bold]", highlight=False)
    print(f"model: {operators.rounded(6)}  [{unit}]")
    if str(model) != str(operators):
        print(f"with the workers sharing this machine's cores: {model.rounded(6)}  [{unit}]")
    print(f"order in x: {order_text(model)}; pipeline max: {composer.pipe}")
    console.print(_components_table(composer, d.program.components(), xs, fixed, unit))
    warnings = composer.pipe_warnings(d.program, [{"x": xv, **fixed} for xv in xs])
    exact = Composer(d.components, pipe="pointwise")(d.program) if warnings else None
    console.print(_prediction_table(d, composer, model, exact, xs, fixed))
    for w in warnings:
        err_console.print(f"[yellow]warning:[/yellow] {w}", highlight=False)
    if json_out:
        json_out.write_text(model.to_json_text() + "\n")
        console.print(f"model written to {json_out}")
    from perfcompose.commands.reports import measured_series

    seen, seen_label = measured_series(measured, model.unit) if measured else ([], "")
    if plot:
        _plot(d, composer, model, xs, fixed, seen, seen_label, plot)
    if html:
        from perfcompose.commands.reports import predict_html

        predict_html(html, d, composer, model, xs, fixed, exact, seen, seen_label, warnings)
