"""Whole processes of LogGP simulation beside LogGOPSim: wall time and peak memory, per input format.

Patterns of P ranks and M messages (one communication step unless said otherwise):

* ``random``: each message from a random rank to another, 1 to 65,535 bytes;
* ``fanin``: every rank sends to its group's root (groups of 256 ranks), 1 to 65,535 bytes;
* ``fanout``: each group's root sends to the members of its group, 1 to 65,535 bytes;
* ``allreduce``: recursive-doubling rounds (rank r exchanges 1,024 bytes with r XOR 2^k), one
  step per round, as many rounds as M messages fill.

Schedules whose operations depend on each other as a tracer writes them (GOAL only; their size
is given in operations, half of them sends, and each value of ``--messages`` is taken as one):

* ``random-chain``, ``fanin-chain``, ``allreduce-chain``: the messages of ``random``, ``fanin``
  and ``allreduce`` (tag 0), each rank's sends and receives in the order of the messages (in a
  round of ``allreduce-chain`` its send before its receive), each one ``requires`` the one
  before it on its rank;
* ``traced``: the schedule perfcompose makes of a traced run (``benchmarks/trace_to_schedule.py``'s
  synthetic trace on ``--traced-ranks`` ranks: halo exchanges with MPI_Isend, Irecv and
  Waitall, blocking messages, an MPI_Allreduce every 10th step, computation between the calls).

Each pattern is written once as a program JSON, its compact form (.npz) and a GOAL schedule,
which LogGOPSim's ``txt2bin`` turns into its binary form (not timed; LogGOPSim reads the binary
form). Then, alternately and ``--repeat`` times, for each parameter setting:

* ``perfcompose loggp simulate X.json --semantics loggopsim``,
* ``perfcompose loggp simulate X.npz --semantics loggopsim``,
* ``perfcompose loggp simulate X.goal`` (always LogGOPSim's rules),
* ``LogGOPSim -f X.bin`` (the C++ simulator, built from its public source with -O2),

and the table gives the median wall time, the peak resident memory (GNU time's report of the
child), and the ratios of both to LogGOPSim's in the same run; each makespan is checked against
LogGOPSim's (to the digits perfcompose prints). The GOAL text row also gives its time against
``txt2bin`` and LogGOPSim together (LogGOPSim reads only the binary form, which ``txt2bin``
makes from the text). A LogGOPSim run longer than ``--timeout`` is stopped and shown as a lower
bound (``>``), and the ratios as upper bounds (``<``); where it was stopped at a smaller size of
the same pattern and parameters it is not run again (``not run``). The load
average is printed at the start and after every pattern. Build LogGOPSim (Debian: ``apt-get
install gengetopt re2c libgraphviz-dev``) in its ``src/LogGOPSim`` folder with ``make
CXXFLAGS="-std=c++11 -O2 -Wno-deprecated" CCFLAGS=-O2 LDFLAGS=-lcgraph`` (its Makefile's default
is -O0) and name the folder with ``--loggopsim`` or ``LOGGOPSIM_DIR``.

    python benchmarks/loggp_process.py [--patterns random,fanin,fanout,allreduce,random-chain,fanin-chain,
        allreduce-chain,traced] [--messages 100000,1000000] [--procs 4096] [--traced-ranks 16]
        [--params "10,2,5,1;1000,500,600,1"] [--formats json,npz,goal] [--repeat 3] [--loggopsim DIR]
        [--timeout 300]
"""
from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

GROUP = 256  #: ranks per root in the fan-in and fan-out patterns


def _sizes(rng: np.random.Generator, M: int) -> np.ndarray:
    return rng.integers(1, 65536, M).astype(np.float64)


