"""``perfcompose skeleton forecast``: T(n,p) of an algorithmic skeleton forecast from a runtime table
(paper 001), with its jackknife+ interval, hold-out errors, plot and HTML page."""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from perfcompose.assignments import parse_point
from perfcompose.choices import Direction, ForecastMethod, SkeletonKind, Strategy
from perfcompose.commands.common import Table, cli_command, console, fmt, json_option, shared_option, write_json
from perfcompose.commands.reports import tables_html
from perfcompose.ensemble import percentile_interval, time_bounds
from perfcompose.errors import InputError, PerfcomposeError
from perfcompose.option_fields import cli_option, option, shared
from perfcompose.report.forecast import plot_estimate
from perfcompose.skeleton import Estimate, Skeleton, SkeletonSource, estimate, read_table
from perfcompose.skeleton.window import Window
from perfcompose.skeleton_options import ForecastOptions, MethodChoice, SkeletonShape


def _parse_at(text: str) -> tuple[float, int]:
    values = parse_point(text, option="--at", positive=True)
    if set(values) != {"n", "p"}:
        raise InputError(f"--at {text!r} needs both n and p, and nothing else", hint="for example --at n=120,p=7")
    if not values["p"].is_integer():
        raise InputError(f"--at {text!r}: p must be a whole number", hint="for example --at n=120,p=7")
    return values["n"], int(values["p"])


@dataclass(frozen=True)
class ForecastCommand:
    """The options of ``perfcompose skeleton forecast``: the skeleton's and the forecast's are
    :mod:`perfcompose.skeleton_options`' (--method-t and --method-a left out take --method's)."""

    table_file: Path = option(..., "Runtimes: n,p,time rows, or n,seq,1,2,... columns.", argument=True,
                              metavar="TABLE.csv")
    at: str = option(..., "Where to forecast, e.g. n=120,p=7.")
    skeleton: SkeletonKind = shared(cli_option(SkeletonShape, "kind"))
    method: ForecastMethod = shared(cli_option(MethodChoice, "method"))
    method_t: ForecastMethod | None = shared(cli_option(ForecastOptions, "method_t", default=None,
                                                        show_default="--method"))
    method_a: ForecastMethod | None = shared(cli_option(ForecastOptions, "method_a", default=None,
                                                        show_default="--method"))
    direction: Direction = shared(cli_option(ForecastOptions, "direction"))
    epsilon: float = shared(cli_option(ForecastOptions, "epsilon"))
    degree: int = shared(cli_option(ForecastOptions, "poly_degree"))
    strategy: Strategy = shared(cli_option(ForecastOptions, "strategy"))
    training: int = shared(cli_option(ForecastOptions, "training"))
    train: str | None = shared(cli_option(ForecastOptions, "train"))
    r: int = shared(cli_option(SkeletonShape, "r"))
    d: int = shared(cli_option(SkeletonShape, "d"))
    k: int = shared(cli_option(SkeletonShape, "k"))
    plot: Path | None = option(Path("forecast.png"), "Plot of T(n) and Ā with the forecast marked.")
    no_plot: bool = shared_option("no_plot")
    json_out: Path | None = shared(json_option("the forecast and the model record that recomputes it"))
    html: Path | None = shared_option("html")


@cli_command(ForecastCommand)
def forecast(o: ForecastCommand) -> None:
    n, p = _parse_at(o.at)
    table = read_table(o.table_file)
    window = Window.parse(o.train) if o.train is not None else None
    options: dict[str, Any] = dict(method_t=o.method_t or o.method, method_a=o.method_a or o.method,
                                   direction=o.direction, epsilon=o.epsilon, poly_degree=o.degree,
                                   strategy=o.strategy, training=o.training)
    est = estimate(table, n, p, skeleton=Skeleton(o.skeleton, r=o.r, d=o.d, k=o.k), train=window, **options)
    source = SkeletonSource(table, est.skeleton, train=str(window) if window else None, **options)
    ref = "absolute (sequential T(n))" if est.absolute else "relative (T(n, 1))"
    # a measured target is left out of the interval's columns too, as it is of every fit
    band = _interval(source.on(table.without_all([(n, p)])) if est.measured is not None else source, n, p, est.value)
    bounds = None if band is None else (band.low, band.high)
    interval = "" if band is None else f" [{band.low:.4g}, {band.high:.4g}] ({band.describe()})"
    console.print(f"[bold]T({n:g}, {p}) = {est.value:.6g} {source.unit}[/bold]{interval}  "
                  f"({est.skeleton.name}; reference point {ref}" + (f"; learnt from {window} only" if window else "")
                  + ")")
    shown = [_parts_table(est), *_holdout_tables(est)]
    for t in shown:
        console.print(t)
    if est.measured is not None:
        console.print(f"measured T({n:g}, {p}) = {est.measured:.6g} s (left out of every fit): relative error "
                      f"{100 * (est.error or 0):+.3g} %")
    if o.json_out:
        write_json(o.json_out, {**source.forecast_record(est), "interval": bounds,
                                "interval_trusted": None if band is None else band.doubt is None,
                                "interval_doubt": None if band is None else band.doubt}, "forecast")
    if o.plot and not o.no_plot:
        plot_estimate(table, est, o.plot, bounds)
        console.print(f"plot written to {o.plot}")
    if o.html:
        _forecast_html(o.html, f"skeleton forecast T({n:g}, {p}) from {o.table_file}", table, est, shown, ref,
                       band)


