"""``bench``: time a target over a parameter grid, resumably, and summarise the spread of each point."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import typer

from perfcompose.bench import TASKS, BenchError, checkpoint_for, parse_grid, resolve_target, run_sweep
from perfcompose.commands.common import (
    Table,
    console,
    err_console,
    file_to_write,
    fmt,
    progress,
    restart_option,
    seed_option,
    user_errors,
)
from perfcompose.data import save
from perfcompose.report.numbers import size
from perfcompose.variation import coefficient_of_variation


@user_errors
def bench(target: str | None = typer.Argument(None, help="Built-in task (nop, inc, qsort, map_small, ...) "
                                                 "or module:function."),
          cmd: str | None = typer.Option(None, "--cmd", help='Shell command template, e.g. "./solver --n {x}".'),
          param: list[str] = typer.Option([], "--param", "-p", help="Grid: x=1024:262144:1024, x=1024:65536 "
                                          "(powers of two) or n=1,2,4. Repeatable."),
          reps: int = typer.Option(5, "--reps", min=1, help="Timed repetitions per point (per round)."),
          rounds: int = typer.Option(1, "--rounds", min=1, help="Passes over the whole grid, each in a new "
                                     "order; a point gets reps x rounds values. Several rounds spread bursts "
                                     "of other work on the machine over all points."),
          warmup: int = typer.Option(1, "--warmup", min=0, help="Untimed runs before each visit of a point."),
          out: Path = typer.Option(..., "--out", "-o", callback=file_to_write,
                                   help="Experiment file to write (format by extension)."),
          timeout: float | None = typer.Option(None, "--timeout", help="Seconds before a command run is "
                                                  "stopped and its point reported as failed."),
          seed: int = seed_option(),
          restart: bool = restart_option(),
          ) -> None:
    grid = parse_grid(param)
    tgt, identity = resolve_target(target, cmd, timeout)
    if target is not None and not cmd:
        if target in TASKS:
            task = TASKS[target]
            missing = [p for p in task.params if p not in grid]
            if missing:
                grid.update({p: task.quick_grid[p] for p in missing})
    if not grid:
        raise BenchError("give the grid with --param NAME=VALUES", hint="e.g. --param x=1024:65536")
    identity.update(grid={k: list(v) for k, v in grid.items()}, warmup=warmup)
    ckpt = checkpoint_for(out)
    with progress() as bar:
        job = bar.add_task(f"bench {identity['target']}", total=None)

        def step(k: int, n: int, _coord: tuple[float, ...]) -> None:
            bar.update(job, completed=k, total=n)

        result = run_sweep(tgt, grid, reps=reps, warmup=warmup, checkpoint=ckpt, seed=seed, restart=restart,
                           progress=step, identity=identity, rounds=rounds)
    if result.resumed:
        console.print(f"resumed: {result.resumed} points from {ckpt}")
    for line in result.skipped_lines:
        err_console.print(f"[yellow]warning:[/yellow] {ckpt}, line {line}: corrupt checkpoint line skipped "
                          "(its point is measured again)", highlight=False)
    for coord, failure in sorted(result.failures.items()):
        where = ", ".join(f"{p}={size(v)}" for p, v in zip(result.parameters, coord))
        code = f"exit code {failure.exit_code}" if failure.exit_code is not None else "failed"
        err_console.print(f"[yellow]warning:[/yellow] {where}: {code}: {failure.message}", highlight=False)
    region = target if target and ":" not in target else (target or "command").split(":")[-1]
    exp = result.experiment(region=region, source=f"perfcompose bench {identity['target']}")
    save(exp, out)
    _summary(exp)
    console.print(f"{len(result.values)} points measured, {len(result.failures)} failed; written to {out}")


def _summary(exp: Any, cv_warn: float = 10.0) -> None:
    series = exp.series[0]
    table = Table(title=f"{series.label}: median and coefficient of variation per point", title_justify="left")
    for col in (*exp.parameters, "reps", "median [s]", "CV %"):
        table.add_column(col, justify="right")
    cvs = []
    points = series.points
    shown = points if len(points) <= 24 else [points[k] for k in np.linspace(0, len(points) - 1, 24).astype(int)]
    for p in points:
        cvs.append(coefficient_of_variation(p.values) * 100)
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
