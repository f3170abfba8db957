"""``perfcompose paper``: the composition paper's (000) tables measured on this machine (``table1`` ... ``table7``),
and the papers' printed models recomposed (000 Table 1 rows 9-13 and Figure 4; 003 Tables I-IV; 001's estimates)."""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import typer
from rich.markup import escape

from perfcompose.bench import TASKS
from perfcompose.commands.common import (
    Table,
    cli_command,
    console,
    err_console,
    json_option,
    numbers_table,
    one_bar,
    per_task,
    plot_option,
    progress,
    records_json,
    shared_option,
    user_errors,
    write_json,
)
from perfcompose.commands.reports import tables_html
from perfcompose.commands.validation import ValidateCommand, report_study, run_composition_study
from perfcompose.data import save
from perfcompose.option_fields import default_of, option, shared
from perfcompose.report.demo import parts_figure
from perfcompose.report.hadoop import plot_fig4
from perfcompose.report.html import figure
from perfcompose.validate import paper
from perfcompose.validate.latency import CAPACITY, COUNT, FULL_ROUNDS, FULL_X, QUICK_ROUNDS, QUICK_X, study
from perfcompose.validate.lobachev import CASES, reproduce
from perfcompose.validate.paper import PAPER_TABLE1, table1
from perfcompose.validate.paper_calotoiu import CALOTOIU_TABLE1, CALOTOIU_TABLE3, calotoiu_tables, spread
from perfcompose.validate.paper_hadoop import FIG4_M, FIG4_N, hadoop_grid, table1_rest, table3_check
from perfcompose.validate.paper_relations import LAYERING_GROUPS, coefficient_spreads, core_limit, relation_iv

#: whether a paper's figure is reproduced, as a table shows it
_MARK = {True: "[green]ok[/green]", False: "[red]no[/red]", None: ""}


def _pct(v: float | None, spec: str = "+.3g") -> str:
    return "" if v is None else f"{100 * v:{spec}}"


def print_table1_rest() -> list[Any]:
    """000 Table 1 rows 9-13 with the figure each gives when recomposed."""
    rows = table1_rest()
    t = Table("row", "task", "paper's model \\[ns]", "CV % / std %", "enters", "composed", "paper", "err %",
              right=(0, 5, 6, 7),
              title="Table 1 rows 9-13: the paper's models (GrPPi, Hadoop, transfer), recomposed \\[ns]")
    for r in rows:
        t.add_row(str(r.row), r.task, r.model, r.variability, escape(r.used_in),
                  "" if r.composed is None else f"{r.composed:.5g}", "" if r.printed is None else f"{r.printed:.4g}",
                  _pct(r.error))
    console.print(t)
    t3 = numbers_table("Table 3's modular column from rows 9-10 (eq. 6), and its error column from the printed models "
                       "\\[ns per input]", "threads", "composed", "paper: modular", "err %", "paper: monolithic",
                       "|mod - mono| / mono %", "paper's err %")
    for c in table3_check():
        t3.add_row(f"n = {c.n}", f"{c.composed:.5g}", f"{c.printed_modular:.4g}", _pct(c.modular_error),
                   f"{c.printed_monolithic:.4g}", f"{c.error:.2f}", f"{c.printed_error:.2f}")
    console.print(t3)
    console.print("rows 11-13 enter Figure 4: perfcompose paper fig4")
    return rows


@dataclass(frozen=True)
class Fig4Command:
    plot: Path | None = shared(plot_option(Path("fig4.png")))
    no_plot: bool = shared_option("no_plot")
    json_out: Path | None = shared(records_json())


@cli_command(Fig4Command)
def fig4(o: Fig4Command) -> None:
    grid = hadoop_grid()
    by = {(p.m, p.n): p for p in grid}
    t = numbers_table("Figure 4: Hadoop, modular prediction \\[ms per job] (x = m·n inputs; row 13 as printed, "
                      "and at 1 Gb/s in brackets)", "m \\ n", *map(str, FIG4_N))
    for m in FIG4_M:
        t.add_row(str(m), *(f"{by[(m, n)].total / 1e6:.2f} ({by[(m, n)].total_text / 1e6:.1f})" for n in FIG4_N))
    console.print(t)
    big = by[(FIG4_M[-1], FIG4_N[-1])]
    console.print(f"every configuration: map {big.map / 1e6:.2f} ms + reduce {big.reduce / 1e6:.2f} ms + shuffle; "
                  f"the shuffle at m·n = {big.m * big.n} is {big.shuffle / 1e6:.3f} ms as row 13 is printed "
                  f"(0.125 ns per byte) and {big.shuffle_text / 1e6:.1f} ms at the 1 Gb/s the text names "
                  "(8 ns per byte)")
    console.print("the paper prints Figure 4 only as an image: its measured times and errors are not in the text "
                  "(it says all but one error lie below 20 %), so no error against them can be computed here")
    if o.plot and not o.no_plot:
        plot_fig4(grid, o.plot)
        console.print(f"plot written to {o.plot}")
    if o.json_out:
        write_json(o.json_out, [p.to_json() for p in grid], "records")


