"""Messages simulated per second by perfcompose.loggp on a random pattern (P = 4096, 10^6 messages).

Each message goes from a uniformly random processor to another, with 1 to 65,536 bytes; each
processor sends in message-id order. Timed: building the step from arrays plus the simulation
(median of the repetitions, after one untimed run that compiles the kernels; the rows take turns
in every round, so that a load that comes and goes falls on all alike); the LogGOPSim
semantics row includes laying the program's steps out as the arrays its kernel reads
(``loggopsim_steps.step_arrays``; finish times only, as with ``timelines=False``). The anchor is the standard
kernel measured in the same run (ratios in the last column); LogGOPSim itself is timed beside
whole processes by loggp_process.py. The kernels are the compiled C extension where it is built,
else the plain-Python references; the header says which ran.
The worst case runs on the same pattern by default: on a random pattern every processor waits on
others in one big cycle, and breaking it costs a forced send per processor (the waiting graph's
components are kept from one forced send to the next; --worst-procs/--worst-messages give a
smaller pattern).

Goal: every mode at least 0.8 of the anchor's rate (the last column says whether it holds). On a
shared machine wall times move with the load; ``--callgrind`` adds a second table that does not:
each row run once more in a process of its own under valgrind's callgrind, which counts the
instructions of that row alone (the warm-up run is left out), per message and against the anchor.

``--huge`` runs instead one simulation of P = 2^20 processors and 10^7 random messages per mode
(standard, and LogGOPSim semantics with ``--huge-modes paper,loggopsim``), each in a process of its
own: the memory is estimated first (refused beyond ``--max-memory``, 4 GiB by default), a progress
display names the stage, and the table gives each stage's wall and CPU seconds, the peak memory
and the load; goal: at most 60 s and 4 GB.

    python benchmarks/loggp_speed.py [--procs 4096] [--messages 1000000] [--reps 5] [--callgrind]
    python benchmarks/loggp_speed.py --huge [--huge-modes paper,loggopsim] [--max-memory 4GiB]
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures
import contextlib
import functools
import itertools
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator

import numpy as np

from perfcompose.loggp import CommStep, LogGP, Program, simulate_program, simulate_step, worst_case_step
from perfcompose.loggp.kernels import backend


def pattern(P: int, M: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    src = rng.integers(0, P, M)
    dst = (src + rng.integers(1, P, M)) % P
    return src, dst, rng.integers(1, 65537, M).astype(np.float64)


def timed_together(fns: list[Callable[[], object]], reps: int) -> list[float]:
    """The median time of each of ``fns`` over ``reps`` rounds, after one untimed run of each
    (compiling, warming up); each round runs every one in turn, so that a load that comes and
    goes on a shared machine falls on all of them alike."""
    for fn in fns:
        fn()
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(reps):
        for fn, t in zip(fns, times):
            start = time.perf_counter()
            fn()
            t.append(time.perf_counter() - start)
    return [statistics.median(t) for t in times]


def goal_kernels() -> str:
    """Which implementation runs LogGOPSim's semantics."""
    from perfcompose.loggp.steps.loggopsim_steps import kernel_name

    return kernel_name()


GOAL = 0.8  #: every mode's rate at least this fraction of the anchor's


def rows_to_run(args: argparse.Namespace) -> list[tuple[str, str, int, Callable[[], object], int]]:
    """(key, name, messages, what is timed, repetitions) of every row; the first is the anchor."""
    P, M = args.procs, args.messages
    src, dst, nbytes = pattern(P, M)
    params = LogGP(L=1.0, o=0.5, g=0.6, G=0.0002, unit="us")
    step = CommStep.from_arrays(P, src, dst, nbytes)
    rows: list[tuple[str, str, int, Callable[[], object], int]] = [
        ("standard", "standard (Figure 2), random ties, incl. building the step", M,
         lambda: simulate_step(CommStep.from_arrays(P, src, dst, nbytes), params), args.reps),
        ("rank", "standard (Figure 2), ties by rank", M, lambda: simulate_step(step, params, ties="rank"), args.reps)]
    wp, wm = args.worst_procs or P, min(args.worst_messages or M, M)
    wstep = CommStep.from_arrays(wp, *pattern(wp, wm, seed=1))
    forced = len(worst_case_step(wstep, params, seed=1).forced) if args.only in (None, "worst") else 0
    rows.append(("worst", f"worst case (sec. 4.2), P = {wp}, {forced} forced sends", wm,
                 lambda: worst_case_step(wstep, params, seed=1), args.reps))
    prog = Program(P, (step,))
    rows.append(("loggopsim", "LogGOPSim semantics, incl. the step arrays", M,
                 lambda: simulate_program(prog, params, semantics="loggopsim", timelines=False), args.reps))
    return rows


