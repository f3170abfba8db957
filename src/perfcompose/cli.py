"""The ``perfcompose`` command: one subcommand per job.

Every :class:`~perfcompose.errors.PerfcomposeError` is printed as one message and the command
exits with status 2; no traceback reaches the user.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import typer
from perfcompose.commands.common import Table

from perfcompose import __version__

from perfcompose.commands import loggp as _loggp_commands
from perfcompose.commands import mapreduce as _mapreduce_commands
from perfcompose.commands import pamela as _pamela_commands
from perfcompose.commands import paper as _paper_commands
from perfcompose.commands import skeleton as _skeleton_commands
from perfcompose.commands.common import console, err_console
from perfcompose.commands.common import fmt as _fmt
from perfcompose.commands.common import one_bar as _one_bar
from perfcompose.commands.common import progress as _progress
from perfcompose.commands.common import bar_after as _bar_after
from perfcompose.choices import NEGATIVE_EXPONENTS, Aggregate, NegativeExponents
from perfcompose.commands.common import user_errors as _user_errors
from perfcompose.report.numbers import sig as _sig
from perfcompose.report.numbers import size as _size

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="Predict how fast a parallel program will run, from performance models of its parts.")
app.add_typer(_pamela_commands.app, name="pamela")
app.add_typer(_loggp_commands.app, name="loggp")
app.add_typer(_skeleton_commands.app, name="skeleton")


def _version(value: bool) -> None:
    if value:
        console.print(f"perfcompose {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit."),
          max_memory: str = typer.Option("2GiB", "--max-memory", help="Refuse work estimated to need more memory."),
          max_steps: float = typer.Option(1e9, "--max-steps", help="Refuse work estimated to take more steps "
                                          "(simulated events, loop iterations, grid visits)."),
          no_limits: bool = typer.Option(False, "--no-limits", help="Lift both limits.")) -> None:
    """perfcompose: performance models of parts composed into the model of the whole."""
    from perfcompose.limits import parse_bytes, set_limits

    try:
        set_limits(parse_bytes(max_memory), max_steps, unlimited=no_limits)
    except Exception as exc:
        raise typer.BadParameter(str(exc), param_hint="--max-memory") from None


@app.command()
@_user_errors
def show(file: Path = typer.Argument(..., help="Experiment file (perfcompose JSON, CSV, Extra-P text, JSON, "
                                                   "JSON Lines, Talpas) or a directory of CUBE4 profiles."),
         fmt: Optional[str] = typer.Option(None, "--format", help="Input format if detection guesses wrong."),
         ) -> None:
    """Show an experiment: parameters, points, repetitions, median and coefficient of variation."""
    from perfcompose.data import load
    from perfcompose.data.experiment import describe

    exp = load(file, fmt)
    console.print(f"[bold]{file}[/bold]: parameters {', '.join(exp.parameters)}; "
                  f"{len(exp.series)} series")
    for s in exp.series:
        table = Table(title=f"{s.label} [{s.unit}]", title_justify="left")
        table.add_column("point")
        table.add_column("reps", justify="right")
        table.add_column("median", justify="right")
        table.add_column("CV %", justify="right")
        for p in s.points:
            cv = p.cv * 100
            style = "yellow" if cv > 10 else None
            table.add_row(describe(exp.parameters, p.coordinate), str(len(p.values)), _fmt(p.median),
                          f"[{style}]{cv:.2f}[/{style}]" if style else f"{cv:.2f}")
        console.print(table)


@app.command()
@_user_errors
def convert(source: Path = typer.Argument(..., help="Experiment file to read."),
            target: Path = typer.Argument(..., help="File to write; the extension picks the format."),
            to: Optional[str] = typer.Option(None, "--to", help="Output format: perfcompose, csv, extrap-text, "
                                                                  "extrap-json (default: from the extension)."),
            fmt: Optional[str] = typer.Option(None, "--from", help="Input format if detection guesses wrong."),
            ) -> None:
    """Convert an experiment between perfcompose JSON, CSV, Extra-P text and Extra-P JSON."""
    from perfcompose.data import load, save

    exp = load(source, fmt)
    written = save(exp, target, to)
    n = sum(len(s.points) for s in exp.series)
    console.print(f"wrote {target} ({written}): {len(exp.series)} series, {n} points")


@app.command()
@_user_errors
def fit(file: Path = typer.Argument(..., help="Experiment file."),
        metric: Optional[str] = typer.Option(None, "--metric", help="Fit only this metric."),
        region: Optional[str] = typer.Option(None, "--region", help="Fit only this region (call path)."),
        aggregate: Aggregate = typer.Option("median", "--aggregate", help="How repetitions are combined."),
        max_terms: int = typer.Option(2, "--max-terms", help="Terms besides the constant (1 or 2)."),
        negative_exponents: NegativeExponents = typer.Option(
            "auto", "--negative-exponents", help="Also try x^-i*log2(x)^-j (strong scaling): auto where the "
                                                 "values fall as a parameter grows, yes always, no never."),
        segmented: bool = typer.Option(False, "--segmented",
                                       help="Also try a two-piece model split at a breakpoint between measured "
                                            "points (one parameter); kept only when clearly better."),
        advise: bool = typer.Option(False, "--advise",
                                    help="Suggest the next points to measure: where the best hypotheses "
                                         "disagree most, in noise widths."),
        extend: float = typer.Option(4.0, "--extend", help="With --advise: consider points up to this factor "
                                                           "beyond the largest measured value."),
        json_out: Optional[Path] = typer.Option(None, "--json", help="Write the models as JSON here."),
        plot: Optional[Path] = typer.Option(None, "--plot", help="Plot measurements and models to this PNG."),
        html: Optional[Path] = typer.Option(None, "--html", help="Write a self-contained HTML report here."),
        ) -> None:
    """Fit a PMNF model c0 + sum c*x^i*log2(x)^j to every region x metric of an experiment."""
    from perfcompose.data import load
    from perfcompose.fit import PMNFFitter, SegmentedFitter, advise_series

    if extend < 1:
        raise typer.BadParameter(f"{extend}; a factor of at least 1", param_hint="--extend")
    exp = load(file, metric=metric)
    pmnf = PMNFFitter(aggregate=aggregate, max_terms=max_terms,
                      allow_negative_exponents=NEGATIVE_EXPONENTS[negative_exponents])
    if segmented and len(exp.parameters) != 1:
        raise typer.BadParameter(f"{file} has {len(exp.parameters)} parameters ({', '.join(exp.parameters)}); "
                                 "a segmented model splits along one", param_hint="--segmented")
    with _bar_after(_progress()) as step:
        if segmented:
            results = SegmentedFitter(pmnf).fit(exp, metric=metric, region=region, progress=step).results_
            fitted = [(r.region, r.metric, r.model, r.describe(), r.stats, r) for r in results]
        else:
            fits = pmnf.fit(exp, metric=metric, region=region, progress=step).results_
            fitted = [(r.region, r.metric, r.model, r.model.to_extrap(digits=6), r.stats, r) for r in fits]
    title = f"PMNF models of {file} ({aggregate} of repetitions)"
    table = Table(title=title + (", two-piece where clearly better" if segmented else ""), title_justify="left")
    units = sorted({m.unit or "no unit" for _, _, m, *_ in fitted})
    columns = [("region", "left"), ("metric", "left"), (f"model [{units[0]}]" if len(units) == 1 else "model", "left")]
    columns += [("breakpoint", "right")] if segmented else []
    columns += [("SMAPE %", "right"), ("adj. R²", "right"), ("CV error %", "right")]
    for col, just in columns:
        table.add_column(col, justify=just)  # type: ignore[arg-type]
    records = []
    for reg, met, model, text, stats, r in fitted:
        cells = [reg or "-", met, text]
        if segmented:
            cells.append(_fmt(r.breakpoint, ".6g") if r.segmented else "-")
        table.add_row(*cells, _fmt(stats["smape"], ".3f"), _fmt(stats["adj_r2"], ".5f"),
                      _fmt(stats["cv_error"], ".3f"))
        record = {"region": reg, "metric": met, "unit": model.unit, "model": model.to_json(), "text": text,
                  **{k: (v if v == v else None) for k, v in stats.items()}}
        if segmented:
            record["segmented"] = r.segmented
            record["breakpoint"] = r.breakpoint if r.segmented else None
        record["warnings"] = list(r.warnings)
        records.append(record)
    console.print(table)
    for reg, met, model, text, stats, r in fitted:
        for warning in r.warnings:
            err_console.print(f"[bold yellow]warning:[/bold yellow] {r.label}: {warning}", highlight=False)
    if advise:
        chosen = exp.select(metric, region) if (metric or region) else exp
        for series in chosen.series:
            suggestions = advise_series(exp.parameters, series, pmnf, extend=extend)
            console.print(f"[bold]next measurements for {series.label}[/bold]")
            if not suggestions:
                console.print("  the measurements already single out one hypothesis; no point would separate "
                              "others")
            for k, sug in enumerate(suggestions, 1):
                console.print(f"  {k}. {sug.reason()}")
    if json_out:
        json_out.write_text(json.dumps(records, indent=2) + "\n")
        console.print(f"models written to {json_out}")
    if plot:
        from perfcompose.report import plot_fits

        plot_fits(exp, [(reg, met, model) for reg, met, model, *_ in fitted], plot)
        console.print(f"plot written to {plot}")
    if html:
        from perfcompose.commands.reports import fit_html

        fit_html(html, exp, [(reg, met, model, text, stats) for reg, met, model, text, stats, _r in fitted], title)


# ---------------------------------------------------------------------------------------------
# composition

_COMPONENT_HELP = ("A component: NAME=EXPRESSION (e.g. qsort='1034.17*x*log2(x)'), NAME=MODEL.json (from fit --json, "
                   "pamela compile --json, skeleton forecast --json, loggp simulate --model-json), "
                   "NAME=MODEL.pam[:PROCESS] (PAMELA) or NAME=MEASUREMENTS[:REGION] (fitted here). Repeatable.")
_BIND_HELP = ("Bind a component's parameter to the design's: NAME.PARAM=VALUE, e.g. mrm.N=x or mrm.P=4 (a number, "
              "a parameter name or an expression). Repeatable.")
_UNIT_HELP = "Time unit of components whose source states none (expressions: default s; PAMELA models)."
_PIPE_HELP = "Pipeline max: pointwise (exact, never drops a stage) or asymptotic (the papers' eq. 3)."


def _components(specs: list[str], unit: str | None, binds: Sequence[str] = ()) -> dict[str, Any]:
    from perfcompose.compose import parse_component
    from perfcompose.compose.components import bind_model

    comps: dict[str, Any] = {}
    for spec in specs:
        name, model = parse_component(spec, unit=unit)
        if name in comps:
            raise typer.BadParameter(f"component '{name}' given twice", param_hint="-c")
        comps[name] = model
    bound: dict[str, dict[str, str]] = {}
    for text in binds:
        target, eq, value = text.partition("=")
        comp, dot, param = target.strip().partition(".")
        if not eq or not dot or not param or not value.strip():
            raise typer.BadParameter(f"{text!r}: write NAME.PARAM=VALUE, e.g. mrm.N=x", param_hint="--bind")
        if comp not in comps:
            raise typer.BadParameter(f"{text!r}: no component '{comp}' (components: {', '.join(comps) or 'none'})",
                                     param_hint="--bind")
        bound.setdefault(comp, {})[param] = value.strip()
    for comp, mapping in bound.items():
        model = comps[comp]
        kept = {p: p for p in model.params if p not in mapping}
        comps[comp] = bind_model(model, {**mapping, **kept}, comp)
    return comps


def _check_pipe(pipe: str) -> str:
    if pipe not in ("asymptotic", "pointwise"):
        raise typer.BadParameter(f"{pipe!r}; choose asymptotic or pointwise", param_hint="--pipe")
    return pipe


def _x_values(values: list[str]) -> list[float]:
    """``--x 1024 --x 65536``, ``--x 1024:262144`` (powers of two between, ends included) or lists."""
    from perfcompose.bench import parse_values

    out = [v for text in values for v in parse_values(text)]
    if any(not v > 0 for v in out):
        raise typer.BadParameter("sizes must be positive", param_hint="--x")
    return out


def _params(values: list[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    for v in values:
        name, _, num = v.partition("=")
        try:
            out[name.strip()] = float(num)
        except ValueError:
            raise typer.BadParameter(f"{v!r}: write NAME=NUMBER, e.g. n=4", param_hint="--param") from None
        if not (math.isfinite(out[name.strip()]) and out[name.strip()] > 0):
            raise typer.BadParameter(f"{v!r}: model parameters are positive finite numbers", param_hint="--param")
    return out


def _short(model: Any, digits: int = 4) -> str:
    """The model with its coefficients rounded to ``digits`` significant digits, for tables."""
    import sympy as sp

    from perfcompose.model import Model

    floats = {f: sp.Float(float(f"{float(f):.{digits}g}")) for f in model.expr.atoms(sp.Float)}
    return str(Model(model.expr.xreplace(floats)))


def _order_text(model: Any, size: str = "x") -> str:
    order = model.order(size)
    if order is None:
        return "not PMNF"
    return "O(1)" if (order.i, order.j) == (0, 0) else f"O({order})"


@app.command()
@_user_errors
def compose(term: str = typer.Argument(..., help="Program term, e.g. 'pipe(tpool_4(qsort), inc)'."),
            component: list[str] = typer.Option([], "-c", "--component", help=_COMPONENT_HELP),
            bind: list[str] = typer.Option([], "--bind", "-b", help=_BIND_HELP),
            unit: Optional[str] = typer.Option(None, "--unit", help=_UNIT_HELP),
            pipe: str = typer.Option("pointwise", "--pipe", help=_PIPE_HELP),
            json_out: bool = typer.Option(False, "--json", help="After the model line, print the model as JSON."),
            at: list[str] = typer.Option([], "--at", help="Also print the prediction with its 90 % interval at "
                                         "this point, e.g. --at x=65536 or --at x=65536,n=4 (repeatable)."),
            ) -> None:
    """Compose the model of a program from models of its components; the first line is the model."""
    from perfcompose.commands import intervals as _intervals
    from perfcompose.compose import Composer

    composer = Composer(_components(component, unit, bind), pipe=_check_pipe(pipe))  # type: ignore[arg-type]
    parsed = composer.parse(term, source="term")
    model = composer(parsed)
    print(str(model))
    if json_out:
        print(model.to_json_text())
    else:
        print(f"order in x: {_order_text(model)}; unit: {model.unit or 'none'}")
    if at:
        for line in _intervals.point_lines(_intervals.prediction(composer, parsed), _intervals.parse_points(at)):
            print(line)
    for choice in composer.pipe_choices(parsed):
        if choice.both:
            err_console.print(f"note: {choice.term}: no stage grows fastest in every parameter; both are kept "
                              "(exact max)", highlight=False)
        else:
            err_console.print(f"note: {choice.term}: the asymptotic max keeps {choice.kept} and drops "
                              f"{choice.dropped}, which may be the larger stage at the sizes that matter; --pipe pointwise "
                              "keeps both", highlight=False)


@app.command()
@_user_errors
def laws(stages: list[str] = typer.Argument(None, help="Stages to check the laws with (component names or "
                                            "terms); default: every component."),
         component: list[str] = typer.Option([], "-c", "--component", help=_COMPONENT_HELP),
         bind: list[str] = typer.Option([], "--bind", "-b", help=_BIND_HELP),
         unit: Optional[str] = typer.Option(None, "--unit", help=_UNIT_HELP),
         pipe: str = typer.Option("asymptotic", "--pipe", help="Pipeline max: asymptotic (the papers' algebra, "
                                  "default here) or pointwise."),
         x_range: str = typer.Option("1024:262144", "--x", help="Range LO:HI of x for numeric checks."),
         ) -> None:
    """Check the relational laws (i)-(iv) of 000 section 5.1 for the given stages."""
    from perfcompose.compose.laws import LAWS, check_laws

    comps = _components(component, unit, bind)
    if not comps:
        raise typer.BadParameter("give the components with -c NAME=MODEL", param_hint="-c")
    xs = _x_values([x_range])
    results = check_laws(comps, stages or None, pipe=_check_pipe(pipe), x_range=(min(xs), max(xs)))  # type: ignore[arg-type]
    table = Table(title=f"relational laws, pipe = {pipe} max, x in [{_size(min(xs))}, {_size(max(xs))}], "
                        "n in 1..64", title_justify="left")
    for col in ("law", "instance", "decided", "result"):
        table.add_column(col)
    for r in results:
        if r.held:
            verdict = "[green]holds[/green]" + (" (equal)" if r.relation == "=" else " (inequality)")
        else:
            where = ", ".join(f"{k}={_size(v)}" for k, v in (r.counterexample or {}).items())
            lv, rv = r.values or (math.nan, math.nan)
            verdict = f"[red]fails[/red] at {where}: {lv:.6g} vs {rv:.6g}"
        table.add_row(f"({r.law})", r.statement, r.method, verdict)
    console.print(table)
    for law, title in LAWS.items():
        mine = [r for r in results if r.law == law]
        failed = [r for r in mine if not r.held]
        how = "/".join(sorted({r.method for r in mine}))
        rel = "equality" if mine and mine[0].relation == "=" else "inequality"
        status = "[green]holds[/green]" if not failed else f"[red]fails in {len(failed)} of {len(mine)}[/red]"
        console.print(f"({law}) {title} ({rel}): {status} — {len(mine)} instances, decided {how}")


@app.command()
@_user_errors
def explore(term: str = typer.Argument(..., help="A pipeline term, e.g. 'pipe(qsort, inc, nop)'."),
            component: list[str] = typer.Option([], "-c", "--component", help=_COMPONENT_HELP),
            threads: int = typer.Option(..., "--threads", "-T", min=1, help="Thread budget."),
            x: list[str] = typer.Option(["65536"], "--x", help="Input sizes to compare at (or LO:HI)."),
            param: list[str] = typer.Option([], "--param", "-p", help="Values for symbolic counts: n=4."),
            bind: list[str] = typer.Option([], "--bind", "-b", help=_BIND_HELP),
            unit: Optional[str] = typer.Option(None, "--unit", help=_UNIT_HELP),
            ) -> None:
    """Best use of a thread budget: split over pipeline stages, or a task pool of the fused stages."""
    from perfcompose.compose import Composer, explore as run_explore

    composer = Composer(_components(component, unit, bind), pipe="pointwise")
    parsed = composer.parse(term, source="term")
    fixed = _params(param)
    for xv in _x_values(x):
        try:
            e = run_explore(parsed, composer.components, threads, {"x": xv, **fixed}, composer=composer)
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from None
        unit_s = composer.unit
        table = Table(title=f"x = {_size(xv)}, {threads} threads: stage times "
                      + ", ".join(f"{s} {_sig(t)}" for s, t in zip(e.stages, e.stage_times))
                      + f" [{unit_s}]; bottleneck: {e.stages[e.bottleneck]}", title_justify="left")
        for col, just in (("design", "left"), ("term", "left"), ("threads", "right"),
                          (f"time per element [{unit_s}]", "right"), ("vs best", "right")):
            table.add_column(col, justify=just, optional=col == "design")  # type: ignore[arg-type]
        from perfcompose.compose.oversubscription import account, machine_cores

        cores = machine_cores()
        over = {str(a.term): account(composer, a.term, composer(a.term), cores) for a in e.alternatives}
        if any(over.values()):
            table.add_column(f"on {cores} cores [{unit_s}]", justify="right")
        for a in e.alternatives:
            o = over[str(a.term)]
            extra = [] if not any(over.values()) else \
                ["-" if o is None else "cannot say" if o.model is None else
                 f"{float(o.model(**{p: {'x': xv, **fixed}[p] for p in o.model.params})):.5g}"]
            table.add_row(a.label, str(a.term), str(a.threads), f"{a.time:.5g}", f"{a.time / e.best.time:.2f}x", *extra)
        console.print(table)
        if any(over.values()):
            err_console.print(f"[yellow]warning:[/yellow] {sum(1 for o in over.values() if o)} designs start more "
                              f"workers than this machine's {cores} cores: the operators assume a core per worker; "
                              f"'on {cores} cores' is at least their total work divided by the cores", highlight=False)
        console.print(f"best split of {threads} threads over the stages: "
                      + ", ".join(f"{s}: {n}" for s, n in zip(e.stages, e.split)))


@app.command()
@_user_errors
def predict(design: Path = typer.Argument(..., help="Design file (TOML): program term and components."),
            x: list[str] = typer.Option([], "--x", help="Input sizes (or LO:HI); default: the design's."),
            param: list[str] = typer.Option([], "--param", "-p", help="Values for symbolic parameters: n=4."),
            pipe: Optional[str] = typer.Option(None, "--pipe", help=_PIPE_HELP + " Default: the design's "
                                               "(pointwise unless it says otherwise)."),
            plot: Optional[Path] = typer.Option(None, "--plot", help="Plot program and component models here."),
            json_out: Optional[Path] = typer.Option(None, "--json", help="Write the composed model as JSON here."),
            measured: Optional[str] = typer.Option(None, "--measured", help="Measurements of the program "
                                                   "(FILE[:REGION], over x) to set against the prediction."),
            html: Optional[Path] = typer.Option(None, "--html", help="Write a self-contained HTML report here."),
            ) -> None:
    """Predict a designed program: composed model, each component's share, and the bottleneck."""
    from perfcompose.compose import Component, Composer, bottleneck, load_design

    d = load_design(design)
    from perfcompose.commands.intervals import LEVEL_TEXT, interval_cells, prediction

    composer = Composer(d.components, pipe=_check_pipe(pipe or d.pipe))  # type: ignore[arg-type]
    operators = composer(d.program)
    model = prediction(composer, d.program)
    fixed = {**d.parameters, **_params(param)}
    missing = [p for p in model.params if p != "x" and p not in fixed]
    if missing:
        raise typer.BadParameter(f"the model keeps {', '.join(missing)} symbolic; give values with "
                                 f"--param {missing[0]}=4 or in [parameters]", param_hint="--param")
    xs = _x_values(x) if x else list(d.x)
    unit = model.unit or "no unit"
    console.print(f"[bold]{d.title or d.program}[/bold]", highlight=False)
    print(f"model: {_short(operators, 6)}  [{unit}]")
    if str(model) != str(operators):
        print(f"with the workers sharing this machine's cores: {_short(model, 6)}  [{unit}]")
    print(f"order in x: {_order_text(model)}; pipeline max: {composer.pipe}")
    import numpy as np

    used = d.program.components()
    shown = xs if len(xs) <= 4 else [xs[k] for k in np.linspace(0, len(xs) - 1, 4).round().astype(int)]
    parts = Table(title=f"components, time per data element \\[{unit}]", title_justify="left")
    for k, col in enumerate(("component", "source", "model", *(f"x={_size(v)}" for v in shown))):
        parts.add_column(col, justify="right" if col.startswith("x=") else "left",
                         optional={1: 1, 3: 3, 4: 2, 5: 2}.get(k, False))
    for name in used:
        leaf = composer.leaf(Component(name))
        values = [float(np.asarray(leaf(**{p: v if p == "x" else fixed[p] for p in leaf.params}))) for v in shown]
        parts.add_row(name, leaf.source or "-", _short(leaf, 6) if not leaf.is_numeric else str(leaf),
                      *(_sig(v) for v in values))
    console.print(parts)
    points = [{"x": xv, **fixed} for xv in xs]
    warnings = composer.pipe_warnings(d.program, points)
    exact = Composer(d.components, pipe="pointwise")(d.program) if warnings else None
    table = Table(title="predicted time per data element" + (f" at {', '.join(f'{k}={_size(v)}' for k, v in fixed.items())}"
                                                             if fixed else ""), title_justify="left")
    table.add_column("x", justify="right")
    table.add_column(f"time \\[{unit}]", justify="right")
    if model.ensemble is not None:
        table.add_column(LEVEL_TEXT, justify="right")
    if exact is not None:
        table.add_column(f"pointwise max \\[{unit}]", justify="right")
    table.add_column("bottleneck")
    grid = np.asarray(xs, dtype=float)
    values = np.broadcast_to(model(**{p: (grid if p == "x" else fixed[p]) for p in model.params}), grid.shape)
    exact_values = None if exact is None else \
        np.broadcast_to(exact(**{p: (grid if p == "x" else fixed[p]) for p in exact.params}), grid.shape)
    cells = interval_cells(model, {p: (grid if p == "x" else fixed[p]) for p in model.params}, len(xs))
    for k, point in enumerate(points):
        path = bottleneck(d.program, composer, point)
        row = [_size(xs[k]), _sig(values[k], 5), *([cells[k]] if cells else [])]
        if exact_values is not None:
            row.append(_sig(exact_values[k], 5))
        table.add_row(*row, " > ".join(str(t) for t, _ in path[1:]) or "-")
    console.print(table)
    for w in warnings:
        err_console.print(f"[yellow]warning:[/yellow] {w}", highlight=False)
    if json_out:
        json_out.write_text(model.to_json_text() + "\n")
        console.print(f"model written to {json_out}")
    from perfcompose.commands.reports import measured_series
    from perfcompose.report.design import component_points

    seen, seen_label = measured_series(measured, model.unit) if measured else ([], "")
    if plot:
        from perfcompose.report import plot_models

        curves = [(f"{d.program}", model)]
        curves += [(f"{name}: {composer.leaf(Component(name)).source}", composer.leaf(Component(name)))
                   for name in used]
        pts = [(f"measured ({seen_label})", [m[0] for m in seen], [m[1] for m in seen])] if seen else []
        plot_models(curves, (min(xs), max(xs)), plot, fixed=fixed, title=d.title or str(d.program),
                    points=pts + component_points(used, composer), marks=xs)
        console.print(f"plot written to {plot}")
    if html:
        from perfcompose.commands.reports import predict_html

        predict_html(html, d, composer, model, xs, fixed, exact, seen, seen_label, warnings)


