"""``compose``, ``laws`` and ``explore``: the model of a program from the models of its components."""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import typer

from perfcompose.assignments import parse_point
from perfcompose.choices import PipeRule
from perfcompose.commands.common import Table, cli_command, console, err_console, json_option, write_json
from perfcompose.commands.components import (
    BIND_HELP,
    COMPONENT_HELP,
    PIPE_HELP,
    UNIT_HELP,
    components,
    note_undeclared,
    parameter_values,
    x_values,
)
from perfcompose.compose import Composer, oversubscription
from perfcompose.compose import explore as run_explore
from perfcompose.compose.interval import interval_of, members_lane
from perfcompose.compose.laws import LAWS, check_laws
from perfcompose.compose.laws import PIPE as LAWS_PIPE
from perfcompose.compose.oversubscription import account, machine_cores
from perfcompose.ensemble import DEFAULT_LEVEL, time_bounds
from perfcompose.errors import InputError
from perfcompose.finite import is_time
from perfcompose.option_fields import option, shared
from perfcompose.report.numbers import sig, size


@dataclass(frozen=True)
class Components:
    """The components of ``compose``, ``laws`` and ``explore``: their models, bindings and unit."""

    component: list[str] = option((), COMPONENT_HELP, aliases=("-c",))
    bind: list[str] = option((), BIND_HELP, aliases=("-b",))
    unit: str | None = option(None, UNIT_HELP)


@dataclass(frozen=True)
class ComposeCommand(Components):
    term: str = option(..., "Program term, e.g. 'pipe(tpool_4(qsort), inc)'.", argument=True)
    pipe: PipeRule = option("pointwise", PIPE_HELP)
    json_out: Path | None = shared(json_option("the model"))
    at: list[str] = option((), "Also print the prediction with its 90 % interval at this point, e.g. --at x=65536 or "
                               "--at x=65536,n=4 (repeatable).")


@cli_command(ComposeCommand)
def compose(o: ComposeCommand) -> None:
    composer = Composer(components(o.component, o.unit, o.bind), pipe=o.pipe)
    parsed = composer.parse(o.term, source="term")
    points = [parse_point(spec, option="--at") for spec in o.at]
    note_undeclared(composer.components, [parsed], [k for pt in points for k in pt])
    model = composer(parsed)
    console.out(str(model), highlight=False)
    console.out(f"order in x: {model.order_text()}; unit: {model.unit or 'none'}", highlight=False)
    if o.at:
        machine = _prediction(composer, parsed)
        which = ""
        if str(machine) != str(model):
            cores = oversubscription.machine_cores()
            console.out(f"with the workers sharing this machine's {cores} cores: {machine}", highlight=False)
            which = f" (the workers sharing {cores} cores)"
        for line in _point_lines(machine, points, which):
            console.out(line, highlight=False)
    if o.json_out is not None:
        write_json(o.json_out, model.to_json_text(), "model")
    for choice in composer.pipe_choices(parsed):
        if choice.both:
            err_console.print(f"note: {choice.term}: no stage grows fastest in every parameter; both are kept "
                              "(exact max)", highlight=False)
        else:
            err_console.print(f"note: {choice.term}: the asymptotic max keeps {choice.kept} and drops "
                              f"{choice.dropped}, which may be the larger stage at the sizes that matter; "
                              "--pipe pointwise keeps both", highlight=False)


def _prediction(composer: Any, term: Any) -> Any:
    """The composed model of ``term`` with its interval (where a component has one), accounting
    for more workers than cores (max with the total work over the cores) and warning about it."""
    lane = members_lane(composer, term)  # composed once: the model, its members and the cores' floor
    tree = composer.evaluate(term, () if lane is None else (lane,))
    model, over = oversubscription.shared(tree, interval_of(tree, tree.model.with_meta(name=str(term),
                                                                                        source="composed")))
    if over is not None:
        err_console.print(f"[yellow]warning:[/yellow] {over}", highlight=False)
    return model


def _point_lines(model: Any, points: list[dict[str, float]], which: str) -> list[str]:
    """``at x=65536: 1.23e+06 [1.2e+06, 1.27e+06] ns (90 % interval)`` per point; ``which`` names
    the model the values are of (`` (workers sharing 2 cores)``)."""
    lines = []
    for point in points:
        missing = [p for p in model.params if p not in point]
        if missing:
            given = ",".join(f"{k}={v:g}" for k, v in point.items())
            example = ",".join([given, *(f"{m}={65536 if m == 'x' else 4}" for m in missing)])
            raise InputError(f"--at {given}: give a value for {', '.join(missing)} too", hint=f"e.g. --at {example}")
        values = {p: point[p] for p in model.params}
        value = float(np.asarray(model(**values)))
        where = ", ".join(f"{k}={v:g}" for k, v in point.items()) + which
        if not is_time(value):
            raise InputError(f"--at {where}: the program's time is {value:g} {model.unit} there, not a finite "
                             "time at or above zero", hint="the model is undefined there (log2(0), a division by "
                                                           "zero) or overflows a double: choose another point")
        bounds = model.interval(**values)
        if bounds is None:
            lines.append(f"at {where}: {value:.6g} {model.unit} (no interval: no component carries one; "
                         "exact sources and saved records have none)")
        else:
            low, high = time_bounds(value, float(np.asarray(bounds[0])), float(np.asarray(bounds[1])))
            lines.append(f"at {where}: {value:.6g} [{low:.6g}, {high:.6g}] {model.unit} "
                         f"({100 * DEFAULT_LEVEL:g} % interval)")
    return lines


@dataclass(frozen=True)
class LawsCommand(Components):
    stages: list[str] = option(None, "Stages to check the laws with (component names or terms); default: every "
                                     "component.", argument=True)
    pipe: PipeRule = option(LAWS_PIPE, "Pipeline max: asymptotic (the papers' algebra, default here) or pointwise.")
    x_range: str = option("1024:262144", "Range LO:HI of x for numeric checks.", flag="--x")


