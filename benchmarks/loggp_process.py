"""Whole processes of LogGP simulation beside LogGOPSim: wall time and peak memory.

The random pattern of loggp_speed.py (P processors, M messages of 1 to 65,536 bytes, each
processor sending in message-id order) is written once as a compact program (.npz) and as a
GOAL schedule, which LogGOPSim's txt2bin turns into its binary form (not timed, as LogGOPSim
reads the binary form; the txt2bin time is shown apart). Then, alternately and ``--repeat``
times, three processes run on the same messages with L = 1000, o = 500, g = 600, G = 1:

* ``perfcompose loggp simulate X.npz`` (the paper's algorithm, Figure 2),
* ``perfcompose loggp simulate X.npz --semantics loggopsim`` (LogGOPSim's rules),
* ``LogGOPSim -f X.bin`` (the C++ simulator, built from its public source with -O2),

and the table gives the median wall time, the peak resident memory of each process (from the
kernel's accounting of the finished child) and perfcompose / LogGOPSim. The LogGOPSim-semantics
makespan is checked against LogGOPSim's. A LogGOPSim run longer than ``--timeout`` is stopped
and shown as a lower bound. Without a LogGOPSim build (``--loggopsim DIR`` or ``LOGGOPSIM_DIR``
naming the folder with ``txt2bin`` and ``LogGOPSim``) its rows say so and perfcompose is timed
alone. perfcompose runs its compiled C extension where it is built, else Numba (the header says
which; ``--kernels numba`` makes the children use Numba). Build LogGOPSim (Debian: ``apt-get
install gengetopt re2c libgraphviz-dev``) in its
``src/LogGOPSim`` folder with ``make CXXFLAGS="-std=c++11 -O2 -Wno-deprecated" CCFLAGS=-O2
LDFLAGS=-lcgraph`` (its Makefile's default is -O0).

    python benchmarks/loggp_process.py [--messages 100000,1000000] [--procs 4096] [--repeat 3]
        [--loggopsim PATH/TO/src/LogGOPSim] [--timeout 300] [--kernels default|numba]
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

PARAMS = {"L": 1000, "o": 500, "g": 600, "G": 1}


def pattern(P: int, M: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    src = rng.integers(0, P, M)
    dst = (src + rng.integers(1, P, M)) % P
    return src, dst, rng.integers(1, 65537, M).astype(np.float64)


def run_measured(cmd: list[str], timeout: float) -> tuple[float, float, str, bool]:
    """Wall seconds, peak resident MB (GNU time's report of the child), stdout, and whether it
    finished within ``timeout`` (else the whole process group is stopped)."""
    with tempfile.NamedTemporaryFile("r", suffix=".txt") as rep:
        start = time.perf_counter()
        proc = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rep.name, *cmd], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True, start_new_session=True)
        try:
            out, _ = proc.communicate(timeout=timeout)
            finished = True
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
            finished = False
        wall = time.perf_counter() - start
        text = Path(rep.name).read_text().strip().splitlines()
        peak = float(text[-1]) / 1024 if text and text[-1].isdigit() else float("nan")
    return wall, peak, out, finished


def makespan(text: str) -> float | None:
    m = re.search(r"makespan ([0-9.e+]+)", text) or re.search(r"Maximum finishing time at host \d+: (\d+)", text)
    return float(m.group(1)) if m else None


NAMES = {"paper": "perfcompose loggp simulate X.npz (paper)", "loggopsim": "perfcompose ... --semantics loggopsim",
         "LogGOPSim": "LogGOPSim -f X.bin (C++, -O2)"}


def print_rows(M: int, rows: dict[str, list[tuple[float, float, str, bool]]]) -> None:
    """One table row per process: median wall time, peak memory, ratio to LogGOPSim, makespan."""
    anchor = statistics.median(r[0] for r in rows["LogGOPSim"]) if rows["LogGOPSim"] else None
    for name, runs in rows.items():
        if not runs:
            print(f"| {M:>9,} | {NAMES[name]:44} | {'-':>8} | {'-':>9} | {'-':>12} | skipped |")
            continue
        wall = statistics.median(r[0] for r in runs)
        peak = max(r[1] for r in runs)
        done = all(r[3] for r in runs)
        span = makespan(runs[-1][2]) if done else None
        ratio = f"{wall / anchor:.2f}x" if anchor and name != "LogGOPSim" else ""
        if anchor and not rows["LogGOPSim"][-1][3] and name != "LogGOPSim":
            ratio = f"<{wall / anchor:.2f}x"
        shown = f"{'>' if not done else ''}{wall:.2f}"
        print(f"| {M:>9,} | {NAMES[name]:44} | {shown:>8} | {peak:>9.0f} | {ratio:>12} | "
              f"{'-' if span is None else f'{span:.6g}'} |")


def kernels() -> str:
    """Which implementations the perfcompose processes run (they inherit this environment)."""
    from perfcompose.loggp import backend

    goal = "Numba"
    if os.environ.get("PERFCOMPOSE_KERNELS", "").strip().lower() != "numba":
        try:
            import perfcompose.loggp._cgoal  # noqa: F401

            goal = "compiled extension (C)"
        except ImportError:
            pass
    return f"{backend.describe()} (paper), {goal} (LogGOPSim semantics)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--procs", type=int, default=4096)
    ap.add_argument("--messages", default="100000,1000000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--loggopsim", default=os.environ.get("LOGGOPSIM_DIR", ""))
    ap.add_argument("--kernels", choices=("default", "numba"), default="default",
                    help="numba: the children run the Numba kernels even where the C extension is built")
    args = ap.parse_args()
    if args.kernels == "numba":
        os.environ["PERFCOMPOSE_KERNELS"] = "numba"  # inherited by the timed processes

    from perfcompose.loggp.goal import program_to_goal, write_goal
    from perfcompose.loggp.npzfile import write_program_npz
    from perfcompose.loggp.program import CommStep, Program

    lgs = Path(args.loggopsim) if args.loggopsim else None
    why_not = None
    if lgs is None:
        why_not = "no LogGOPSim build named (--loggopsim DIR or LOGGOPSIM_DIR)"
    elif not (lgs / "LogGOPSim").exists() or not (lgs / "txt2bin").exists():
        why_not = f"no txt2bin and LogGOPSim in {lgs}"
    exe = [sys.executable, "-m", "perfcompose.cli"] if shutil.which("perfcompose") is None else ["perfcompose"]
    flags = [f"--{k}={v}" for k, v in PARAMS.items()]
    load = os.getloadavg()[0]
    print(f"random pattern, P = {args.procs}; L={PARAMS['L']} o={PARAMS['o']} g={PARAMS['g']} G={PARAMS['G']}; "
          f"{os.cpu_count()} cores, load average {load:.2f} at the start; median of {args.repeat}")
    print(f"perfcompose's kernels: {kernels()}")
    if why_not:
        print(f"LogGOPSim rows skipped: {why_not}")
    print()
    print(f"| {'messages':>9} | {'process':44} | {'wall [s]':>8} | {'peak [MB]':>9} "
          f"| {'vs LogGOPSim':>12} | makespan |")
    print(f"|{'-' * 11}|{'-' * 46}|{'-' * 10}|{'-' * 11}|{'-' * 14}|{'-' * 10}|")
    with tempfile.TemporaryDirectory() as tmp:
        for M in (int(x) for x in args.messages.split(",")):
            src, dst, nbytes = pattern(args.procs, M)
            prog = Program(args.procs, (CommStep.from_arrays(args.procs, src, dst, nbytes),))
            npz, goal, binary = Path(tmp, f"p{M}.npz"), Path(tmp, f"p{M}.goal"), Path(tmp, f"p{M}.bin")
            write_program_npz(prog, npz)
            rows: dict[str, list[tuple[float, float, str, bool]]] = {"paper": [], "loggopsim": [], "LogGOPSim": []}
            cmds = {"paper": [*exe, "loggp", "simulate", str(npz), *flags],
                    "loggopsim": [*exe, "loggp", "simulate", str(npz), *flags, "--semantics", "loggopsim"]}
            txt2bin_s = None
            if not why_not:
                assert lgs is not None
                write_goal(program_to_goal(prog), goal)
                t = time.perf_counter()
                subprocess.run([str(lgs / "txt2bin"), "-i", str(goal), "-o", str(binary)], check=True,
                               capture_output=True)
                txt2bin_s = time.perf_counter() - t
                goal.unlink()
                cmds["LogGOPSim"] = [str(lgs / "LogGOPSim"), "-f", str(binary), "-b",
                                     *(f"-{k}{v}" for k, v in PARAMS.items())]
            for name in ("paper", "loggopsim"):  # warm the compiled kernels' cache
                run_measured(cmds[name], args.timeout)
            for _ in range(args.repeat):
                for name, cmd in cmds.items():
                    if name == "LogGOPSim" and rows[name] and not rows[name][-1][3]:
                        continue  # it ran out of time once: do not wait again
                    rows[name].append(run_measured(cmd, args.timeout))
            print_rows(M, rows)
            if txt2bin_s is not None:
                print(f"| {M:>9,} | {'(txt2bin GOAL -> binary, not in the rows)':44} | {txt2bin_s:>8.2f} | "
                      f"{'':>9} | {'':>12} |          |")
            if rows["LogGOPSim"] and rows["LogGOPSim"][-1][3]:  # the exact makespans, compared
                from perfcompose.loggp.execute import simulate_program
                from perfcompose.loggp.params import LogGP

                ours = simulate_program(prog, LogGP(**PARAMS), semantics="loggopsim", timelines=False).makespan
                theirs = makespan(rows["LogGOPSim"][-1][2])
                print(f"| {M:>9,} | LogGOPSim semantics {ours:.0f} vs LogGOPSim {theirs:.0f}: "
                      f"{'the same' if ours == theirs else 'DIFFERENT'} |")
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
