"""What ``loggp simulate`` prints: for a program, the table of its processors (the last to finish of
a large one) and the makespan; for a GOAL schedule, its parameters, the ranks that finish last and
the makespan. No typer and no NumPy (times are any sequences of floats), so that the command
prints alike whether it runs through the full command line or without it."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.markup import escape

from perfcompose.commands.consoles import console
from perfcompose.commands.loggp.plain_tables import (
    MAX_ROWS,
    ResultLayout,
    critical,
    goal_layout,
    last_to_finish,
    makespan_line,
    program_layout,
)
from perfcompose.report.tables import ResultTable as Table

__all__ = ["MAX_ROWS", "last_to_finish", "critical", "print_goal_result", "print_program_table", "print_makespan"]


def _print_table(layout: ResultLayout) -> None:
    """The layout's table, in Rich (headers escaped: a unit's brackets print)."""
    table = Table(*map(escape, layout.headers), title=layout.title, caption=layout.caption,
                  right=range(len(layout.headers)))
    for row in layout.rows:
        table.add_row(*row)
    console.print(table)


def print_goal_result(program: Path, num_ranks: int, params: Any, O: float, S: float, finish: Any) -> None:
    """The result of a GOAL schedule (:func:`.plain_tables.goal_layout`); the finish times are
    any sequence of floats: a typed buffer or a NumPy array."""
    layout = goal_layout(str(program), num_ranks, params, O, S, finish)
    for line in layout.head:
        console.print(line, highlight=False)
    _print_table(layout)
    for line in layout.tail:
        console.print(line)


def print_program_table(title: str, unit: str, finish: Any, computation: Any, communication: Any,
                        operations: Any) -> None:
    """The table of a program's processors (:func:`.plain_tables.program_layout`)."""
    _print_table(program_layout(title, unit, finish, computation, communication, operations))


def print_makespan(makespan: float, unit: str, processor: int) -> None:
    """The makespan line of a program's result."""
    console.print(makespan_line(makespan, unit, processor))