# ---------------------------------------------------------------------------------------------
# measurement


def _per_task(bar: Any) -> Callable[[str, int, int], None]:
    """A progress callback that shows one bar per task."""
    jobs: dict[str, Any] = {}

    def step(name: str, k: int, n: int) -> None:
        if name not in jobs:
            jobs[name] = bar.add_task(name, total=n)
        bar.update(jobs[name], completed=k)

    return step


@app.command()
@_user_errors
def bench(target: Optional[str] = typer.Argument(None, help="Built-in task (nop, inc, qsort, map_small, ...) "
                                                 "or module:function."),
          cmd: Optional[str] = typer.Option(None, "--cmd", help='Shell command template, e.g. "./solver --n {x}".'),
          param: list[str] = typer.Option([], "--param", "-p", help="Grid: x=1024:262144:1024, x=1024:65536 "
                                          "(powers of two) or n=1,2,4. Repeatable."),
          reps: int = typer.Option(5, "--reps", min=1, help="Timed repetitions per point (per round)."),
          rounds: int = typer.Option(1, "--rounds", min=1, help="Passes over the whole grid, each in a new "
                                     "order; a point gets reps x rounds values. Several rounds spread bursts "
                                     "of other work on the machine over all points."),
          warmup: int = typer.Option(1, "--warmup", min=0, help="Untimed runs before each visit of a point."),
          out: Path = typer.Option(..., "--out", "-o", help="Experiment file to write (format by extension)."),
          timeout: Optional[float] = typer.Option(None, "--timeout", help="Seconds before a command run is "
                                                  "stopped and its point reported as failed."),
          seed: int = typer.Option(0, "--seed", help="Seed of the shuffled order of points."),
          restart: bool = typer.Option(False, "--restart", help="Discard an existing checkpoint."),
          ) -> None:
    """Time a target over a parameter grid; resumable from its checkpoint (OUT.checkpoint.jsonl)."""
    from perfcompose.bench import BenchError, checkpoint_for, parse_grid, resolve_target, run_sweep
    from perfcompose.data import save

    grid = parse_grid(param)
    tgt, identity = resolve_target(target, cmd, timeout)
    if target is not None and not cmd:
        from perfcompose.bench import TASKS

        if target in TASKS:
            task = TASKS[target]
            missing = [p for p in task.params if p not in grid]
            if missing:
                grid.update({p: task.quick_grid[p] for p in missing})
    if not grid:
        raise BenchError("give the grid with --param NAME=VALUES", hint="e.g. --param x=1024:65536")
    identity.update(grid={k: list(v) for k, v in grid.items()}, warmup=warmup)
    ckpt = checkpoint_for(out)
    with _progress() as bar:
        job = bar.add_task(f"bench {identity['target']}", total=None)

        def step(k: int, n: int, _coord: tuple[float, ...]) -> None:
            bar.update(job, completed=k, total=n)

        result = run_sweep(tgt, grid, reps=reps, warmup=warmup, checkpoint=ckpt, seed=seed, restart=restart,
                           progress=step, identity=identity, rounds=rounds)
    if result.resumed:
        console.print(f"resumed: {result.resumed} points from {ckpt}")
    for line in result.skipped_lines:
        err_console.print(f"[yellow]warning:[/yellow] {ckpt}, line {line}: corrupt checkpoint line skipped "
                          "(its point is measured again)", highlight=False)
    for coord, failure in sorted(result.failures.items()):
        where = ", ".join(f"{p}={_size(v)}" for p, v in zip(result.parameters, coord))
        code = f"exit code {failure.exit_code}" if failure.exit_code is not None else "failed"
        err_console.print(f"[yellow]warning:[/yellow] {where}: {code}: {failure.message}", highlight=False)
    region = target if target and ":" not in target else (target or "command").split(":")[-1]
    exp = result.experiment(region=region, source=f"perfcompose bench {identity['target']}")
    save(exp, out)
    _summary(exp)
    console.print(f"{len(result.values)} points measured, {len(result.failures)} failed; written to {out}")


