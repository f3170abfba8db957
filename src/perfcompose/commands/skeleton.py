"""``perfcompose skeleton``: forecasts of T(n,p) for algorithmic skeletons (paper 001)."""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from perfcompose.choices import Direction, ForecastMethod, SkeletonKind, Strategy
from perfcompose.commands.common import Table, console, fmt, user_errors
from perfcompose.errors import InputError

if TYPE_CHECKING:
    from perfcompose.skeleton import Estimate, Skeleton

app = typer.Typer(no_args_is_help=True,
                  help="Skeleton-based estimation: forecast T(n,p) in n and p, penalty and serial fraction.")


def _parse_at(text: str) -> tuple[float, int]:
    from perfcompose.assignments import parse_point

    values = parse_point(text, option="--at", positive=True)
    if set(values) != {"n", "p"}:
        raise InputError(f"--at {text!r} needs both n and p, and nothing else", hint="for example --at n=120,p=7")
    if not values["p"].is_integer():
        raise InputError(f"--at {text!r}: p must be a whole number", hint="for example --at n=120,p=7")
    return values["n"], int(values["p"])


def _skeleton(kind: str, r: int, d: int, k: int) -> Skeleton:
    from perfcompose.skeleton import Skeleton

    return Skeleton(kind, r=r, d=d, k=k)


@app.command()
@user_errors
def forecast(table_file: Path = typer.Argument(..., metavar="TABLE.csv",
                                               help="Runtimes: n,p,time rows, or n,seq,1,2,... columns."),
             at: str = typer.Option(..., "--at", help="Where to forecast, e.g. n=120,p=7."),
             skeleton: SkeletonKind = typer.Option("general", "--skeleton", help="The skeleton (general: eq. *)."),
             method: ForecastMethod = typer.Option("auto", "--method", help="Forecast method for both parts "
                                                   "(override with --method-t / --method-a)."),
             method_t: ForecastMethod | None = typer.Option(None, "--method-t", help="Method for T(n)."),
             method_a: ForecastMethod | None = typer.Option(None, "--method-a",
                                                               help="Method for the penalty Ā(n,p)."),
             direction: Direction = typer.Option("auto", "--direction", help="Forecast Ā w.r.t. n (p fixed), p (n "
                                                 "fixed), or auto."),
             epsilon: float = typer.Option(0.05, "--epsilon", min=0.0, help="Largest hold-out error accepted by "
                                           "--method auto (fraction)."),
             degree: int = typer.Option(3, "--degree", min=1, help="Degree of lm-poly."),
             strategy: Strategy = typer.Option("known", "--strategy", help="How --method auto chooses: against "
                                               "the known value nearest to the target (known), or the paper's "
                                               "real-life mean of the two (best-two) or three (best-three) "
                                               "methods best in training."),
             training: int = typer.Option(1, "--training", min=1, help="best-two/best-three: known values "
                                          "nearest to the target to train on."),
             train: str | None = typer.Option(None, "--train", help="Learn only from the points in this "
                                                 "window, e.g. 'n<=9689' or 'p<=196608' (conditions on n and p, "
                                                 "joined by commas); a measured target is still compared."),
             r: int = typer.Option(2, "--r", help="dc: branching degree."),
             d: int = typer.Option(1, "--d", help="dc: depth of the parallel expansion."),
             k: int = typer.Option(1, "--k", help="iteration: number of iterations."),
             plot: Path | None = typer.Option(Path("forecast.png"), "--plot", help="Plot of T(n) and Ā with "
                                                 "the forecast marked."),
             no_plot: bool = typer.Option(False, "--no-plot", help="Do not write the plot."),
             json_out: Path | None = typer.Option(None, "--json", help="Write the forecast here."),
             html: Path | None = typer.Option(None, "--html", help="Write a self-contained HTML report here."),
             ) -> None:
    """Forecast T(n,p) = T(n)/p + Ā(n,p): each part by its own method, a measured target left out."""
    from perfcompose.skeleton import SkeletonSource, estimate, read_table
    from perfcompose.skeleton.window import Window

    n, p = _parse_at(at)
    table = read_table(table_file)
    window = Window.parse(train) if train is not None else None
    options: dict[str, Any] = dict(method_t=method_t or method, method_a=method_a or method, direction=direction,
                                   epsilon=epsilon, poly_degree=degree, strategy=strategy, training=training)
    est = estimate(table, n, p, skeleton=_skeleton(skeleton, r, d, k), train=window, **options)
    source = SkeletonSource(table, est.skeleton, train=str(window) if window else None, **options)
    ref = "absolute (sequential T(n))" if est.absolute else "relative (T(n, 1))"
    # a measured target is left out of the interval's columns too, as it is of every fit
    bounds = _interval(source.on(table.without(n, p)) if est.measured is not None else source, n, p)
    interval = "" if bounds is None else f" [{bounds[0]:.4g}, {bounds[1]:.4g}] (90 % jackknife+ interval)"
    console.print(f"[bold]T({n:g}, {p}) = {est.value:.6g} s[/bold]{interval}  "
                  f"({est.skeleton.name}; reference point {ref}" + (f"; learnt from {window} only" if window else "")
                  + ")")
    shown = [_parts_table(est), *_holdout_tables(est)]
    for t in shown:
        console.print(t)
    if est.measured is not None:
        console.print(f"measured T({n:g}, {p}) = {est.measured:.6g} s (left out of every fit): relative error "
                      f"{100 * (est.error or 0):+.3g} %")
    if json_out:
        json_out.write_text(json.dumps({**source.forecast_record(est), "interval": bounds}, indent=1))
        console.print(f"written to {json_out}")
    if plot and not no_plot:
        from perfcompose.report.forecast import plot_estimate

        plot_estimate(table, est, plot, bounds)
        console.print(f"plot written to {plot}")
    if html:
        _forecast_html(html, f"skeleton forecast T({n:g}, {p}) from {table_file}", table, est, shown, ref,
                       bounds)


