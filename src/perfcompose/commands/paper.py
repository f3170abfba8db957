"""``perfcompose paper fig4 / calotoiu`` and the rest of ``paper table1``: the papers' printed
models recomposed (000 Table 1 rows 9-13 and Figure 4; 003 Tables I-IV)."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from rich.markup import escape

from perfcompose.commands.common import (
    Table,
    cli_command,
    console,
    json_option,
    numbers_table,
    one_bar,
    plot_option,
    progress,
    records_json,
    shared_option,
    user_errors,
    write_json,
)
from perfcompose.commands.reports import tables_html
from perfcompose.option_fields import option, shared
from perfcompose.report.hadoop import plot_fig4
from perfcompose.validate.latency import CAPACITY, COUNT, FULL_ROUNDS, FULL_X, QUICK_ROUNDS, QUICK_X, study
from perfcompose.validate.lobachev import CASES, reproduce
from perfcompose.validate.paper import PAPER_TABLE1
from perfcompose.validate.paper_calotoiu import CALOTOIU_TABLE1, CALOTOIU_TABLE3, calotoiu_tables, spread
from perfcompose.validate.paper_hadoop import FIG4_M, FIG4_N, hadoop_grid, table1_rest, table3_check

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
