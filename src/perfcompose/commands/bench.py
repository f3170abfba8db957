"""``bench``: time a target over a parameter grid, resumably, and summarise the spread of each point."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from perfcompose.bench import TASKS, BenchError, checkpoint_for, parse_grid, resolve_target, run_sweep
from perfcompose.commands.common import (
    cli_command,
    console,
    err_console,
    file_to_write,
    fmt,
    numbers_table,
    progress,
    shared_option,
)
from perfcompose.data import save
from perfcompose.option_fields import option
from perfcompose.report.numbers import size
from perfcompose.variation import coefficient_of_variation


@dataclass(frozen=True)
class BenchCommand:
    target: str | None = option(None, "Built-in task (nop, inc, qsort, map_small, ...) or module:function.",
                                argument=True)
    cmd: str | None = option(None, "Shell command template, e.g. \"./solver --n {x}\".")
    param: list[str] = option((), "Grid: x=1024:262144:1024, x=1024:65536 (powers of two) or n=1,2,4. Repeatable.",
                              aliases=("-p",))
    reps: int = option(5, "Timed repetitions per point (per round).", minimum=1)
    rounds: int = option(1, "Passes over the whole grid, each in a new order; a point gets reps x rounds values. "
                            "Several rounds spread bursts of other work on the machine over all points.", minimum=1)
    warmup: int = option(1, "Untimed runs before each visit of a point.", minimum=0)
    out: Path = option(..., "Experiment file to write (format by extension).", aliases=("-o",), callback=file_to_write)
    timeout: float | None = option(None, "Seconds before a command run is stopped and its point reported as failed.")
    seed: int = shared_option("seed")
    restart: bool = shared_option("restart")


@cli_command(BenchCommand)
def bench(o: BenchCommand) -> None:
    grid = parse_grid(o.param)
    tgt, identity = resolve_target(o.target, o.cmd, o.timeout)
    task = None if o.cmd else TASKS.get(o.target or "")
    if task is not None:  # a built-in task's parameters left out take its quick grid
        grid.update({p: task.quick_grid[p] for p in task.params if p not in grid})
    if not grid:
        raise BenchError("give the grid with --param NAME=VALUES", hint="e.g. --param x=1024:65536")
    identity.update(grid={k: list(v) for k, v in grid.items()}, warmup=o.warmup)
    result = sweep(tgt, grid, o, identity, f"bench {identity['target']}", o.rounds, skipped=True)
    region = o.target if o.target and ":" not in o.target else (o.target or "command").split(":")[-1]
    exp = result.experiment(region=region, source=f"perfcompose bench {identity['target']}")
    save(exp, o.out)
    _summary(exp)
    console.print(f"{len(result.values)} points measured, {len(result.failures)} failed; written to {o.out}")


def sweep(target: Any, grid: dict[str, tuple[float, ...]], o: Any, identity: dict[str, Any], label: str,
          rounds: int = 1, skipped: bool = False) -> Any:
    """:func:`run_sweep` of ``bench`` or ``profile`` (options ``o``) resumed from OUT's checkpoint; what was
    resumed and failed (and with ``skipped`` the corrupt checkpoint lines) said."""
    ckpt = checkpoint_for(o.out)
    with progress() as bar:
        job = bar.add_task(label, total=None)
        result = run_sweep(target, grid, reps=o.reps, warmup=o.warmup, checkpoint=ckpt, seed=o.seed, restart=o.restart,
                           progress=lambda k, n, _c: bar.update(job, completed=k, total=n), identity=identity,
                           rounds=rounds)
    if result.resumed:
        console.print(f"resumed: {result.resumed} points from {ckpt}")
    for line in result.skipped_lines if skipped else ():
        err_console.print(f"[yellow]warning:[/yellow] {ckpt}, line {line}: corrupt checkpoint line skipped "
                          "(its point is measured again)", highlight=False)
    for coord, failure in sorted(result.failures.items()):
        where = ", ".join(f"{p}={size(v)}" for p, v in zip(result.parameters, coord))
        code = f"exit code {failure.exit_code}" if failure.exit_code is not None else "failed"
        err_console.print(f"[yellow]warning:[/yellow] {where}: {code}: {failure.message}", highlight=False)
    return result


def _summary(exp: Any, cv_warn: float = 10.0) -> None:
    series = exp.series[0]
    table = numbers_table(f"{series.label}: median and coefficient of variation per point", *exp.parameters, "reps",
                          "median [s]", "CV %")
    points = series.points
    shown = points if len(points) <= 24 else [points[k] for k in np.linspace(0, len(points) - 1, 24).astype(int)]
    cvs = [coefficient_of_variation(p.values) * 100 for p in points]
    for p in shown:
        k = points.index(p)
        table.add_row(*(size(c) for c in p.coordinate), str(len(p.values)), f"{np.median(p.values):.4g}",
                      fmt(cvs[k], ".2f"))
    console.print(table)
    finite = [c for c in cvs if c == c]
    if finite:
        q = np.quantile(finite, [0, 0.25, 0.5, 0.75, 1])
        console.print("CV quartiles (min, 0.25, median, 0.75, max) %: " + ", ".join(f"{v:.2f}" for v in q))
        high = sum(c > cv_warn for c in finite)
        if high:
            err_console.print(f"[yellow]warning:[/yellow] {high} of {len(finite)} points have a CV above "
                              f"{cv_warn:g} %: raise --reps, quiet the machine, or lengthen the timed work")