def _interval(source: Any, n: float, p: int) -> tuple[float, float] | None:
    """The 90 % jackknife+ interval of the forecast at (n, p), or None where the table's columns
    cannot be left out and forecast (see perfcompose.skeleton.jackknife)."""
    from perfcompose.errors import PerfcomposeError

    try:
        bounds = source.model(interval=True).interval(n=n, p=p)
    except PerfcomposeError:
        return None
    return None if bounds is None else (float(bounds[0]), float(bounds[1]))


def _parts_table(est: Estimate) -> Table:
    """The forecast's share and its two parts, each with the method that forecast it."""
    parts = Table(title="the two parts", title_justify="left")
    for col in ("part", "value [s]", "method", "w.r.t.", "from points", "why"):
        parts.add_column(col)
    parts.add_row("T(n)/p share" if est.skeleton.kind != "farm" else "T(n/p) share", fmt(est.share, ".6g"),
                  "", "", "", "")
    for part in (est.sequential, est.penalty):
        pts = ", ".join(f"{v:g}" for v in part.x) if part.x else "-"
        parts.add_row(part.what, fmt(part.value, ".6g"), part.method, part.direction, pts, part.rule)
    return parts


def _holdout_tables(est: Estimate) -> list[Table]:
    """Per part that compared methods: each method's hold-out error, and the methods discarded."""
    tables = []
    for part in (est.sequential, est.penalty):
        if part.errors or part.discarded:
            t = Table(title=f"hold-out errors for {part.what}: the known point nearest to the target "
                            f"({part.what[0]} at {part.direction} = "
                            f"{_nearest(part):g}) predicted from the others", title_justify="left")
            t.add_column("method")
            t.add_column("relative error %", justify="right")
            for name, e in sorted(part.errors.items(), key=lambda kv: abs(kv[1])):
                t.add_row(name, f"{100 * e:+.3g}")
            for name, why in part.discarded.items():
                t.add_row(name, f"discarded: {why}")
            tables.append(t)
    return tables


def _forecast_html(html: Path, title: str, table: Any, est: Estimate, shown: list[Table], ref: str,
                   bounds: tuple[float, float] | None) -> None:
    from perfcompose.commands.reports import tables_html
    from perfcompose.report.forecast import plot_estimate

    measured = ([("measured (left out of every fit)", f"{est.measured:.6g} s, forecast error "
                  f"{100 * (est.error or 0):+.3g} %")] if est.measured is not None else [])
    interval = [] if bounds is None else [("90 % jackknife+ interval", f"{bounds[0]:.4g} .. {bounds[1]:.4g} s")]
    tables_html(html, title, "skeleton forecast", shown,
                plots=[("T(n) and the penalty, each with its forecast marked",
                        lambda path: plot_estimate(table, est, path, bounds))],
                summary=[(f"T({est.n:g}, {est.p})", f"{est.value:.6g} s"), *interval, ("skeleton", est.skeleton.name),
                         ("reference point", ref), *measured])


def _nearest(part: Any) -> float:
    x = sorted(part.x, key=lambda v: abs(v - part.at))
    return x[0] if x else math.nan


@app.command()
@user_errors
def quality(table_file: Path = typer.Argument(..., metavar="TABLE.csv", help="Runtimes (see forecast)."),
            json_out: Path | None = typer.Option(None, "--json", help="Write the rows here."),
            ) -> None:
    """Penalty Ā(n,p) and Karp-Flatt serial fraction f(n,p) per p: constant is good, growing is not."""
    from perfcompose.skeleton import quality as quality_rows
    from perfcompose.skeleton import read_table

    table = read_table(table_file)
    rows = quality_rows(table)
    ref = "T(n)" if table.absolute else "T(n, 1)"
    for n in sorted({r.n for r in rows}):
        t = Table(title=f"n = {n:g} (reference {ref} = {table.sequential(n):.6g} s)", title_justify="left")
        for col in ("p", "T(n,p) [s]", "speedup", "Ā(n,p) [s]", "f(n,p)"):
            t.add_column(col, justify="right")
        for r in (r for r in rows if r.n == n):
            t.add_row(str(r.p), fmt(r.time, ".6g"), fmt(r.speedup, ".3f"), fmt(r.penalty, ".4g"),
                      fmt(r.serial_fraction, ".4g"))
        console.print(t)
    if json_out:
        json_out.write_text(json.dumps([r.__dict__ for r in rows], indent=1))
        console.print(f"written to {json_out}")