def instructions(key: str, args: argparse.Namespace) -> int | None:
    """Instructions of one run of row ``key`` (after an untimed one), counted by callgrind in a
    process of its own: collected only inside ``itertools.starmap``, which runs nothing else."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=starmap_next",
               f"--callgrind-out-file={out}", sys.executable, os.path.abspath(__file__), "--only", key,
               "--procs", str(args.procs), "--messages", str(args.messages), "--worst-procs", str(args.worst_procs),
               "--worst-messages", str(args.worst_messages)]
        try:
            subprocess.run(cmd, check=True, capture_output=True, env={**os.environ, "PYTHONHASHSEED": "0"},
                           timeout=args.callgrind_timeout)
        except subprocess.TimeoutExpired:
            return None
        text = open(out).read()
    found = re.search(r"^(?:summary|totals):\s*(\d+)", text, re.M)
    return int(found.group(1)) if found and int(found.group(1)) > 0 else None


HUGE_P, HUGE_M = 2 ** 20, 10 ** 7  #: the large run: processors, messages
HUGE_SECONDS, HUGE_BYTES = 60.0, 4e9  #: its goal: time and peak memory
#: the pattern's arrays while generating (src, dst, sizes, and NumPy's temporaries) [bytes per message]
_PATTERN_BYTES = 48.0


def huge_estimate(P: int, M: int, semantics: str) -> float:
    """Peak bytes of one large run: the generated pattern beside the simulation's estimate."""
    from perfcompose.loggp.work_size import simulation_bytes

    return _PATTERN_BYTES * M + simulation_bytes(P, M, 1, semantics=semantics)