@cli_command(LawsCommand)
def laws(o: LawsCommand) -> None:
    comps = components(o.component, o.unit, o.bind)
    if not comps:
        raise typer.BadParameter("give the components with -c NAME=MODEL", param_hint="-c")
    xs = x_values([o.x_range])
    results = check_laws(comps, o.stages or None, pipe=o.pipe, x_range=(min(xs), max(xs)))
    note_undeclared(comps, [r.left for r in results])
    table = Table("law", "instance", "decided", "result", title=f"relational laws, pipe = {o.pipe} max, x in "
                  f"[{size(min(xs))}, {size(max(xs))}], n in 1..64")
    for r in results:
        if r.held:
            verdict = "[green]holds[/green]" + (" (equal)" if r.relation == "=" else " (inequality)")
        elif r.undecided:
            verdict = f"[yellow]cannot decide[/yellow]: {r.overflow_text}"
        else:
            where = ", ".join(f"{k}={size(v)}" for k, v in (r.counterexample or {}).items())
            lv, rv = r.values or (math.nan, math.nan)
            verdict = f"[red]fails[/red] at {where}: {lv:.6g} vs {rv:.6g}"
        table.add_row(f"({r.law})", r.statement, r.method, verdict)
    console.print(table)
    for law, title in LAWS.items():
        mine = [r for r in results if r.law == law]
        failed = [r for r in mine if not r.held and not r.undecided]
        open_ = [r for r in mine if r.undecided]
        how = "/".join(sorted({r.method for r in mine}))
        rel = "equality" if mine and mine[0].relation == "=" else "inequality"
        status = ("[green]holds[/green]" if not failed and not open_ else
                  ", ".join(([f"[red]fails in {len(failed)} of {len(mine)}[/red]"] if failed else [])
                            + ([f"[yellow]undecided in {len(open_)} of {len(mine)}[/yellow]"] if open_ else [])))
        console.print(f"({law}) {title} ({rel}): {status} — {len(mine)} instances, decided {how}")
    if any(r.undecided for r in results):
        err_console.print("[yellow]warning:[/yellow] the models exceed the range of a double (about 1.8e308) "
                          f"somewhere in x = {size(min(xs))} .. {size(max(xs))}, where no law can be checked "
                          "by numbers; check a smaller range with --x LO:HI", highlight=False)


@dataclass(frozen=True)
class ExploreCommand(Components):
    term: str = option(..., "A pipeline term, e.g. 'pipe(qsort, inc, nop)'.", argument=True)
    threads: int = option(..., "Thread budget.", aliases=("-T",), minimum=1)
    x: list[str] = option(("65536",), "Input sizes to compare at (or LO:HI).")
    param: list[str] = option((), "Values for symbolic counts: n=4.", aliases=("-p",))


@cli_command(ExploreCommand)
def explore(options: ExploreCommand) -> None:
    composer = Composer(components(options.component, options.unit, options.bind), pipe="pointwise")
    parsed = composer.parse(options.term, source="term")
    fixed = parameter_values(options.param)
    note_undeclared(composer.components, [parsed], list(fixed))
    crowded = 0  # designs that start more workers than there are cores (the same at every size)
    accounts: dict[str, Any] = {}  # each design's account of its workers, made once for every size
    for xv in x_values(options.x):
        try:
            e = run_explore(parsed, composer.components, options.threads, {"x": xv, **fixed}, composer=composer)
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from None
        bad = [str(s) for s, t in zip(e.stages, e.stage_times) if not is_time(t)]
        if bad:
            raise InputError(f"--x {xv:g}: the time of {', '.join(bad)} is not a finite time at or above zero there",
                             hint="the model overflows a double or leaves its domain at that size: give a smaller x")
        unit_s = composer.unit
        table = Table(title=f"x = {size(xv)}, {options.threads} threads: stage times "
                      + ", ".join(f"{s} {sig(t)}" for s, t in zip(e.stages, e.stage_times))
                      + f" [{unit_s}]; bottleneck: {e.stages[e.bottleneck]}")
        for col, just in (("design", "left"), ("term", "left"), ("threads", "right"),
                          (f"time per element [{unit_s}]", "right"), ("vs best", "right")):
            table.add_column(col, justify=just, optional=col == "design")
        cores = machine_cores()
        for a in e.alternatives:
            if str(a.term) not in accounts:
                accounts[str(a.term)] = account(composer, a.term, composer(a.term), cores)
        over = {str(a.term): accounts[str(a.term)] for a in e.alternatives}
        if any(over.values()):
            table.add_column(f"on {cores} cores [{unit_s}]", justify="right")
        for a in e.alternatives:
            o = over[str(a.term)]
            extra = [] if not any(over.values()) else \
                ["-" if o is None else "cannot say" if o.model is None else
                 f"{float(o.model(**{p: {'x': xv, **fixed}[p] for p in o.model.params})):.5g}"]
            table.add_row(a.label, str(a.term), str(a.threads), f"{a.time:.5g}", f"{a.time / e.best.time:.2f}x", *extra)
        console.print(table)
        crowded = max(crowded, sum(1 for o in over.values() if o))
        console.print(f"best split of {options.threads} threads over the stages: "
                      + ", ".join(f"{s}: {n}" for s, n in zip(e.stages, e.split)))
    if crowded:
        cores = machine_cores()
        err_console.print(f"[yellow]warning:[/yellow] {crowded} designs start more workers than this machine's "
                          f"{cores} cores: the operators assume a core per worker; 'on {cores} cores' is at least "
                          "their total work divided by the cores", highlight=False)
