"""Symbolic evaluation vs simulation of the paper's Machine Repair Model (paper 004, section 2.2).

The paper: the MRM's cost model evaluates in 120 us on a Pentium II 350 MHz, irrespective of
N and P, while simulating it would take about 112 ks. Here both run on this machine, on the same
model: the compiled T_main (as a plain function and as a perfcompose Model) against the
discrete-event simulator, and the ratio.

    python benchmarks/pamela_speed.py [--P 1000] [--N 10000] [--eval-N 1e6]

A second table times the MRM's compilation (first in the process, then again), the models the
Modeling Engine generates for the four case studies (generated, compiled, evaluated), and one
`perfcompose pamela eval ... P=1:1000 N=1e6` process (1,000 points) on the compiled numeric form and on the
source with the model cache cold and warm, each against an anchor measured in the same run: a fixed
pure-Python loop, and the start-up of `python -c pass`.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import timeit
from dataclasses import fields
from pathlib import Path

from rich.console import Console
from rich.table import Table

from perfcompose.pamela import compile_file

MRM = Path(__file__).resolve().parent.parent / "examples" / "pamela" / "mrm.pam"


def per_call(func, number: int) -> float:
    """Best of five runs of ``number`` calls, in seconds per call."""
    return min(timeit.repeat(func, number=number, repeat=5)) / number


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--P", type=int, default=1000, help="clients (default 1000)")
    ap.add_argument("--N", type=int, default=10_000, help="cycles for the simulation (default 10^4)")
    ap.add_argument("--eval-N", type=float, default=1e6, help="cycles for the symbolic evaluation (default 10^6)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    console = Console(width=160)

    started = time.perf_counter()
    cm = compile_file(MRM)
    text = cm.text("main").splitlines()[-1]
    compile_s = time.perf_counter() - started
    f = cm.function()
    model = cm.model()
    P, big_n = float(args.P), float(args.eval_N)
    fast = per_call(lambda: f(P, big_n), 200_000)
    via_model = per_call(lambda: model(P=P, N=big_n), 20_000)
    cm.simulate({"P": 2, "N": 2})  # load the compiled simulator kernel once

    rows = []
    for dist in ("deterministic", "exponential-service", "exponential"):
        sim = cm.simulate({"P": args.P, "N": args.N}, distribution=dist, seed=args.seed)
        rows.append((dist, sim))
    bound_small = cm.evaluate({"P": args.P, "N": args.N}).T

    console.print(f"[bold]{MRM.name}[/bold]: {text}   (compiled and simplified in {compile_s * 1e3:.0f} ms, "
                  "the first compilation in this process)")
    console.print(f"T_main(P={args.P}, N={big_n:g}) = {f(P, big_n):.10g}")
    t = Table(title="symbolic evaluation vs simulation, same model", title_justify="left")
    for col in ("what", "P", "N", "time", "events", "sim / eval (fast)", "sim / eval (Model)"):
        t.add_column(col, justify="right" if col != "what" else "left")
    t.add_row("T_main, plain function (lambdify)", str(args.P), f"{big_n:g}", f"{fast * 1e6:.3f} us", "", "", "")
    t.add_row("T_main, perfcompose Model", str(args.P), f"{big_n:g}", f"{via_model * 1e6:.3f} us", "", "", "")
    for dist, sim in rows:
        events = 2 * sim.uses  # one delay and one use per cycle
        t.add_row(f"simulation, {dist}", str(args.P), f"{args.N:g}", f"{sim.wall:.3f} s", f"{events:,}",
                  f"{sim.wall / fast:,.0f}x", f"{sim.wall / via_model:,.0f}x")
    console.print(t)
    det = rows[0][1]
    console.print(f"at N={args.N}: bound {bound_small:.10g}, simulated {det.time:.10g} (deterministic); "
                  f"simulating N={big_n:g} would take about {det.wall * big_n / args.N:,.0f} s at this rate, "
                  f"{det.wall * big_n / args.N / fast:,.2e} times the symbolic evaluation.")
    engine_table(console)


def anchor_loop() -> float:
    """Seconds of a fixed pure-Python loop (best of three): the ratio column's unit."""
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        sum(i * i for i in range(200_000))
        best = min(best, time.perf_counter() - t0)
    return best


