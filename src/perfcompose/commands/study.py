"""``validate``: programs run for real, fitted whole (monolithic) and composed from their parts
(modular), and the prediction's error against the measurement."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import typer

from perfcompose.choices import Workers
from perfcompose.commands.common import html_option, one_bar, progress, records_json, restart_option, user_errors
from perfcompose.commands.components import x_values
from perfcompose.commands.consoles import err_console
from perfcompose.commands.reports import study_html
from perfcompose.commands.validation import input_function, print_study, task_functions, write_study
from perfcompose.limits import check_memory
from perfcompose.validate.modular import study


def run_composition_study(configurations: list[str], xs: tuple[float, ...], rounds: int, count: int, workers: str,
              max_workers: int | None, restart: bool, functions: Any = None, make: Any = None) -> Any:
    """Run a validation study with a progress bar; finished measurements are kept in .perfcompose/,
    and the command says where."""
    kept = Path(".perfcompose")
    with progress() as bar:
        result = study(configurations, xs, rounds=rounds, count=count, workers=workers, max_workers=max_workers,
                       checkpoints=kept, restart=restart, progress=one_bar(bar), functions=functions, make=make)
    err_console.print(f"measurements kept in {kept.resolve()}: a rerun resumes from them, --restart measures "
                      "anew; delete the folder to free its space", highlight=False, soft_wrap=True)
    return result


@user_errors
def validate(terms: list[str] = typer.Argument(..., help="Programs to run, e.g. 'pipe(inc, qsort)' 'tpool_2(qsort)'."),
             x: list[str] = typer.Option(["1024:262144"], "--x",
                                         help="Input sizes (LO:HI = powers of two, or a list)."),
             rounds: int = typer.Option(5, "--reps", "--rounds", min=1, help="Interleaved rounds (repetitions)."),
             count: int = typer.Option(32, "--count", min=2, help="Elements per run, at least (more where short)."),
             workers: Workers = typer.Option("threads", "--workers", help="What runs the stages."),
             json_out: Path | None = records_json(),
             restart: bool = restart_option(),
             html: Path | None = html_option(),
             task: list[str] = typer.Option([], "--task", help="A stage of your own, NAME=module:function (a "
                                            "function of one data element), e.g. --task smooth=user_stages:smooth; "
                                            "repeatable. Built-in: nop, inc, qsort."),
             input_: str | None = typer.Option(None, "--input", help="module:function making one data element "
                                                  "of size x (default: x random 32-bit ints)."),
             ) -> None:
    xs = tuple(x_values(x))
    check_memory(8.0 * max(xs) * count, f"{count} inputs of x = {max(xs):g} values (--x, --count)")
    functions = task_functions(task) if task else None
    make = input_function(input_) if input_ else None
    result = run_composition_study(terms, xs, rounds, count, workers, 2 * (os.cpu_count() or 1), restart,
                                   functions, make)
    print_study(result, "modular vs monolithic vs measured (000 section 4)")
    if json_out:
        write_study(result, json_out)
    if html:
        study_html(html, result, "modular vs monolithic vs measured (000 section 4)")
