"""Time ``perfcompose loggp check``'s conversion of traces into a GOAL schedule on a synthetic
run of many MPI calls (written in the tracer's own format), and the simulation after it.

Each of P ranks repeats a step: a halo exchange with both ring neighbours (MPI_Isend, MPI_Irecv
and their MPI_Waitall), a blocking message to or from the next rank, a run of MPI_Test that finds
nothing, and every 10th step an MPI_Allreduce of 64 B, computing between the calls.

The schedule is simulated with the development machine's LogGP parameters rounded to whole
ns. Each stage is shown with its wall time and, in brackets, the CPU time of this process (on a
loaded machine the wall time counts the time others had the cores). With ``--loggopsim DIR`` (a
folder with LogGOPSim's ``txt2bin`` and ``LogGOPSim``), LogGOPSim reads the written GOAL file
with the same parameters (``txt2bin``, then ``LogGOPSim -f``), timed likewise (their CPU time as
the system reports that of finished children), and its makespan is checked against perfcompose's.

    python benchmarks/trace_to_schedule.py [--calls 1000000] [--ranks 4] [--repeat 3] [--folder DIR]
        [--loggopsim DIR]
"""
from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from perfcompose.loggp.goal.schedule import write_goal
from perfcompose.loggp.params import DEV_MACHINE, LogGP
from perfcompose.loggp.trace.records import HEADER, MAGIC, RECORD, call_number, read_traces
from perfcompose.loggp.trace.schedule import trace_schedule
from perfcompose.loggp.trace.whatif import check_schedule, in_ns


def rank_records(rank: int, P: int, steps: int) -> np.ndarray:
    """The records of one rank: MPI_Init, ``steps`` steps, MPI_Finalize (times in seconds)."""
    right, left = (rank + 1) % P, (rank - 1) % P
    even = rank % 2 == 0
    step = [("isend", right, 1, 4096, 1), ("irecv", left, 1, 4096, 2), ("done", right, 1, 4096, 1),
            ("done", left, 1, 4096, 2), ("send" if even else "recv", right if even else left, 2, 512, 0),
            ("test", -2, 0, 3000, 5)]
    per = len(step)
    allreduce = steps // 10
    n = 2 + steps * per + allreduce
    rec = np.zeros(n, RECORD)
    body = rec[1:-1]
    k = np.arange(steps)
    pos = k * per + k // 10  # each step's first record: an allreduce follows every 10th step
    for j, (name, peer, tag, nbytes, req) in enumerate(step):
        r = body[pos + j]
        r["call"], r["peer"], r["tag"], r["bytes"], r["request"] = call_number(name), peer, tag, nbytes, req
        body[pos + j] = r
    ar = body[np.flatnonzero((k % 10) == 9) * per + np.arange(allreduce) + per]  # after steps 9, 19, ...
    ar["call"], ar["peer"], ar["bytes"] = call_number("allreduce"), -2, 64
    body[np.flatnonzero((k % 10) == 9) * per + np.arange(allreduce) + per] = ar
    t = 1e-6 + np.arange(len(body)) * 20e-6 + rank * 1e-7
    done = body["call"] == call_number("done")
    second = np.flatnonzero(done)[1::2]
    t[second] = t[second - 1]  # the two completions of one MPI_Waitall start together
    body["t0"], body["t1"] = t, t + 5e-6
    rec[1:-1] = body
    rec[0] = (call_number("init"), -2, 0, 0, 0, 0, 0.0, 1e-6)
    end = t[-1] + 30e-6
    rec[-1] = (call_number("finalize"), -2, 0, 0, 0, 0, end, end + 1e-6)
    return rec