def _summary(exp: Any, cv_warn: float = 10.0) -> None:
    import numpy as np

    from perfcompose.variation import coefficient_of_variation

    series = exp.series[0]
    table = Table(title=f"{series.label}: median and coefficient of variation per point", title_justify="left")
    for col in (*exp.parameters, "reps", "median [s]", "CV %"):
        table.add_column(col, justify="right")
    cvs = []
    points = series.points
    shown = points if len(points) <= 24 else [points[k] for k in np.linspace(0, len(points) - 1, 24).astype(int)]
    for p in points:
        cvs.append(coefficient_of_variation(p.values) * 100)
    for p in shown:
        k = points.index(p)
        table.add_row(*(_size(c) for c in p.coordinate), str(len(p.values)), f"{np.median(p.values):.4g}",
                      _fmt(cvs[k], ".2f"))
    console.print(table)
    finite = [c for c in cvs if c == c]
    if finite:
        q = np.quantile(finite, [0, 0.25, 0.5, 0.75, 1])
        console.print("CV quartiles (min, 0.25, median, 0.75, max) %: " + ", ".join(f"{v:.2f}" for v in q))
        high = sum(c > cv_warn for c in finite)
        if high:
            err_console.print(f"[yellow]warning:[/yellow] {high} of {len(finite)} points have a CV above "
                              f"{cv_warn:g} %: raise --reps, quiet the machine, or lengthen the timed work")


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.1f}"


