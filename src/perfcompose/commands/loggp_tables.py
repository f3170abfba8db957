"""What ``loggp simulate`` prints: for a program, the table of its processors (the last to finish of
a large one) and the makespan; for a GOAL schedule, its parameters, the ranks that finish last and
the makespan. No typer and no NumPy (times are any sequences of floats), so that the command
prints alike whether it runs through the full command line or without it."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.markup import escape

from perfcompose.commands.consoles import console, fmt
from perfcompose.commands.loggp_plain_tables import MAX_ROWS, critical, last_to_finish
from perfcompose.report.tables import ResultTable as Table

__all__ = ["MAX_ROWS", "last_to_finish", "critical", "print_goal_result", "print_program_table", "print_makespan"]


def print_goal_result(program: Path, num_ranks: int, params: Any, O: float, S: float, finish: Any) -> None:
    """The result of a GOAL schedule: its parameters, a table of the ranks' finish times (any
    sequence of floats: a typed buffer or a NumPy array; the last :data:`MAX_ROWS` of a large
    schedule) and the makespan."""
    console.print(f"{program}: LogGOPSim semantics, {num_ranks} ranks; L={params.L:g} o={params.o:g} "
                  f"g={params.g:g} G={params.G:g} O={O:g} S={S:g}", highlight=False)
    table = Table()
    table.add_column("rank", justify="right")
    table.add_column("finish", justify="right")
    shown: Any = range(num_ranks)
    if num_ranks > MAX_ROWS:
        shown = last_to_finish(finish)
        table.caption = f"the {MAX_ROWS} of {num_ranks} ranks that finish last (--json lists all)"
    for h in shown:
        table.add_row(str(h), fmt(float(finish[h]), ".6g"))
    console.print(table)
    console.print(f"makespan {max(finish, default=0.0):.6g}")


def print_program_table(title: str, unit: str, finish: Any, computation: Any, communication: Any,
                        operations: Any) -> None:
    """The table of a program's processors: finish, computation, communication and operations
    (sequences of numbers, one per processor; the last :data:`MAX_ROWS` to finish of a large
    program), times in ``unit``."""
    u = escape(f" [{unit}]") if unit else ""
    table = Table(title=title, title_justify="left")
    for col in ("processor", f"finish{u}", f"computation{u}", f"communication{u}", "operations"):
        table.add_column(col, justify="right")
    P = len(finish)
    shown: Any = range(P)
    if P > MAX_ROWS:
        shown = last_to_finish(finish)
        table.caption = f"the {MAX_ROWS} of {P} processors that finish last (--json lists all)"
    for p in shown:
        table.add_row(str(p), fmt(float(finish[p]), ".6g"), fmt(float(computation[p]), ".6g"),
                      fmt(float(communication[p]), ".6g"), str(int(operations[p])))
    console.print(table)


def print_makespan(makespan: float, unit: str, processor: int) -> None:
    """The makespan line of a program's result."""
    console.print(f"makespan {makespan:.6g}{' ' + unit if unit else ''} (processor {processor})")
