"""``demo``: nop, inc and qsort measured and fitted, the paper's Table-2 programs composed, plotted and reported."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from perfcompose.commands.common import Table, cli_command, console, file_to_write, per_task, plot_option, progress
from perfcompose.commands.reports import page
from perfcompose.compose import Composer, oversubscription
from perfcompose.compose import compose as compose_model
from perfcompose.compose.interval import with_interval
from perfcompose.compose.parser import parse_term
from perfcompose.ensemble import time_bounds
from perfcompose.fit.uncertainty import with_uncertainty
from perfcompose.option_fields import option, shared
from perfcompose.report.demo import demo_report, programs_figure
from perfcompose.report.figures import save
from perfcompose.report.numbers import sig
from perfcompose.validate.paper import table1, table2


@dataclass(frozen=True)
class DemoCommand:
    plot: Path = shared(plot_option(Path("demo.png")))
    quick: bool = option(True, "Quick measurement (default) or the paper's sizes.", flag="--quick/--full")
    html: Path = option(Path("demo.html"), "Where to write the HTML report.", callback=file_to_write)


@cli_command(DemoCommand)
def demo(o: DemoCommand) -> None:
    console.print("[bold]1. unit performance tests[/bold]: measuring nop, inc, qsort on this machine")
    with progress() as bar:
        rows = table1(quick=o.quick, tasks=("nop", "inc", "qsort"), progress=per_task(bar))
    parts = {r.task: with_uncertainty(r.model, r.experiment) for r in rows}
    t1 = Table("task", "model here", "CV % median", "paper (000 Table 1)", title="2. fitted models of the parts [ns]")
    for r in rows:
        t1.add_row(r.task, str(r.model.rounded(6)), f"{r.cv[2]:.2f}" if r.cv else "-", r.paper)
    console.print(t1)
    x = 2.0 ** 18
    cores = oversubscription.machine_cores()
    t2 = Table(title="3. composed programs (000 Table 2) and predicted time per element at x = 2^18, the "
                     f"operators assuming a core per thread (this machine has {cores})")
    for col, just in (("program", "left"), ("modular model, parts measured here [ns]", "left"),
                      ("paper: modular", "left"), ("paper: monolithic", "left"),
                      ("predicted at 2^18 [ms] (90 % interval)", "right")):
        t2.add_column(col, justify=just,
                      optional={"paper: monolithic": 1, "paper: modular": 2}.get(col, False))
    results = table2(parts)
    flagged = 0
    oversubscribed = []
    for program in results:
        exact = compose_model(program.configuration, parts, pipe="pointwise")(x=x)
        bounds = with_interval(Composer(parts, pipe="pointwise"), program.configuration).interval(x=x)
        shown = ""
        if bounds:  # reported as every output reports a time's interval: holding the value
            lo, hi = time_bounds(exact, float(bounds[0]), float(bounds[1]))
            shown = f" [{sig(lo / 1e6)}, {sig(hi / 1e6)}]"
        mark = ""
        if abs(program.modular(x=x) - exact) > 0.01 * exact:
            mark, flagged = " *", flagged + 1
        if oversubscription.cores_note(parse_term(program.configuration), cores) is not None:
            mark += " !"
            oversubscribed.append(program.configuration)
        t2.add_row(program.configuration, str(program.modular.rounded()) + mark, str(program.paper_modular),
                   str(program.paper_monolithic),
                   sig(exact / 1e6) + shown)
    console.print(t2)
    if flagged:
        console.print("* the stage of higher asymptotic order (eq. 3) is not the slower one at x = 2^18; "
                      "the prediction uses the exact pointwise max (--pipe pointwise)")
    if oversubscribed:
        console.print(f"! starts more threads than this machine's {cores} cores ({', '.join(oversubscribed)}): "
                      "the prediction assumes a core per thread, so here these programs run slower than predicted "
                      "(perfcompose compose TERM --at x=... accounts for the sharing)", highlight=False,
                      soft_wrap=True)
    save(programs_figure(rows, results), o.plot, bbox_inches="tight")
    console.print(f"plot written to {o.plot}")
    page(o.html, demo_report, rows, results, cores=cores)