def _run_study(configurations: list[str], xs: tuple[float, ...], rounds: int, count: int, workers: str,
               max_workers: int | None, restart: bool, functions: Any = None, make: Any = None) -> Any:
    from perfcompose.validate.modular import study

    with _progress() as bar:
        return study(configurations, xs, rounds=rounds, count=count, workers=workers, max_workers=max_workers,
                     checkpoints=Path(".perfcompose"), restart=restart, progress=_one_bar(bar),
                     functions=functions, make=make)


def _print_study(result: Any, title: str, paper: dict[str, str] | None = None) -> None:
    from perfcompose.commands.validation import print_study

    print_study(result, title, paper)


def _write_study(result: Any, out: Path, paper: dict[str, str] | None = None) -> None:
    from perfcompose.commands.validation import write_study

    write_study(result, out, paper)


@app.command()
@_user_errors
def validate(terms: list[str] = typer.Argument(..., help="Programs to run, e.g. 'pipe(inc, qsort)' 'tpool_2(qsort)'."),
             x: list[str] = typer.Option(["1024:262144"], "--x", help="Input sizes (LO:HI = powers of two, or a list)."),
             rounds: int = typer.Option(5, "--reps", "--rounds", min=1, help="Interleaved rounds (repetitions)."),
             count: int = typer.Option(32, "--count", min=2, help="Elements per run, at least (more where short)."),
             workers: str = typer.Option("threads", "--workers", help="threads or processes."),
             json_out: Optional[Path] = typer.Option(None, "--json", help="Write one record per configuration here."),
             restart: bool = typer.Option(False, "--restart", help="Discard finished measurements."),
             html: Optional[Path] = typer.Option(None, "--html", help="Write a self-contained HTML report here."),
             task: list[str] = typer.Option([], "--task", help="A stage of your own, NAME=module:function (a "
                                            "function of one data element), e.g. --task smooth=user_stages:smooth; "
                                            "repeatable. Built-in: nop, inc, qsort."),
             input_: Optional[str] = typer.Option(None, "--input", help="module:function making one data element "
                                                  "of size x (default: x random 32-bit ints)."),
             ) -> None:
    """Run programs of nop, inc, qsort and your own stages (--task) for real, fit them (monolithic),
    compose them from their parts (modular) and report the error of the prediction, with its 90 %
    interval, against the measurement."""
    import os

    from perfcompose.commands.validation import input_function, task_functions

    xs = tuple(_x_values(x))
    functions = task_functions(task) if task else None
    make = input_function(input_) if input_ else None
    result = _run_study(terms, xs, rounds, count, workers, 2 * (os.cpu_count() or 1), restart, functions, make)
    _print_study(result, "modular vs monolithic vs measured (000 section 4)")
    if json_out:
        _write_study(result, json_out)
    if html:
        from perfcompose.commands.reports import study_html

        study_html(html, result, "modular vs monolithic vs measured (000 section 4)")


