"""``profile``: a Python program run under cProfile over a parameter grid, resumably, its call
paths written as a profile that ``analyze`` reads."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import typer

from perfcompose.bench import BenchError, parse_grid
from perfcompose.bench.python_profile import MIN_SHARE, ProfileTarget, experiment
from perfcompose.choices import PythonProfiler
from perfcompose.commands.bench import sweep
from perfcompose.commands.common import cli_command, console, file_to_write, shared_option
from perfcompose.data import save
from perfcompose.option_fields import option
from perfcompose.report.numbers import size


@dataclass(frozen=True)
class ProfileCommand:
    command: list[str] = option(..., "The Python command after --, its parameters in braces: -- python script.py "
                                     "{n}", argument=True)
    param: list[str] = option((), "Grid: n=1000:100000 (powers of two between), n=1000:9000:2000 or "
                                  "n=1000,3000,10000. Repeatable.", aliases=("-p",))
    reps: int = option(3, "Profiled runs per point.", minimum=1)
    warmup: int = option(0, "Runs before each point that are not kept.", minimum=0)
    out: Path = option(..., "Profile to write (perfcompose JSON; .txt for Extra-P text).", aliases=("-o",),
                       callback=file_to_write)
    profiler: PythonProfiler = option(
        "cprofile", "cprofile (every call timed by the wall clock; call paths apportioned from callers, as gprof "
                    "does), cprofile-cpu (the same, timed by the process's CPU time: what other work on the machine "
                    "does not disturb) or pyinstrument (sampled; the real call paths; pip install pyinstrument).")
    min_share: float = option(MIN_SHARE, "A call path below this fraction of a run counts as its caller's own time.")
    timeout: float | None = option(None, "Seconds before a run is stopped and its point reported as failed.")
    seed: int = shared_option("seed")
    restart: bool = shared_option("restart")


@cli_command(ProfileCommand)
def profile(o: ProfileCommand) -> None:
    """Resumes from OUT.checkpoint.jsonl; then: perfcompose analyze OUT --at n=VALUE."""
    if not 0 <= o.min_share < 1:
        raise typer.BadParameter(f"{o.min_share}; give a fraction of a run, 0 or more and below 1",
                                 param_hint="--min-share")
    grid = parse_grid(o.param)
    if not grid:
        raise BenchError("give the grid with --param NAME=VALUES", hint="e.g. --param n=1000:100000")
    target = ProfileTarget(tuple(o.command), timeout=o.timeout, label=" ".join(o.command), min_share=o.min_share,
                           profiler=o.profiler)
    identity = {"target": target.label, "profiler": o.profiler, "min_share": o.min_share,
                "grid": {k: list(v) for k, v in grid.items()}, "warmup": o.warmup}
    result = sweep(target, grid, o, identity, f"profile {target.label}")
    profiled = experiment(result.parameters, result.details, source=f"perfcompose profile {target.label}")
    save(profiled, o.out)
    largest = max(result.details)
    at = ",".join(f"{p}={size(10 * v)}" for p, v in zip(result.parameters, largest))
    console.print(f"{len(profiled.series)} call paths from {sum(len(v) for v in result.details.values())} runs at "
                  f"{len(result.details)} points ({len(result.failures)} failed), in seconds; written to {o.out}\n"
                  f"next: perfcompose analyze {o.out} --at {at}", highlight=False)