#: rebuilt forecasts spanning more than this factor make an interval not to be trusted
WIDE = 10.0


@dataclass(frozen=True)
class Band:
    """The interval of a forecast as reported (never below zero, holding the forecast) and, where
    the forecasts it is read from cannot be trusted, why."""

    low: float
    high: float
    doubt: str | None

    def describe(self) -> str:
        head = "90 % jackknife+ interval"
        return head if self.doubt is None else f"{head}, not to be trusted: {self.doubt}"


def _interval(source: Any, n: float, p: int, value: float) -> Band | None:
    """The 90 % jackknife+ interval of the forecast ``value`` at (n, p), or None where the
    table's columns cannot be left out and forecast (see perfcompose.skeleton.jackknife).

    The interval is read off forecasts rebuilt without a column of the table; where some of them
    are no time (zero or below), where they all lie on one side of the forecast, or where they
    span more than a factor of :data:`WIDE`, the methods disagree and the interval says so."""
    try:
        ensemble = source.model(interval=True).ensemble
        members = None if ensemble is None else np.asarray(ensemble.members(n=n, p=p), dtype=float).ravel()
    except PerfcomposeError:
        return None
    if members is None or members.size == 0:
        return None
    low, high = (float(b) for b in percentile_interval(members))
    doubts = []
    bad = int(np.count_nonzero(~(np.isfinite(members) & (members > 0))))
    if bad:
        doubts.append(f"{bad} of the {members.size} forecasts rebuilt without a column of the table are zero or "
                      "negative (the methods disagree)")
    if not low <= value <= high:
        doubts.append("the forecasts rebuilt without a column of the table all lie on one side of it")
    elif low > 0 and high > WIDE * low:
        doubts.append(f"the forecasts rebuilt without a column of the table span a factor of {high / low:.3g}")
    lo, hi = time_bounds(value, low, high)
    return Band(lo, hi, "; ".join(doubts) or None)


def _parts_table(est: Estimate) -> Table:
    """The forecast's share and its two parts, each with the method that forecast it."""
    parts = Table("part", "value [s]", "method", "w.r.t.", "from points", "why", title="the two parts")
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
            t = Table("method", title=f"hold-out errors for {part.what}: the known point nearest to the target "
                      f"({part.what[0]} at {part.direction} = {_nearest(part):g}) predicted from the others")
            t.add_column("relative error %", justify="right")
            for name, e in sorted(part.errors.items(), key=lambda kv: abs(kv[1])):
                t.add_row(name, f"{100 * e:+.3g}")
            for name, why in part.discarded.items():
                t.add_row(name, f"discarded: {why}")
            tables.append(t)
    return tables


def _forecast_html(html: Path, title: str, table: Any, est: Estimate, shown: list[Table], ref: str,
                   band: Band | None) -> None:
    measured = ([("measured (left out of every fit)", f"{est.measured:.6g} s, forecast error "
                  f"{100 * (est.error or 0):+.3g} %")] if est.measured is not None else [])
    bounds = None if band is None else (band.low, band.high)
    interval = [] if band is None else [(band.describe(), f"{band.low:.4g} .. {band.high:.4g} s")]
    tables_html(html, title, "skeleton forecast", shown,
                plots=[("T(n) and the penalty, each with its forecast marked",
                        lambda path: plot_estimate(table, est, path, bounds))],
                summary=[(f"T({est.n:g}, {est.p})", f"{est.value:.6g} s"), *interval, ("skeleton", est.skeleton.name),
                         ("reference point", ref), *measured])


def _nearest(part: Any) -> float:
    return min(part.x, key=lambda v: abs(v - part.at), default=math.nan)