paper_app = typer.Typer(help="Reproduce the papers' tables on this machine.", no_args_is_help=True)
app.add_typer(paper_app, name="paper")
paper_app.command("table3")(_mapreduce_commands.paper_table3)
paper_app.command("table5")(_mapreduce_commands.paper_table5)
paper_app.command("fig4")(_paper_commands.fig4)
paper_app.command("calotoiu")(_paper_commands.calotoiu)
paper_app.command("vangemund")(_pamela_commands.vangemund)
paper_app.command("latency")(_paper_commands.latency)
app.command("mapreduce")(_mapreduce_commands.run_one)


@paper_app.command("table1")
@_user_errors
def paper_table1(quick: bool = typer.Option(False, "--quick", help="33 sizes x 33 repetitions in 11 "
                                            "interleaved rounds (seconds on 2 cores)."),
                 task: list[str] = typer.Option([], "--task", help="Only these tasks."),
                 rest_only: bool = typer.Option(False, "--printed-rows", help="Only rows 9-13 (GrPPi, Hadoop, "
                                                "transfer): the paper's models recomposed, nothing measured."),
                 out: Optional[Path] = typer.Option(None, "--out", help="Also write the measurements here "
                                                    "(one experiment per task: OUT-stem_TASK.json)."),
                 html: Optional[Path] = typer.Option(None, "--html", help="Write a self-contained HTML report "
                                                     "here."),
                 restart: bool = typer.Option(False, "--restart", help="Discard the checkpoints of an "
                                              "interrupted run (.perfcompose/table1_*) and measure afresh."),
                 ) -> None:
    """000 Table 1: model and variability of every reference task, measured here (ns); an interrupted
    run resumes from its checkpoints in .perfcompose/."""
    from perfcompose.bench import TASKS
    from perfcompose.data import save
    from perfcompose.validate.paper import (FULL_REPS, FULL_ROUNDS_T1, PAPER_TABLE1, QUICK_REPS,
                                            QUICK_ROUNDS_T1, table1)

    if rest_only:
        _paper_commands.print_table1_rest()
        return
    unknown = [t for t in task if t not in PAPER_TABLE1]
    if unknown:
        raise typer.BadParameter(f"unknown task {unknown[0]!r}; tasks: {', '.join(PAPER_TABLE1)}", param_hint="--task")
    if not quick:
        console.print(f"the paper's 256 sizes 1,024 ... 262,144; {FULL_REPS} repetitions ({FULL_ROUNDS_T1} "
                      "rounds over all sizes) instead of its 256 (use --quick for 33 sizes)")
    else:
        console.print(f"quick: x = 2^10 ... 2^18 (33 sizes), {QUICK_REPS} repetitions in {QUICK_ROUNDS_T1} "
                      f"rounds over all sizes ({4 * QUICK_REPS} for single-size tasks)")
    with _progress() as bar:
        rows = table1(quick=quick, tasks=tuple(task) or None, progress=_per_task(bar),
                      checkpoints=Path(".perfcompose"), restart=restart)
    table = Table(title="Table 1: models of the sequential task blocks, measured here [ns]", title_justify="left")
    for col in ("row", "task", "model [ns]", "CV % (min, .25, med, .75, max) / std %", "paper's model [ns]"):
        table.add_column(col)
    for k, r in enumerate(rows, start=1):
        var = (", ".join(f"{v:.2f}" for v in r.cv) if r.cv else f"{r.std:.2f} (std)")
        table.add_row(str(k), r.task, _short(r.model, 6), var, r.paper)
    console.print(table)
    console.print("GIL: " + ", ".join(f"{t} {'releases' if TASKS[t].releases_gil else 'holds'} it"
                                       for t in (r.task for r in rows)))
    retaken = [f"{r.task} {r.preempted}" for r in rows if r.preempted]
    if retaken:
        console.print("timings taken again because the core was taken away mid-call: " + ", ".join(retaken))
    busy = [r.task for r in rows
            if r.preempted > 0.1 * sum(len(p.values) for p in r.experiment.series[0].points)]
    if busy:
        err_console.print(f"[yellow]warning:[/yellow] other work kept taking the core away ({', '.join(busy)}): "
                          "those models may be distorted; measure again on a quieter machine")
    if out:
        for r in rows:
            path = out.with_name(f"{out.stem}_{r.task}{out.suffix or '.json'}")
            save(r.experiment, path)
        console.print(f"measurements written next to {out}")
    if html:
        from perfcompose.commands.reports import table1_html

        gil = {True: "releases", False: "holds"}
        table1_html(html, table, rows, ["GIL: " + ", ".join(f"{r.task} {gil[TASKS[r.task].releases_gil]} it"
                                                           for r in rows)])
    if not task:
        _paper_commands.print_table1_rest()