def huge_run(semantics: str, P: int, M: int) -> dict[str, float]:
    """One large run in this process, stage by stage under a progress display: wall and CPU seconds
    of each stage, the peak memory (ru_maxrss) and the load."""
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from perfcompose.limits import check_memory

    check_memory(huge_estimate(P, M, semantics), f"{M:,} messages among {P:,} processors ({semantics})")
    params = LogGP(L=10.0, o=2.0, g=5.0, G=1.0, unit="us")
    out: dict[str, float] = {"load_start": os.getloadavg()[0]}
    wall0, cpu0 = time.perf_counter(), time.process_time()
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(semantics, total=None)

        @contextlib.contextmanager
        def stage(name: str) -> Iterator[None]:
            bar.update(task, description=f"{semantics}: {name} ({M:,} messages, P = {P:,})")
            w, c = time.perf_counter(), time.process_time()
            yield
            out[name + "_wall"], out[name + "_cpu"] = time.perf_counter() - w, time.process_time() - c

        with stage("generate"):
            src, dst, nbytes = pattern(P, M)
        with stage("build"):
            step = CommStep.from_arrays(P, src, dst, nbytes)
            del src, dst, nbytes
        with stage("simulate"):
            if semantics == "paper":
                makespan = simulate_step(step, params).makespan
            else:
                makespan = simulate_program(Program(P, (step,)), params, semantics="loggopsim",
                                            timelines=False).makespan
    out["makespan"] = float(makespan)
    out["wall"], out["cpu"] = time.perf_counter() - wall0, time.process_time() - cpu0
    out["peak"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024.0
    out["estimate"] = huge_estimate(P, M, semantics)
    out["load_end"] = os.getloadavg()[0]
    return out


def _wall_cpu(r: dict[str, float], key: str) -> str:
    """'wall / CPU' seconds of a stage (``key``) or of the whole run (``""``)."""
    return f"{r[key + '_wall'] if key else r['wall']:.1f} / {r[key + '_cpu'] if key else r['cpu']:.1f}"


def huge(args: argparse.Namespace) -> None:
    """Every mode of the large run in a process of its own (its own peak memory), and the table."""
    P, M = args.procs, args.messages
    modes = [m.strip() for m in args.huge_modes.split(",") if m.strip()]
    print(f"random pattern: P = {P:,}, {M:,} messages, 1..65536 bytes; L, o, g, G = 10, 2, 5, 1 us; "
          f"{os.cpu_count()} cores; goal: <= {HUGE_SECONDS:.0f} s and <= {HUGE_BYTES / 1e9:.0f} GB; kernels: "
          f"{backend.describe()} (paper), {goal_kernels()} (LogGOPSim semantics)")
    print("(wall seconds wait for a core where the load is above the cores; CPU seconds are what a quiet "
          "machine takes)\n")
    print(f"| {'mode':9} | {'estimate':>8} | {'generate':>15} | {'build step':>15} | {'simulate':>15} | "
          f"{'total':>15} | {'peak':>7} | {'load':>11} | {'<= 60 s':>13} | {'<= 4 GB':>7} |")
    print(f"| {'':9} | {'[GB]':>8} | {'wall / CPU [s]':>15} | {'wall / CPU [s]':>15} | {'wall / CPU [s]':>15} | "
          f"{'wall / CPU [s]':>15} | {'[GB]':>7} | {'start / end':>11} | {'wall / CPU':>13} | {'':>7} |")
    print(f"|{'-' * 11}|{'-' * 10}|{'-' * 17}|{'-' * 17}|{'-' * 17}|{'-' * 17}|{'-' * 9}|{'-' * 13}|{'-' * 15}|"
          f"{'-' * 9}|")
    for mode in modes:
        cmd = [sys.executable, os.path.abspath(__file__), "--huge-run", mode, "--procs", str(P), "--messages",
               str(M), "--max-memory", args.max_memory]
        done = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
        if done.returncode != 0:
            print(f"| {mode:9} | the run failed (exit {done.returncode}): {done.stdout.strip()[-200:]}")
            continue
        r = json.loads(done.stdout.strip().splitlines()[-1])
        if "refused" in r:
            print(f"| {mode:9} | refused before the run: {' '.join(r['refused'].split())}")
            continue
        pair = functools.partial(_wall_cpu, r)
        within = f"{'yes' if r['wall'] <= HUGE_SECONDS else 'NO'} / {'yes' if r['cpu'] <= HUGE_SECONDS else 'NO'}"
        print(f"| {mode:9} | {r['estimate'] / 1e9:>8.2f} | {pair('generate'):>15} | {pair('build'):>15} | "
              f"{pair('simulate'):>15} | {pair(''):>15} | {r['peak'] / 1e9:>7.2f} | "
              f"{r['load_start']:>5.1f} / {r['load_end']:<3.1f} | {within:>13} | "
              f"{'yes' if r['peak'] <= HUGE_BYTES else 'NO':>7} |", flush=True)


def verdict(ratio: float) -> str:
    return f"{'yes' if ratio >= GOAL else 'NO'} ({ratio:.2f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--procs", type=int, default=4096)
    ap.add_argument("--messages", type=int, default=1_000_000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--worst-procs", type=int, default=0,
                    help="processors of the worst-case run (default: --procs; a random pattern forces about "
                         "P sends)")
    ap.add_argument("--worst-messages", type=int, default=0, help="messages of the worst-case run (default: "
                    "--messages)")
    ap.add_argument("--callgrind", action="store_true", help="also count each row's instructions under "
                    "valgrind's callgrind (the rows side by side, each in a process of its own; slow: minutes at "
                    "10^6 messages)")
    ap.add_argument("--callgrind-timeout", type=float, default=1800, help="seconds a row may take under callgrind "
                    "(default 1800; a row past it is 'not counted')")
    ap.add_argument("--only", default=None, help=argparse.SUPPRESS)  # one row, once, for --callgrind
    ap.add_argument("--huge", action="store_true", help="one run of each mode at P = 2^20 and 10^7 messages "
                    "(or --procs/--messages where given), each in a process of its own")
    ap.add_argument("--huge-modes", default="paper,loggopsim", help="modes of --huge: paper (the standard "
                    "kernel), loggopsim (default: both)")
    ap.add_argument("--max-memory", default="4GiB", help="--huge: refuse a run whose estimated memory is above "
                    "this (default 4GiB)")
    ap.add_argument("--huge-run", default=None, help=argparse.SUPPRESS)  # one mode of --huge, in its process
    args = ap.parse_args()
    if args.huge or args.huge_run:
        from perfcompose.limits import parse_bytes, set_limits

        set_limits(memory=parse_bytes(args.max_memory), steps=float("inf"))
        if args.procs == 4096 and args.messages == 1_000_000:  # the defaults of the rate table
            args.procs, args.messages = HUGE_P, HUGE_M
        if args.huge_run:
            from perfcompose.errors import PerfcomposeError

            try:
                print(json.dumps(huge_run(args.huge_run, args.procs, args.messages)))
            except PerfcomposeError as e:  # refused by the memory estimate: said in the table
                print(json.dumps({"refused": str(e)}))
        else:
            huge(args)
        return
    rows = rows_to_run(args)
    if args.only is not None:  # warm up, then the run callgrind counts
        fn = next(r[3] for r in rows if r[0] == args.only)
        fn()
        collections.deque(itertools.starmap(fn, [()]), maxlen=0)
        return
    load_start = os.getloadavg()[0]
    secs = timed_together([fn for _, _, _, fn, _ in rows], args.reps)
    timed_rows = [(key, name, m, t) for (key, name, m, _, _), t in zip(rows, secs)]
    P, M = args.procs, args.messages
    print(f"random pattern: P = {P}, {M:,} messages, 1..65536 bytes; {os.cpu_count()} cores, "
          f"load average {load_start:.2f} at the start, {os.getloadavg()[0]:.2f} at the end")
    print(f"kernels: {backend.describe()} (the paper's algorithms), {goal_kernels()} (LogGOPSim semantics)")
    print(f"anchor: the first row (rates relative to it); goal: every mode >= {GOAL} x the anchor's rate")
    print()
    anchor = timed_rows[0][2] / timed_rows[0][3]
    print(f"| {'simulator':58} | {'messages':>9} | {'time [s]':>8} | {'M msgs/s':>8} | {'vs anchor':>9} | "
          f"{'>= 0.8':>11} |")
    print(f"|{'-' * 60}|{'-' * 11}|{'-' * 10}|{'-' * 10}|{'-' * 11}|{'-' * 13}|")
    for i, (_, name, m, secs) in enumerate(timed_rows):
        rate = m / secs
        print(f"| {name:58} | {m:>9,} | {secs:>8.3f} | {rate / 1e6:>8.2f} | {rate / anchor:>8.2f}x | "
              f"{'anchor' if i == 0 else verdict(rate / anchor):>11} |")
    if not args.callgrind:
        return
    if shutil.which("valgrind") is None:
        print("\n--callgrind: valgrind is not installed (Debian: apt-get install valgrind)")
        return
    print("\ninstructions per message (callgrind, one run of each row in a process of its own; independent of "
          "the load)\n")
    print(f"| {'simulator':58} | {'instructions':>14} | {'per message':>11} | {'vs anchor':>9} | {'>= 0.8':>11} |")
    print(f"|{'-' * 60}|{'-' * 16}|{'-' * 13}|{'-' * 11}|{'-' * 13}|")
    per_anchor = None
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(rows)) as pool:  # a process each, side by side
        counts = dict(zip((r[0] for r in rows), pool.map(lambda row: instructions(row[0], args), rows)))
    for i, (key, name, m, _, _) in enumerate(rows):
        ir = counts.get(key)
        if ir is None:
            print(f"| {name:58} | {'not counted':>14} | {'':>11} | {'':>9} | {'':>11} |")
            continue
        per = ir / m
        per_anchor = per if i == 0 else per_anchor
        ratio = per_anchor / per if per_anchor else float("nan")
        print(f"| {name:58} | {ir:>14,} | {per:>11.0f} | {ratio:>8.2f}x | "
              f"{'anchor' if i == 0 else verdict(ratio):>11} |")


if __name__ == "__main__":
    main()