def write_run(folder: Path, calls: int, P: int) -> int:
    """A synthetic run of about ``calls`` MPI calls over ``P`` ranks written to ``folder``."""
    steps = max(10, calls // (P * 6))
    total = 0
    for r in range(P):
        rec = rank_records(r, P, steps)
        total += len(rec)
        head = MAGIC + np.array([r, P, RECORD.itemsize, 0], "<i4").tobytes()
        assert len(head) == HEADER
        (folder / f"trace.{r}.bin").write_bytes(head + rec.tobytes())
        (folder / f"comms.{r}.txt").write_text(f"0 {' '.join(map(str, range(P)))}\n")
    return total


def _children_cpu() -> float:
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


#: the development machine's parameters in whole ns, as LogGOPSim takes them
_NS = in_ns(DEV_MACHINE)
PARAMS = LogGP(round(_NS.L), round(_NS.o), round(_NS.g), round(_NS.G), "ns")


def loggopsim(build: Path, goal: Path) -> tuple[dict[str, tuple[float, float]], float]:
    """Wall and CPU seconds of ``txt2bin`` and ``LogGOPSim -f`` on ``goal`` (with :data:`PARAMS`) and
    the makespan it prints [ns]."""
    flags = [a for k in ("L", "o", "g", "G") for a in (f"-{k}", f"{getattr(PARAMS, k):g}")]
    out: dict[str, tuple[float, float]] = {}
    text = ""
    for name, cmd in (("txt2bin", [str(build / "txt2bin"), "-i", str(goal), "-o", str(goal.with_suffix(".bin"))]),
                      ("LogGOPSim", [str(build / "LogGOPSim"), "-f", str(goal.with_suffix(".bin")), "-b", *flags])):
        t, c = time.perf_counter(), _children_cpu()
        text = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        out[name] = (time.perf_counter() - t, _children_cpu() - c)
    m = re.search(r"Maximum finishing time at host \d+: (\d+)", text)
    return out, float(m.group(1)) if m else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=1_000_000)
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--folder", type=Path, default=None, help="keep the traces here")
    ap.add_argument("--loggopsim", type=Path, default=os.environ.get("LOGGOPSIM_DIR") or None,
                    help="folder of LogGOPSim's txt2bin and LogGOPSim (or LOGGOPSIM_DIR)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.folder or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        total = write_run(folder, args.calls, args.ranks)
        times: dict[str, list[tuple[float, float]]] = {"read": [], "convert": [], "write GOAL": [], "simulate": []}
        for _ in range(args.repeat):
            t = [(time.perf_counter(), time.process_time())]
            traces = read_traces(folder)
            t.append((time.perf_counter(), time.process_time()))
            traced = trace_schedule(traces)
            t.append((time.perf_counter(), time.process_time()))
            write_goal(traced.schedule, folder / "schedule.goal")
            t.append((time.perf_counter(), time.process_time()))
            check = check_schedule(traced, PARAMS)
            t.append((time.perf_counter(), time.process_time()))
            for spent, a, b in zip(times.values(), t, t[1:]):
                spent.append((b[0] - a[0], b[1] - a[1]))
        theirs: dict[str, list[tuple[float, float]]] = {"txt2bin": [], "LogGOPSim": []}
        makespan = float("nan")
        for _ in range(args.repeat if args.loggopsim else 0):
            got, makespan = loggopsim(args.loggopsim, folder / "schedule.goal")
            for k, v in got.items():
                theirs[k].append(v)

        def shown(runs: list[tuple[float, float]]) -> str:
            return f"{statistics.median(w for w, _ in runs):.2f} s ({statistics.median(c for _, c in runs):.2f} s)"

        def summed(parts: dict[str, list[tuple[float, float]]]) -> str:
            return shown([(sum(v[k][0] for v in parts.values()), sum(v[k][1] for v in parts.values()))
                          for k in range(args.repeat)])

        print(f"{total:,} calls on {args.ranks} ranks -> {traced.schedule.num_ops:,} operations; median of "
              f"{args.repeat}, wall (CPU): " + ", ".join(f"{k} {shown(v)}" for k, v in times.items())
              + f"; all {summed(times)}; load average {os.getloadavg()[0]:.1f}")
        if args.loggopsim:
            same = "the same" if round(check.simulated * 1e9) == makespan else f"{makespan:.0f} ns"
            print("LogGOPSim on the GOAL file: " + ", ".join(f"{k} {shown(v)}" for k, v in theirs.items())
                  + f"; both {summed(theirs)}; makespan {check.simulated * 1e9:.0f} ns in perfcompose, {same} in "
                  "LogGOPSim")


if __name__ == "__main__":
    main()