# the options every validation table shares
_QUICK = typer.Option(False, "--quick", help="9 sizes x 5 rounds (minutes on 2 cores).")
_TABLE_JSON = typer.Option(None, "--json", help="Write one record per configuration.")
_RESTART = typer.Option(False, "--restart", help="Discard finished measurements.")
_HTML = typer.Option(None, "--html", help="Write a self-contained HTML report here.")


def _paper_validation(table: str, quick: bool, json_out: Optional[Path], restart: bool,
                      html: Optional[Path] = None) -> Any:
    import os

    from perfcompose.validate.paper import (FULL_ROUNDS, FULL_X, QUICK_ROUNDS, QUICK_X,
                                            paper_configurations)

    configs = paper_configurations(table)
    paper = dict(configs)
    cores = os.cpu_count() or 1
    # tables 4 and 6 compare programs with one another, so they may oversubscribe the cores
    limit = cores if table in ("table2", "table7") else 2 * cores
    xs, rounds = (QUICK_X, QUICK_ROUNDS) if quick else (FULL_X, FULL_ROUNDS)
    result = _run_study([c for c, _ in configs], xs, rounds, 32, "threads", limit, restart)
    titles = {"table2": "Table 2: composition operators, modular vs monolithic vs measured",
              "table4": "Table 4: pipeline associativity and commutativity",
              "table6": "Table 6: layering neutrality, pipe(tpool_n(qsort), tpool_n(inc)) vs tpool_n(pipe(qsort, inc))",
              "table7": "Table 7: tpool_2(seq(a, b)) against pipe(a, b)"}
    _print_study(result, titles[table] + " [ns per element]", paper)
    if json_out:
        _write_study(result, json_out, paper)
    if html:
        from perfcompose.commands.reports import study_html

        study_html(html, result, titles[table] + " [ns per element]", paper)
    return result