@user_errors
def calotoiu(json_out: Path | None = records_json()) -> None:
    t1 = Table("task", "model \\[us]", "000 Table 1 \\[ns]",
               title="003 Table I: models of the sequential task blocks \\[us]")
    for task, model in CALOTOIU_TABLE1.items():
        t1.add_row(task, model.replace("x", "n"), PAPER_TABLE1[task])
    console.print(t1)
    rows = calotoiu_tables()
    titles = {"II": "003 Table II: modular vs monolithic \\[us]",
              "III": "003 Table III: pipeline associativity and commutativity \\[us]",
              "IV": "003 Table IV: layering, pipe of task pools vs task pool of pipes \\[us]"}
    for table, title in titles.items():
        ii = table == "II"  # Table II also has the paper's modular models and errors
        t = Table("configuration", "monolithic (paper)", "modular composed here", title=title)
        for col in (*(("modular (paper)", "vs paper %") if ii else ()), "err %", "range over rounding",
                    *(("paper's err %", "") if ii else ()), "000: monolithic \\[ns]"):
            t.add_column(col, justify="left" if col == "modular (paper)" else "right")
        for r in (r for r in rows if r.table == table):
            t.add_row(r.configuration, r.monolithic.replace("x", "n"), str(r.modular).replace("x", "n"),
                      *(((r.modular_printed or "").replace("x", "n"), _pct(r.modular_vs_printed)) if ii else ()),
                      f"{100 * r.error:.3f}", f"{100 * r.low:.3f} .. {100 * r.high:.3f}",
                      *((r.error_printed or "", _MARK[r.reproduced]) if ii else ()), r.paper000 or "-")
        console.print(t)
    s3 = spread([m for _, m in CALOTOIU_TABLE3])
    console.print(f"Table III: the monolithic coefficients vary by {100 * s3:.2f} % (the paper: less than 10 %)")
    for k in (1, 2, 4, 8):
        a, b = (next(r for r in rows if r.configuration == c) for c in
                (f"pipe(tpool_{k}(qsort), tpool_{k}(inc))", f"tpool_{k}(pipe(qsort, inc))"))
        console.print(f"Table IV, T = {k}: the two layerings differ by "
                      f"{100 * spread([a.monolithic, b.monolithic]):.2f} %")
    two = [r for r in rows if r.table == "II"]
    decimal = [r for r in two if r.error_printed and r.error > 0
               and abs(float(r.error_printed) / (100 * r.error) - 0.1) < 0.02]
    console.print(f"Table II: {sum(bool(r.reproduced) for r in two)} of {len(two)} printed errors follow from the "
                  "printed coefficients; "
                  + (f"{', '.join(r.configuration for r in decimal)}: the printed error is a tenth of the "
                     "coefficients' (a slipped decimal point); " if decimal else "")
                  + "the others differ by more than the rounding of the printed digits allows, so the paper "
                  "computed them from unrounded models or from the runtimes")
    if json_out:
        write_json(json_out, [r.to_json() for r in rows], "records")


@dataclass(frozen=True)
class LatencyCommand:
    quick: bool = option(False, "x = 4096 and 16384, 3 rounds (seconds).")
    json_out: Path | None = shared(json_option("one record per program and size"))
    config: list[str] = option((), "Only these programs (default: the reference programs that fit this machine's "
                                   "cores).")


@cli_command(LatencyCommand)
def latency(o: LatencyCommand) -> None:
    xs, rounds = (QUICK_X, QUICK_ROUNDS) if o.quick else (FULL_X, FULL_ROUNDS)
    with progress() as bar:
        step = one_bar(bar)
        rows = study(tuple(o.config) or None, xs, rounds, progress=lambda done, total: step("latency", done, total))
    t = numbers_table(f"latency of one element, saturated stream, queues of {CAPACITY} per reader \\[ms]; "
                      "err = (predicted - measured) / measured, median over rounds", "program", "x", "measured",
                      "predicted", "err %", "err % range", "alone (Fig. 2)", "err %", "inside: measured / predicted",
                      "disturbed", left=1)
    for r in rows:
        ins = r.inside
        t.add_row(r.configuration, f"{r.x:.0f}", f"{np.median(r.measured) * 1e3:.3f}",
                  f"{np.median(r.saturated) * 1e3:.3f}", f"{100 * r.error:+.1f}",
                  f"{100 * r.error_range[0]:+.1f} .. {100 * r.error_range[1]:+.1f}",
                  f"{np.median(r.alone) * 1e3:.3f}", f"{100 * r.error_alone:+.1f}", f"{ins[0]:.2f} / {ins[1]:.2f}",
                  f"{r.disturbed} of {len(r.measured)}")
    console.print(t)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    console.print(f"{rounds} rounds of {COUNT} elements; {os.cpu_count()} cores, load average {load:.2f}; "
                  "inside = latency / time between completions (Little's law): where it matches, the operator's "
                  "queueing is right and the error is the throughput model's")
    if o.json_out:
        write_json(o.json_out, [r.to_json() for r in rows], "records")


