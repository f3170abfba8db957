"""``paper table1`` ... ``table7``: the composition paper's (000) tables measured on this machine."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer

from perfcompose.bench import TASKS
from perfcompose.commands.common import (
    Table,
    cli_command,
    console,
    err_console,
    per_task,
    progress,
    records_json,
    shared_option,
)
from perfcompose.commands.paper import print_table1_rest
from perfcompose.commands.reports import tables_html
from perfcompose.commands.validation import ValidateCommand, report_study, run_composition_study
from perfcompose.data import save
from perfcompose.option_fields import default_of, option, shared
from perfcompose.report.demo import parts_figure
from perfcompose.report.html import figure
from perfcompose.validate import paper
from perfcompose.validate.paper import table1
from perfcompose.validate.paper_relations import LAYERING_GROUPS, coefficient_spreads, core_limit, relation_iv


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