@paper_app.command("table2")
@_user_errors
def paper_table2(quick: bool = _QUICK,
                 json_out: Optional[Path] = _TABLE_JSON,
                 restart: bool = _RESTART,
                 html: Optional[Path] = _HTML) -> None:
    """000 Table 2: seq, tpool and pipe programs run here; modular vs monolithic vs measured."""
    _paper_validation("table2", quick, json_out, restart, html)


@paper_app.command("table7")
@_user_errors
def paper_table7(quick: bool = _QUICK,
                 json_out: Optional[Path] = _TABLE_JSON,
                 restart: bool = _RESTART,
                 html: Optional[Path] = _HTML) -> None:
    """000 Table 7: relation (iv), tpool_2(seq(a, b)) <= pipe(a, b), measured here."""
    import numpy as np

    result = _paper_validation("table7", quick, json_out, restart, html)
    by = {c.configuration: c for c in result.comparisons}
    for c in result.comparisons:
        if c.configuration.startswith("tpool_2(seq("):
            inner = c.configuration[len("tpool_2(seq("):-2]
            other = by.get(f"pipe({inner})")
            if other is not None:
                ratio = float(np.median(np.array(c.measured) / np.array(other.measured)))
                console.print(f"relation (iv) {c.configuration} / pipe({inner}): median time ratio {ratio:.2f} "
                              f"({'holds' if ratio <= 1.0 else 'does not hold'})")


def _spread(result: Any, groups: list[list[str]]) -> None:
    from perfcompose.compose.parser import parse_term
    from perfcompose.validate.modular import leading_term

    for group in groups:
        # a study names its programs as the parser prints them: pipe(pipe(a, b), c) is pipe(a, b, c)
        names = {str(parse_term(g)) for g in group}
        leads = [leading_term(c.monolithic) for c in result.comparisons if c.configuration in names]
        leads = [lead for lead in leads if lead is not None]
        orders = {lead[0] for lead in leads}
        if len(leads) < 2:
            continue
        if len(orders) > 1:
            console.print(f"{', '.join(group)}: monolithic models of different orders")
            continue
        cs = [lead[1] for lead in leads]
        console.print(f"{' ~ '.join(group)}: leading coefficients within {100 * (max(cs) - min(cs)) / min(cs):.1f} %")


@paper_app.command("table4")
@_user_errors
def paper_table4(quick: bool = _QUICK,
                 json_out: Optional[Path] = _TABLE_JSON,
                 restart: bool = _RESTART,
                 html: Optional[Path] = _HTML) -> None:
    """000 Table 4: pipeline associativity and commutativity, measured here."""
    from perfcompose.validate.paper import PAPER_TABLE4

    result = _paper_validation("table4", quick, json_out, restart, html)
    _spread(result, [[c for c, _ in PAPER_TABLE4]])


@paper_app.command("table6")
@_user_errors
def paper_table6(quick: bool = _QUICK,
                 json_out: Optional[Path] = _TABLE_JSON,
                 restart: bool = _RESTART,
                 html: Optional[Path] = _HTML) -> None:
    """000 Table 6: layering neutrality, pipe of task pools vs task pool of pipes, measured here."""
    result = _paper_validation("table6", quick, json_out, restart, html)
    _spread(result, [[f"pipe(tpool_{n}(qsort), tpool_{n}(inc))", f"tpool_{n}(pipe(qsort, inc))"] for n in (1, 2, 4, 8)])