_CASE_TITLES = {
    "rabin_miller": "Rabin-Miller, Table 4: T(11213, 8) from n <= 9689 (relative reference point)",
    "lbm": "LBM on Blue Gene/P, section 4.2 and Figure 4: forecast w.r.t. p",
    "karatsuba_nonuniform": "Karatsuba, non-uniform sizes, section 4.3: T(128000, 8) from n <= 64000",
    "karatsuba_uniform": "Karatsuba, uniform sizes, section 4.3",
    "gauss": "Gauss elimination, section 4.1",
    "serial_fraction": "Serial fraction, Figure 7(c): n = 9689 from Table 4",
}


@dataclass(frozen=True)
class LobachevCommand:
    json_out: Path | None = shared(records_json())
    html: Path | None = shared_option("html")


@cli_command(LobachevCommand)
def lobachev(o: LobachevCommand) -> None:
    """The range is what the estimate spans when each printed input moves by half a unit of its
    last digit; a paper figure inside it (widened by the figure's own rounding) is reproduced."""
    rows = reproduce()
    shown = []
    for case in CASES:
        t = Table("quantity", "method", "paper", "perfcompose", "range over input rounding", "paper err %", "err %",
                  right=range(2, 7), title=_CASE_TITLES[case], show_lines=False)
        t.add_column("", justify="center")
        t.add_column("note")
        for r in (r for r in rows if r.case == case):
            rng = "" if r.low is None or r.high is None else f"{r.low:.4g} .. {r.high:.4g}"
            t.add_row(r.quantity, r.method, r.paper or "", "" if r.ours is None else f"{r.ours:.5g}", rng,
                      r.paper_error or "", "" if r.error is None else f"{100 * r.error:+.3g}", _MARK[r.reproduced],
                      r.note)
        console.print(t)
        shown.append(t)
    checked = [r for r in rows if r.reproduced is not None]
    console.print(f"{sum(bool(r.reproduced) for r in checked)} of {len(checked)} comparable paper figures lie "
                  "within the rounding of the printed inputs")
    if o.json_out:
        write_json(o.json_out, [r.to_json() for r in rows], "records")
    if o.html:
        tables_html(o.html, "001 (Lobachev, Loogen): the case studies' estimates, the paper's beside perfcompose's",
                    "paper table", shown, summary=[("paper figures within the rounding of the printed inputs",
                                                    f"{sum(bool(r.reproduced) for r in checked)} of {len(checked)}")])


@dataclass(frozen=True)
class Table1Command:
    quick: bool = option(False, "33 sizes x 33 repetitions in 11 interleaved rounds (seconds on 2 cores).")
    task: list[str] = option((), "Only these tasks.")
    rest_only: bool = option(False, "Only rows 9-13 (GrPPi, Hadoop, transfer): the paper's models recomposed, "
                                    "nothing measured.", flag="--printed-rows")
    out: Path | None = option(None, "Also write the measurements here (one experiment per task: OUT-stem_TASK.json).")
    html: Path | None = shared_option("html")
    restart: bool = option(False, "Discard the checkpoints of an interrupted run (.perfcompose/table1_*) and measure "
                                  "afresh.")


