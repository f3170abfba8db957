"""``validate``: programs run for real, fitted whole (monolithic) and composed from their parts
(modular), and the prediction's error against the measurement."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfcompose.choices import Workers
from perfcompose.commands.common import cli_command, one_bar, progress, records_json, shared_option
from perfcompose.commands.components import x_values
from perfcompose.commands.consoles import err_console
from perfcompose.commands.validation import input_function, report_study, task_functions
from perfcompose.limits import check_memory, check_steps
from perfcompose.option_fields import option, shared
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


@dataclass(frozen=True)
class ValidateCommand:
    terms: list[str] = option(..., "Programs to run, e.g. 'pipe(inc, qsort)' 'tpool_2(qsort)'.", argument=True)
    x: list[str] = option(("1024:262144",), "Input sizes (LO:HI = powers of two, or a list).")
    rounds: int = option(5, "Interleaved rounds (repetitions).", flag="--reps", minimum=1, aliases=("--rounds",))
    count: int = option(32, "Elements per run, at least (more where short).", minimum=2)
    workers: Workers = option("threads", "What runs the stages.")
    json_out: Path | None = shared(records_json())
    restart: bool = shared_option("restart")
    html: Path | None = shared_option("html")
    task: list[str] = option((), "A stage of your own, NAME=module:function (a function of one data element), e.g. "
                                 "--task smooth=user_stages:smooth; repeatable. Built-in: nop, inc, qsort.")
    input_: str | None = option(None, "module:function making one data element of size x (default: x random 32-bit "
                                      "ints).", flag="--input")


@cli_command(ValidateCommand)
def validate(o: ValidateCommand) -> None:
    xs = tuple(x_values(o.x))
    check_memory(8.0 * max(xs) * o.count, f"{o.count} inputs of x = {max(xs):g} values (--x, --count)")
    # each program and its parts see every element of every input once a round: a quarter step each
    check_steps(0.25 * o.rounds * len(o.terms) * o.count * sum(xs), f"{o.rounds:,} rounds of {len(o.terms)} "
                f"program(s) on {o.count} inputs of each x (--reps, --count, --x)")
    functions = task_functions(o.task) if o.task else None
    make = input_function(o.input_) if o.input_ else None
    result = run_composition_study(o.terms, xs, o.rounds, o.count, o.workers, 2 * (os.cpu_count() or 1), o.restart,
                                   functions, make)
    report_study(result, "modular vs monolithic vs measured (000 section 4)", o.json_out, o.html)
