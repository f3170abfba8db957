"""``perfcompose mapreduce`` (one job on Dask) and ``perfcompose paper table3 / table5``
(000's MapReduce tables, measured here against the papers' and the calibrated operator)."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer

from perfcompose.choices import PICTURES, MapReduceStrategy, Picture
from perfcompose.commands.common import (
    cli_command,
    console,
    err_console,
    json_option,
    numbers_table,
    one_bar,
    progress,
    records_json,
    shared_option,
    write_json,
)
from perfcompose.errors import PerfcomposeError
from perfcompose.limits import check_steps
from perfcompose.option_fields import option, shared
from perfcompose.runtime.mapreduce import Engine, check_address, histogram_job, serial_histogram
from perfcompose.runtime.mapreduce.engine import TIMEOUT
from perfcompose.runtime.mapreduce.ops import prepare_picture
from perfcompose.validate import mapreduce as mr
from perfcompose.validate.mapreduce import REPEAT, check_cluster, summary, table3
from perfcompose.validate.paper_hadoop import PAPER_TABLE3, PAPER_TABLE5


@dataclass(frozen=True)
class DaskCluster:
    """Where the MapReduce jobs run: options of ``mapreduce`` and ``paper table5``."""

    scheduler: str | None = option(None, "Use the Dask cluster at this scheduler address (tcp://HOST:PORT) instead "
                                         "of starting one on this machine.")
    malloc_trim: int | None = option(None, "MALLOC_TRIM_THRESHOLD_ for the workers started here (default: unset; "
                                           "Dask's own launcher sets 65536).")


def _ms(v: float) -> str:
    return f"{v * 1e3:.1f}"


def _pct(v: float) -> str:
    return f"{v * 100:+.1f}"


@dataclass(frozen=True)
class MapReduceRunCommand(DaskCluster):
    picture: Picture = option("large", "The picture to histogram.")
    strategy: MapReduceStrategy = option("shuffle", "How the job reduces.")
    m: int = option(1, "Workers (nodes).", flag="-m")
    n: int = option(2, "Threads per worker.", flag="-n")
    inputs: int = option(16, "Input pictures (map tasks).", aliases=("-x",))
    repeat: int | None = option(None, "Map repetitions per task (default: per picture, ~16 ms of work).",
                                aliases=("-R",))
    timeout: float = option(TIMEOUT, "Seconds to wait for a scheduler.")


@cli_command(MapReduceRunCommand)
def run_one(o: MapReduceRunCommand) -> None:
    if o.inputs < 1:
        raise PerfcomposeError("--inputs must be at least 1")
    if not 0 < o.timeout < 1e6:
        raise typer.BadParameter(f"{o.timeout:g}: seconds, more than 0 and less than 1e6", param_hint="--timeout")
    if o.scheduler is None:
        check_cluster(o.m, o.n)
    else:
        check_address(o.scheduler)
    r = (_repeat(o.repeat) or REPEAT)[o.picture]
    check_steps(_job_steps(o.picture, o.inputs, r), f"{o.inputs:,} inputs x {r:,} map repetitions on the "
                f"{o.picture} picture (-x, -R)")
    with Engine(o.m, o.n, scheduler=o.scheduler, malloc_trim=o.malloc_trim, timeout=o.timeout) as engine:
        engine.run_on_workers(prepare_picture, o.picture)
        job = histogram_job(engine, o.picture, o.strategy, o.inputs, r)
        info = engine.info
    ok = bool((job.result == serial_histogram(o.picture, o.inputs)).all())
    console.print(f"{o.strategy} on {job.m} worker(s) x {job.n} thread(s), {o.inputs} x {o.picture} picture, R = {r}: "
                  f"{_ms(job.wall)} ms; histogram {'equals' if ok else '[red]differs from[/red]'} the serial one")
    p = job.phases
    console.print(f"phases: map {_ms(p.map)} ms, shuffle {_ms(p.shuffle)} ms, reduce {_ms(p.reduce)} ms "
                  f"(map tasks busy {_ms(p.map_busy)} ms, transfers {_ms(p.transfer_busy)} ms); {job.tasks} tasks")
    console.print("MALLOC_TRIM_THRESHOLD_ in the workers: " + ", ".join(str(v) if v else "unset"
                                                                      for v in info.malloc_trim))
    if job.disturbed:
        console.print(f"[yellow]disturbed:[/yellow] {job.why}")
    if not ok:
        raise typer.Exit(1)


def _job_steps(picture: str, inputs: int, repeat: int) -> float:
    """The limits' steps of one job: a task's REPEAT[picture] repetitions are ~16 ms of work, about 8e4
    steps, and a task costs Dask ~1 ms (5e3 steps) whatever its work."""
    return inputs * (5e3 + repeat * 8e4 / REPEAT[picture])


def _repeat(value: int | None) -> dict[str, int] | None:
    if value is None:
        return None
    if value < 1:
        raise PerfcomposeError("--repeat must be at least 1")
    return {p: value for p in PICTURES}


def _study(quick: bool, pictures: list[str], strategies: list[str], rounds: int | None, x: list[int],
           repeat: int | None, scheduler: str | None, malloc_trim: int | None, restart: bool,
           clusters: list[tuple[int, int]] | None = None) -> Any:
    xs = tuple(x) or (mr.QUICK_X if quick else mr.FULL_X)
    rounds = rounds or (mr.QUICK_ROUNDS if quick else mr.FULL_ROUNDS)
    if min(xs) < 1:
        raise typer.BadParameter(f"{min(xs)}: input pictures per job are at least 1", param_hint="--x")
    check_steps(rounds * len(strategies or mr.STRATEGY_NAMES) * sum(
        _job_steps(p, x, repeat or REPEAT[p]) for p in pictures or PICTURES if p in REPEAT for x in xs),
        f"{rounds:,} rounds of jobs of {', '.join(map(str, xs))} inputs (--rounds, --x, -R)")
    with progress() as bar:
        return mr.study(pictures=tuple(pictures) or mr.PICTURES, strategies=tuple(strategies) or mr.STRATEGY_NAMES,
                        clusters=clusters, xs=xs, rounds=rounds, repeat=_repeat(repeat),
                        scheduler=scheduler, malloc_trim=malloc_trim, checkpoints=Path(".perfcompose"),
                        restart=restart, progress=one_bar(bar))


def _print_clusters(result: Any) -> None:
    for c in result.clusters:
        k = c.costs
        bw = f", bandwidth {k['bandwidth'] / 1e9:.2f} GB/s" if k.get("bandwidth") else ""
        remote = f", to another worker {_ms(k['hop_remote'])} ms" if k.get("hop_remote") else ""
        trim = ", ".join(str(v) if v else "unset" for v in c.malloc_trim)
        console.print(f"cluster m={c.m} n={c.n}: dependent task {_ms(k['hop_local'])} ms on the same worker{remote}"
                      f"{bw}; MALLOC_TRIM_THRESHOLD_ {trim}")
    for m, n, why in result.skipped:
        console.print(f"skipped m={m} n={n}: {why}")


@dataclass(frozen=True)
class Table5Command(DaskCluster):
    quick: bool = option(False, "x = 16 inputs, 5 rounds (about a minute per cluster on 2 cores).")
    json_out: Path | None = shared(records_json())
    picture: list[str] = option((), "Only these pictures.")
    strategy: list[str] = option((), "Only these strategies.")
    rounds: int | None = option(None, "Interleaved rounds.", minimum=1)
    x: list[int] = option((), "Input pictures per job (default 16 quick, 32 full).")
    repeat: int | None = option(None, "Map repetitions per task, all pictures (default: per picture, ~16 ms of work).",
                                aliases=("-R",))
    restart: bool = shared_option("restart")


@cli_command(Table5Command)
def paper_table5(o: Table5Command) -> None:
    result = _study(o.quick, o.picture, o.strategy, o.rounds, o.x, o.repeat, o.scheduler, o.malloc_trim, o.restart)
    table = numbers_table("Table 5: pixel histogram on Dask, measured vs modular [ms per job]", "picture", "strategy",
                          "n", "m", "x", "R", "measured", "papers' op.", "err %", "calibrated", "err %", "err % range",
                          "map / shuffle / reduce", left=2)
    order = {"small": 0, "medium": 1, "large": 2}
    for r in sorted(result.rows, key=lambda r: (order[r.picture], r.strategy, r.n, r.m, r.x)):
        ph = r.phases
        table.add_row(r.picture, r.strategy, str(r.n), str(r.m), str(r.x), str(r.repeat), _ms(r.measured),
                      _ms(r.naive), _pct(r.error_naive), _ms(r.calibrated), _pct(r.error),
                      f"{_pct(r.error_range[0])}..{_pct(r.error_range[1])}",
                      f"{_ms(ph['map'])} / {_ms(ph['shuffle'])} / {_ms(ph['reduce'])}"
                      + (f" ({r.disturbed} disturbed)" if r.disturbed else ""))
    console.print(table)
    groups = numbers_table("relative error |predicted - measured| / measured in %, grouped as 000 Table 5", "group",
                           "min", "max", "median", "mean", "std", "papers' op. median", "paper: median (min-max)",
                           left=1)
    naive = dict(summary(result.rows, calibrated=False))
    for name, s in summary(result.rows):
        paper = PAPER_TABLE5.get(name)
        groups.add_row(name, *(f"{v:.1f}" for v in s), f"{naive[name][2]:.1f}",
                       f"{paper[2]:.1f} ({paper[0]:.1f}-{paper[1]:.1f})" if paper else "-")
    console.print(groups)
    large = [r for r in result.rows if r.picture == "large"]
    if large:
        worst = max(large, key=lambda r: abs(r.error))
        console.print(f"large picture: worst |error| of the calibrated prediction {abs(worst.error) * 100:.1f} % "
                      f"({worst.strategy}, m={worst.m}, n={worst.n}); of the papers' operator "
                      f"{max(abs(r.error_naive) for r in large) * 100:.1f} %")
    console.print(f"{result.rounds} rounds; each job is predicted from the calibrations just before and after "
                  "it; shown: the round with the median error of the calibrated prediction, the range of the "
                  "rounds' errors, median phases; papers' op. = eq. 5-7 over the map timed alone")
    _print_clusters(result)
    if o.json_out:
        write_json(o.json_out, result.to_json(), "records")


@dataclass(frozen=True)
class Table3Command:
    quick: bool = option(False, "x = 8 and 16 inputs, 5 rounds.")
    json_out: Path | None = shared(json_option("one record per thread count"))
    restart: bool = shared_option("restart")


@cli_command(Table3Command)
def paper_table3(o: Table3Command) -> None:
    cores = os.cpu_count() or 1
    fits = [(1, n) for n in PAPER_TABLE3 if n <= cores]
    xs = [8, 16] if o.quick else [8, 16, 32]
    result = _study(o.quick, ["large"], ["pairwise"], None, xs, None, None, None, o.restart, clusters=fits)
    rows = table3(result)
    table = numbers_table("Table 3: MapReduce as GrPPi (m = 1, pairwise), per input [ms]", "threads",
                          "paper: monolithic", "paper: modular", "composed here from paper's Table 1", "paper err %",
                          "measured here", "papers' op.", "err %", "calibrated", "err %")
    for r in rows:
        measured, naive, calibrated = r.measured, r.naive, r.calibrated
        here = ["-"] * 5 if measured is None or naive is None or calibrated is None else [
            _ms(measured), _ms(naive), _pct((naive - measured) / measured), _ms(calibrated),
            _pct((calibrated - measured) / measured)]
        table.add_row(f"n = {r.n}", f"{r.paper_monolithic / 1e6:.4g}", f"{r.paper_modular / 1e6:.4g}",
                      f"{r.composed / 1e6:.4g}", f"{r.paper_error:.2f}", *here)
    console.print(table)
    console.print(f"here: slope of the job time over x = {', '.join(map(str, xs))} inputs (large picture, R = "
                  "4); threads beyond this machine's cores are not measured")
    if o.json_out:
        write_json(o.json_out, [r.__dict__ for r in rows], "records")
    if not fits:
        err_console.print("no thread count fits this machine")