@cli_command(Table1Command)
def paper_table1(o: Table1Command) -> None:
    if o.rest_only:
        print_table1_rest()
        return
    unknown = [t for t in o.task if t not in paper.PAPER_TABLE1]
    if unknown:
        raise typer.BadParameter(f"unknown task {unknown[0]!r}; tasks: {', '.join(paper.PAPER_TABLE1)}",
                                 param_hint="--task")
    if not o.quick:
        console.print(f"the paper's 256 sizes 1,024 ... 262,144; {paper.FULL_REPS} repetitions ({paper.FULL_ROUNDS_T1} "
                      "rounds over all sizes) instead of its 256 (use --quick for 33 sizes)")
    else:
        console.print(f"quick: x = 2^10 ... 2^18 (33 sizes), {paper.QUICK_REPS} repetitions in {paper.QUICK_ROUNDS_T1} "
                      f"rounds over all sizes ({4 * paper.QUICK_REPS} for single-size tasks)")
    with progress() as bar:
        rows = table1(quick=o.quick, tasks=tuple(o.task) or None, progress=per_task(bar),
                      checkpoints=Path(".perfcompose"), restart=o.restart)
    table = Table("row", "task", "model [ns]", "CV % (min, .25, med, .75, max) / std %", "paper's model [ns]",
                  title="Table 1: models of the sequential task blocks, measured here [ns]")
    for k, r in enumerate(rows, start=1):
        var = (", ".join(f"{v:.2f}" for v in r.cv) if r.cv else f"{r.std:.2f} (std)")
        table.add_row(str(k), r.task, str(r.model.rounded(6)), var, r.paper)
    console.print(table)
    gil = "GIL: " + ", ".join(f"{r.task} {'releases' if TASKS[r.task].releases_gil else 'holds'} it" for r in rows)
    console.print(gil)
    retaken = [f"{r.task} {r.preempted}" for r in rows if r.preempted]
    if retaken:
        console.print("timings taken again because the core was taken away mid-call: " + ", ".join(retaken))
    busy = [r.task for r in rows
            if r.preempted > 0.1 * sum(len(p.values) for p in r.experiment.series[0].points)]
    if busy:
        err_console.print(f"[yellow]warning:[/yellow] other work kept taking the core away ({', '.join(busy)}): "
                          "those models may be distorted; measure again on a quieter machine")
    if o.out:
        for r in rows:
            save(r.experiment, o.out.with_name(f"{o.out.stem}_{r.task}{o.out.suffix or '.json'}"))
        console.print(f"measurements written next to {o.out}")
    if o.html:
        fig = figure(parts_figure(rows), "each task: measurements and fitted model",
                     "dots: medians with min-max bars; line: the fitted model; grey: beyond the measurements")
        tables_html(o.html, "000 Table 1: models of the sequential task blocks, measured here", "paper table", [table],
                    lines=[gil], figures=[fig])
    if not o.task:
        print_table1_rest()


#: the titles of the validation tables
_TITLES = {"table2": "Table 2: composition operators, modular vs monolithic vs measured",
           "table4": "Table 4: pipeline associativity and commutativity",
           "table6": "Table 6: layering neutrality, pipe(tpool_n(qsort), tpool_n(inc)) vs tpool_n(pipe(qsort, inc))",
           "table7": "Table 7: tpool_2(seq(a, b)) against pipe(a, b)"}


@dataclass(frozen=True)
class ValidationTableCommand:
    """The options of ``perfcompose paper table2``, ``table4``, ``table6`` and ``table7``."""

    quick: bool = option(False, "9 sizes x 5 rounds (minutes on 2 cores).")
    json_out: Path | None = shared(records_json())
    restart: bool = shared_option("restart")
    html: Path | None = shared_option("html")


def _validation_table(table: str, then: Callable[[Any], None] = lambda result: None) -> Callable[..., None]:
    """The command of one validation table (2, 4, 6 or 7): every one takes the same options,
    measures and prints its table, then prints what ``then`` finds in the result."""

    @cli_command(ValidationTableCommand)
    def run(o: ValidationTableCommand) -> None:
        configs = paper.paper_configurations(table)
        printed, title = dict(configs), _TITLES[table] + " [ns per element]"
        xs, rounds = (paper.QUICK_X, paper.QUICK_ROUNDS) if o.quick else (paper.FULL_X, paper.FULL_ROUNDS)
        result = run_composition_study([c for c, _ in configs], xs, rounds, default_of(ValidateCommand, "count"),
                                       default_of(ValidateCommand, "workers"), core_limit(table), o.restart)
        report_study(result, title, o.json_out, o.html, printed)
        then(result)

    return run


def _print_relation_iv(result: Any) -> None:
    for r in relation_iv(result.comparisons):
        console.print(f"relation (iv) {r.pooled} / {r.pipe}: median time ratio {r.ratio:.2f} "
                      f"({'holds' if r.holds else 'does not hold'})")


def _print_spreads(result: Any, groups: Iterable[Sequence[str]]) -> None:
    for s in coefficient_spreads(result.comparisons, groups):
        if s.percent is None:
            console.print(f"{', '.join(s.group)}: monolithic models of different orders")
        else:
            console.print(f"{' ~ '.join(s.group)}: leading coefficients within {s.percent:.1f} %")


paper_table2 = _validation_table("table2")
paper_table7 = _validation_table("table7", _print_relation_iv)
paper_table4 = _validation_table("table4", lambda result: _print_spreads(result, [[c for c, _ in paper.PAPER_TABLE4]]))
paper_table6 = _validation_table("table6", lambda result: _print_spreads(result, LAYERING_GROUPS))