def pattern(name: str, P: int, M: int, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The communication steps (src, dst, bytes) of a pattern with about M messages."""
    rng = np.random.default_rng(seed)
    if name == "random":
        src = rng.integers(0, P, M)
        return [(src, (src + rng.integers(1, P, M)) % P, _sizes(rng, M))]
    if name in ("fanin", "fanout"):
        group = min(GROUP, P)
        member = rng.integers(1, group, M)  # never the root itself
        base = rng.integers(0, P // group, M) * group
        root, other = base, base + member
        return [(other, root, _sizes(rng, M)) if name == "fanin" else (root, other, _sizes(rng, M))]
    if name == "allreduce":
        steps = []
        rounds = max(1, int(np.log2(P)))
        ranks = np.arange(P)
        total = 0
        k = 0
        while total < M:
            partner = ranks ^ (1 << (k % rounds))
            ok = partner < P
            steps.append((ranks[ok], partner[ok], np.full(int(ok.sum()), 1024.0)))
            total += int(ok.sum())
            k += 1
        return steps
    raise SystemExit(f"unknown pattern {name!r}")


def chained(P: int, steps: list[tuple[np.ndarray, np.ndarray, np.ndarray]], send_first: bool) -> Any:
    """The GOAL schedule of the messages of ``steps`` (tag 0): each rank's operations in the order of
    the messages (``send_first``: a step's sends before its receives), each requiring the one
    before it on its rank."""
    from perfcompose.loggp.goal.schedule import RECV, SEND, GoalSchedule

    src, dst, nbytes = (np.concatenate(c) for c in zip(*steps))
    step = np.repeat(np.arange(len(steps)), [s[0].shape[0] for s in steps])
    M = src.shape[0]
    i = np.arange(M)
    rank = np.concatenate([src, dst])
    key = np.concatenate([2 * M * step + i, 2 * M * step + M * send_first + i])  # the place in its rank's order
    order = np.lexsort((key, rank))
    rank = rank[order]
    kind = np.concatenate([np.full(M, SEND, np.int8), np.full(M, RECV, np.int8)])[order]
    op_ptr = np.zeros(P + 1, np.int64)
    np.cumsum(np.bincount(rank, minlength=P), out=op_ptr[1:])
    after = np.flatnonzero(rank[1:] == rank[:-1]) + 1  # each operation but a rank's first: it requires the one before
    zeros, none = np.zeros(2 * M, np.int64), np.zeros(0, np.int64)
    return GoalSchedule(P, op_ptr, kind, np.concatenate([nbytes, nbytes])[order], np.concatenate([dst, src])[order],
                        zeros, zeros, zeros, after, after - 1, none, none)


def traced(operations: int, P: int, folder: Path) -> Any:
    """The schedule perfcompose makes of a synthetic traced run of about ``operations`` operations."""
    from trace_to_schedule import write_run

    from perfcompose.loggp.trace.records import read_traces
    from perfcompose.loggp.trace.schedule import trace_schedule

    folder.mkdir(exist_ok=True)
    write_run(folder, int(operations / 1.43), P)  # (the synthetic run makes about 1.43 operations a call)
    return trace_schedule(read_traces(folder)).schedule


def write_json(P: int, steps: list[tuple[np.ndarray, np.ndarray, np.ndarray]], path: Path) -> None:
    """The program JSON, written in blocks (a large program never becomes Python lists at once)."""
    with open(path, "w") as fh:
        fh.write(f'{{"P": {P}, "steps": [')
        for k, (src, dst, nbytes) in enumerate(steps):
            fh.write(',\n' if k else '')
            fh.write('{"kind": "comm", "messages": [')
            rows = np.stack([src, dst, nbytes.astype(np.int64)], axis=1)
            for lo in range(0, rows.shape[0], 100_000):
                block = rows[lo:lo + 100_000].tolist()
                fh.write((", " if lo else "") + ", ".join(f"[{a}, {b}, {c}]" for a, b, c in block))
            fh.write("]}")
        fh.write("]}\n")


def run_measured(cmd: list[str], timeout: float) -> tuple[float, float, str, bool]:
    """Wall seconds, peak resident MB (GNU time's report of the child), stdout, and whether it
    finished within ``timeout`` (else the whole process group is stopped)."""
    with tempfile.NamedTemporaryFile("r", suffix=".txt") as rep:
        start = time.perf_counter()
        proc = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rep.name, *cmd], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True, start_new_session=True)
        try:
            out, _ = proc.communicate(timeout=timeout)
            finished = proc.returncode == 0
        except subprocess.TimeoutExpired:
            high = _high_water(proc.pid)  # what it had reached when stopped (a lower bound of its peak)
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
            finished = False
        wall = time.perf_counter() - start
        text = Path(rep.name).read_text().strip().splitlines()
        peak = float(text[-1]) / 1024 if text and text[-1].isdigit() else float("nan")
        if not finished and peak != peak:
            peak = -high  # negative: at least this much
    return wall, peak, out, finished


def _high_water(pid: int) -> float:
    """The largest peak resident memory [MB] among ``pid``'s children (Linux /proc), else NaN."""
    best = float("nan")
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        for child in children:
            for line in Path(f"/proc/{child}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    kb = float(line.split()[1])
                    best = kb / 1024 if best != best else max(best, kb / 1024)
    except OSError:
        pass
    return best


def _mb(peak: float) -> str:
    if peak != peak:
        return "-"
    return f">= {-peak:.0f}" if peak < 0 else f"{peak:.0f}"


def makespan(text: str) -> float | None:
    m = re.search(r"makespan ([0-9.e+]+)", text) or re.search(r"Maximum finishing time at host \d+: (\d+)", text)
    return float(m.group(1)) if m else None


def same(ours: float | None, theirs: float | None) -> str:
    """Whether perfcompose's printed makespan (6 significant digits) is LogGOPSim's."""
    if ours is None or theirs is None:
        return "-"
    return "yes" if float(f"{theirs:.6g}") == ours else f"NO ({ours:.6g} vs {theirs:.6g})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--patterns", default="random,fanin,fanout,allreduce,random-chain,fanin-chain,allreduce-chain,"
                                          "traced")
    ap.add_argument("--procs", type=int, default=4096)
    ap.add_argument("--messages", default="100000,1000000")
    ap.add_argument("--traced-ranks", type=int, default=16, help="ranks of the traced pattern")
    ap.add_argument("--params", default="10,2,5,1;1000,500,600,1", help="L,o,g,G settings separated by ';'")
    ap.add_argument("--formats", default="json,npz,goal")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--loggopsim", default=os.environ.get("LOGGOPSIM_DIR", ""))
    args = ap.parse_args()

    from perfcompose.loggp.goal.schedule import program_to_goal, write_goal
    from perfcompose.loggp.steps.npzfile import write_program_npz
    from perfcompose.loggp.steps.program import CommStep, Program

    lgs = Path(args.loggopsim) if args.loggopsim else None
    if lgs is None or not (lgs / "LogGOPSim").exists() or not (lgs / "txt2bin").exists():
        raise SystemExit("name a LogGOPSim build: --loggopsim DIR (or LOGGOPSIM_DIR) with txt2bin and LogGOPSim")
    # as the console script; the benchmark's sizes are timed here, not refused
    exe = [sys.executable, "-m", "perfcompose", "--max-memory", "64GiB"]
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: compiled modules cached
    os.environ.clear()
    os.environ.update(env)
    settings = [dict(zip("LogG", (float(v) for v in s.split(",")))) for s in args.params.split(";")]
    formats = args.formats.split(",")
    print(f"P = {args.procs}; {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the start; "
          f"median of {args.repeat}; LogGOPSim stopped after {args.timeout:g} s")
    print()
    print("| pattern | size | L,o,g,G | input | wall [s] | peak [MB] | time vs LogGOPSim | memory vs LogGOPSim "
          "| makespan = LogGOPSim's | load |")
    print("|---|---:|---|---|---:|---:|---:|---:|---|---:|")
    subprocess.run([*exe, "--help"], capture_output=True, env=env)  # compile the modules once
    stopped: set[tuple[str, str]] = set()  # patterns and parameters where LogGOPSim ran out of time
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.patterns.split(","):
            for M in (int(float(x)) for x in args.messages.split(",")):
                files = {"json": Path(tmp, "p.json"), "npz": Path(tmp, "p.npz"), "goal": Path(tmp, "p.goal")}
                binary = Path(tmp, "p.bin")
                t = time.perf_counter()
                chain = name.endswith("-chain") or name == "traced"
                if chain:
                    base = name.removesuffix("-chain")
                    sched = (traced(M, args.traced_ranks, Path(tmp, "trace")) if name == "traced"
                             else chained(args.procs, pattern(base, args.procs, M // 2), base == "allreduce"))
                    write_goal(sched, files["goal"])
                    size = f"{sched.num_ops:,} operations"
                    del sched
                else:
                    steps = pattern(name, args.procs, M)
                    prog = Program(args.procs, tuple(CommStep.from_arrays(args.procs, *s) for s in steps))
                    size = f"{sum(s[0].shape[0] for s in steps):,} messages"
                    write_program_npz(prog, files["npz"])
                    if "json" in formats:
                        write_json(args.procs, steps, files["json"])
                    write_goal(program_to_goal(prog), files["goal"])
                    del prog, steps
                t_bin = time.perf_counter()
                subprocess.run([str(lgs / "txt2bin"), "-i", str(files["goal"]), "-o", str(binary)], check=True,
                               capture_output=True)
                txt2bin = time.perf_counter() - t_bin
                setup = time.perf_counter() - t
                for params in settings:
                    tag = ",".join(f"{v:g}" for v in params.values())
                    flags = [f"--{k}={v:g}" for k, v in params.items()]
                    cmds = {f: [*exe, "loggp", "simulate", str(files[f]), *flags,
                                *(["--semantics", "loggopsim"] if f != "goal" else [])] for f in formats
                            if f == "goal" or not chain}
                    cmds["LogGOPSim"] = [str(lgs / "LogGOPSim"), "-f", str(binary), "-b",
                                         *(f"-{k}{v:g}" for k, v in params.items())]
                    rows: dict[str, list[tuple[float, float, str, bool]]] = {k: [] for k in cmds}
                    skip = (name, tag) in stopped
                    for _ in range(args.repeat):
                        for key, cmd in cmds.items():
                            if key == "LogGOPSim" and (skip or (rows[key] and not rows[key][-1][3])):
                                continue  # it ran out of time once: do not wait again
                            rows[key].append(run_measured(cmd, args.timeout))
                    anchor = rows["LogGOPSim"]
                    if not anchor:  # stopped at a smaller size
                        anchor = [(float("nan"), float("nan"), "", False)]
                        rows["LogGOPSim"] = anchor
                    a_wall = statistics.median(r[0] for r in anchor)
                    a_done = all(r[3] for r in anchor)
                    a_peak = max(r[1] for r in anchor) if a_done else min(r[1] for r in anchor)
                    if not a_done:
                        stopped.add((name, tag))
                    theirs = makespan(anchor[-1][2]) if a_done else None
                    bound = "" if a_done else "<"
                    load = f"{os.getloadavg()[0]:.1f}"  # the 1-minute load average as the runs end
                    for key, runs in rows.items():
                        wall = statistics.median(r[0] for r in runs)
                        peak = max(r[1] for r in runs)
                        done = all(r[3] for r in runs)
                        shown = f"{'' if done else '>'}{wall:.2f}"
                        if key == "LogGOPSim":
                            if skip:
                                print(f"| {name} | {size} | {tag} | LogGOPSim -f X.bin | not run (stopped at a "
                                      f"smaller size) | | | | | {load} |")
                                continue
                            print(f"| {name} | {size} | {tag} | LogGOPSim -f X.bin | {shown} | {_mb(peak)} | 1 "
                                  f"| 1 | {'(stopped)' if not done else f'{theirs:.0f}'} | {load} |")
                            continue
                        check = same(makespan(runs[-1][2]), theirs) if done else "failed"
                        vs = f"{bound}{wall / a_wall:.2f}" if a_wall == a_wall else "-"
                        if key == "goal" and a_wall == a_wall:
                            vs += f" ({bound}{wall / (a_wall + txt2bin):.2f} with txt2bin)"
                        mem = "-"
                        if a_done:
                            mem = f"{peak / a_peak:.2f}"
                        elif a_peak < 0:
                            mem = f"<= {abs(peak) / -a_peak:.2f}"
                        print(f"| {name} | {size} | {tag} | {key} | {shown} | {_mb(peak)} | {vs} | {mem} "
                              f"| {check} | {load} |", flush=True)
                print(f"| {name} | {size} | | (inputs written in {setup:.0f} s, txt2bin {txt2bin:.1f} s) | | | | "
                      f"| | {os.getloadavg()[0]:.1f} |", flush=True)
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