def process_s(cmd: list[str], repeat: int = 3, env: dict[str, str] | None = None,
              fresh_cache: Path | None = None) -> float:
    """Best wall time of a whole process; ``fresh_cache``: a new, empty model cache for every run
    (a cold start), else the cache ``env`` names."""
    best = float("inf")
    for k in range(repeat):
        run_env = {**os.environ, **(env or {})}
        if fresh_cache is not None:
            run_env["PERFCOMPOSE_CACHE_DIR"] = str(fresh_cache / f"run{k}")
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=run_env)
        best = min(best, time.perf_counter() - t0)
    return best


def process_rows(t: Table, tmp: Path) -> None:
    """1,000 MRM points in one process: from the compiled numeric form, and from the source with
    the model cache cold (compiled in the process) and warm (compiled by an earlier process)."""
    exe = str(Path(sys.executable).with_name("perfcompose"))
    compiled = tmp / "mrm.c.pam"
    compiled.write_text(compile_file(MRM).text("main") + "\n")
    grid = ["P=1:1000", "N=1e6", "--json", "-"]
    bare = process_s([sys.executable, "-c", "pass"])
    warm = {"PERFCOMPOSE_CACHE_DIR": str(tmp / "warm")}
    subprocess.run([exe, "pamela", "eval", str(MRM), *grid], check=True, stdout=subprocess.DEVNULL,
                   env={**os.environ, **warm})
    rows = (("compiled form: pamela eval mrm.c.pam", process_s([exe, "pamela", "eval", str(compiled), *grid])),
            ("source, cache cold: pamela eval mrm.pam",
             process_s([exe, "pamela", "eval", str(MRM), *grid], fresh_cache=tmp / "cold")),
            ("source, cache warm: pamela eval mrm.pam", process_s([exe, "pamela", "eval", str(MRM), *grid], env=warm)))
    for what, seconds in rows:
        t.add_row(f"process, P=1:1000 N=1e6 (1,000 points), {what}", f"{seconds:.2f} s",
                  f"{seconds / bare:.1f} x python -c pass ({bare * 1e3:.0f} ms)", "<= 0.5 s")


def engine_table(console: Console) -> None:
    from perfcompose.pamela.compile.costmodel import compile_file as compile_again
    from perfcompose.pamela.dataparallel.machine_model import MachineParameters, machine_text
    from perfcompose.pamela.dataparallel.modeling_engine import generate
    from perfcompose.pamela.dataparallel.vangemund import PROGRAMS

    unit = anchor_loop()
    t = Table(title=f"compile and evaluate (anchor: a fixed Python loop, {unit * 1e3:.1f} ms here)",
              title_justify="left")
    for col in ("what", "time", "/ anchor", "goal"):
        t.add_column(col, justify="right" if col != "what" else "left")
    t0 = time.perf_counter()
    compile_again(MRM).text("main")
    again = time.perf_counter() - t0
    t.add_row("MRM compiled and simplified again (same process)", f"{again * 1e3:.1f} ms", f"{again / unit:.2f}",
              "<= 100 ms")
    params = MachineParameters(*(1e-9,) * len(fields(MachineParameters)))
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "machine.pam").write_text(machine_text(params))
        for program in sorted(PROGRAMS.glob("[!_]*.py")):  # _*.py: code the programs share
            t0 = time.perf_counter()
            g = generate(program)
            path = Path(tmp) / (program.stem + ".pam")
            path.write_text(g.text)
            cm = compile_again(path)
            fn = cm.function()
            args = [{"N": 1024, "P": 2}[p] for p in cm.parameters]
            fn(*args)
            made = time.perf_counter() - t0
            ev = per_call(lambda fn=fn, args=args: fn(*args), 20)
            t.add_row(f"{program.stem}: generated + compiled; one evaluation at N=1024, P=2",
                      f"{made * 1e3:.0f} ms; {ev * 1e6:.1f} us", f"{ev / unit:.3f} (eval)", "eval <= 1 ms")
        process_rows(t, Path(tmp))
    console.print(t)


if __name__ == "__main__":
    main()