_CASE_TITLES = {
    "rabin_miller": "Rabin-Miller, Table 4: T(11213, 8) from n <= 9689 (relative reference point)",
    "lbm": "LBM on Blue Gene/P, section 4.2 and Figure 4: forecast w.r.t. p",
    "karatsuba_nonuniform": "Karatsuba, non-uniform sizes, section 4.3: T(128000, 8) from n <= 64000",
    "karatsuba_uniform": "Karatsuba, uniform sizes, section 4.3",
    "gauss": "Gauss elimination, section 4.1",
    "serial_fraction": "Serial fraction, Figure 7(c): n = 9689 from Table 4",
}


@paper_app.command("lobachev")
@_user_errors
def paper_lobachev(json_out: Optional[Path] = _TABLE_JSON, html: Optional[Path] = _HTML) -> None:
    """001 (Lobachev, Loogen): every case study's estimates, the paper's beside perfcompose's.

    The range is what the estimate spans when each printed input moves by half a unit of its
    last digit; a paper figure inside it (widened by the figure's own rounding) is reproduced.
    """
    from perfcompose.validate.lobachev import CASES, reproduce

    rows = reproduce()
    shown = []
    for case in CASES:
        t = Table(title=_CASE_TITLES[case], title_justify="left", show_lines=False)
        for col, just in (("quantity", "left"), ("method", "left"), ("paper", "right"), ("perfcompose", "right"),
                          ("range over input rounding", "right"), ("paper err %", "right"),
                          ("err %", "right"), ("", "center"), ("note", "left")):
            t.add_column(col, justify=just)  # type: ignore[arg-type]
        for r in (r for r in rows if r.case == case):
            rng = "" if r.low is None or r.high is None else f"{r.low:.4g} .. {r.high:.4g}"
            mark = {True: "[green]ok[/green]", False: "[red]no[/red]", None: ""}[r.reproduced]
            t.add_row(r.quantity, r.method, r.paper or "", "" if r.ours is None else f"{r.ours:.5g}", rng,
                      r.paper_error or "", "" if r.error is None else f"{100 * r.error:+.3g}", mark, r.note)
        console.print(t)
        shown.append(t)
    checked = [r for r in rows if r.reproduced is not None]
    console.print(f"{sum(bool(r.reproduced) for r in checked)} of {len(checked)} comparable paper figures lie "
                  "within the rounding of the printed inputs")
    if json_out:
        json_out.write_text(json.dumps([r.to_json() for r in rows], indent=1))
        console.print(f"written to {json_out}")
    if html:
        from perfcompose.commands.reports import tables_html

        tables_html(html, "001 (Lobachev, Loogen): the case studies' estimates, the paper's beside perfcompose's",
                    "paper table", shown, summary=[("paper figures within the rounding of the printed inputs",
                                                    f"{sum(bool(r.reproduced) for r in checked)} of {len(checked)}")])


@app.command()
@_user_errors
def demo(plot: Path = typer.Option(Path("demo.png"), "--plot", help="Where to write the plot."),
         quick: bool = typer.Option(True, "--quick/--full", help="Quick measurement (default) or the paper's sizes."),
         html: Path = typer.Option(Path("demo.html"), "--html", help="Where to write the HTML report."),
         ) -> None:
    """Measure nop, inc and qsort, fit them, compose the paper's Table-2 programs, plot, and write the report."""
    from perfcompose.report import plot_models
    from perfcompose.validate.paper import table1, table2

    console.print("[bold]1. unit performance tests[/bold]: measuring nop, inc, qsort on this machine")
    with _progress() as bar:
        rows = table1(quick=quick, tasks=("nop", "inc", "qsort"), progress=_per_task(bar))
    from perfcompose.fit.uncertainty import with_uncertainty

    parts = {r.task: with_uncertainty(r.model, r.experiment) for r in rows}
    t1 = Table(title="2. fitted models of the parts [ns]", title_justify="left")
    for col in ("task", "model here", "CV % median", "paper (000 Table 1)"):
        t1.add_column(col)
    for r in rows:
        t1.add_row(r.task, _short(r.model, 6), f"{r.cv[2]:.2f}" if r.cv else "-", r.paper)
    console.print(t1)
    x = 2.0 ** 18
    t2 = Table(title="3. composed programs (000 Table 2) and predicted time per element at x = 2^18",
               title_justify="left")
    for col, just in (("program", "left"), ("modular model, parts measured here [ns]", "left"),
                      ("paper: modular", "left"), ("paper: monolithic", "left"),
                      ("predicted at 2^18 [ms] (90 % interval)", "right")):
        t2.add_column(col, justify=just,  # type: ignore[arg-type]
                      optional={"paper: monolithic": 1, "paper: modular": 2}.get(col, False))
    from perfcompose.compose import compose as compose_model

    from perfcompose.compose import Composer
    from perfcompose.compose.interval import with_interval

    results = table2(parts)
    flagged = 0
    for r in results:
        exact = compose_model(r.configuration, parts, pipe="pointwise")(x=x)
        bounds = with_interval(Composer(parts, pipe="pointwise"), r.configuration).interval(x=x)
        mark = ""
        if abs(r.modular(x=x) - exact) > 0.01 * exact:
            mark, flagged = " *", flagged + 1
        t2.add_row(r.configuration, _short(r.modular) + mark, str(r.paper_modular), str(r.paper_monolithic),
                   _sig(exact / 1e6) + (f" [{_sig(bounds[0] / 1e6)}, {_sig(bounds[1] / 1e6)}]" if bounds else ""))
    console.print(t2)
    if flagged:
        console.print("* the stage of higher asymptotic order (eq. 3) is not the slower one at x = 2^18; "
                      "the prediction uses the exact pointwise max (--pipe pointwise)")
    curves = [(f"{r.configuration}", r.modular) for r in results
              if r.configuration in ("seq(qsort, inc)", "tpool_4(qsort)", "pipe(inc, qsort)", "seq(inc, nop)",
                                     "pipe(inc, nop)", "tpool_24(qsort)")]
    plot_models(curves, (2.0 ** 10, 2.0 ** 20), plot,
                title="programs composed from the parts measured on this machine",
                points=[(f"measured {r.task}", r.experiment.series[0].coordinates()[:, 0],
                         r.experiment.series[0].aggregated("median")) for r in rows])
    console.print(f"plot written to {plot}")
    from perfcompose.commands.reports import demo_html

    demo_html(html, rows, results)


def main() -> None:
    """Entry point of the console script."""
    app(prog_name="perfcompose")


if __name__ == "__main__":
    main()
