"""Time ``perfcompose loggp check``'s conversion of traces into a GOAL schedule on a synthetic
run of many MPI calls (written in the tracer's own format), and the simulation after it.

Each of P ranks repeats a step: a halo exchange with both ring neighbours (MPI_Isend, MPI_Irecv
and their MPI_Waitall), a blocking message to or from the next rank, a run of MPI_Test that finds
nothing, and every 10th step an MPI_Allreduce of 64 B, computing between the calls.

    python benchmarks/trace_to_schedule.py [--calls 1000000] [--ranks 4] [--repeat 3] [--folder DIR]
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from perfcompose.loggp.goal.schedule import write_goal
from perfcompose.loggp.params import DEV_MACHINE
from perfcompose.loggp.trace.check import check_schedule
from perfcompose.loggp.trace.records import HEADER, MAGIC, RECORD, call_number, read_traces
from perfcompose.loggp.trace.schedule import trace_schedule


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=1_000_000)
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--folder", type=Path, default=None, help="keep the traces here")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.folder or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        total = write_run(folder, args.calls, args.ranks)
        times: dict[str, list[float]] = {"read": [], "convert": [], "write GOAL": [], "simulate": []}
        for _ in range(args.repeat):
            t = [time.perf_counter()]
            traces = read_traces(folder)
            t.append(time.perf_counter())
            traced = trace_schedule(traces)
            t.append(time.perf_counter())
            write_goal(traced.schedule, folder / "schedule.goal")
            t.append(time.perf_counter())
            check_schedule(traced, DEV_MACHINE)
            t.append(time.perf_counter())
            for spent, a, b in zip(times.values(), t, t[1:]):
                spent.append(b - a)
        print(f"{total:,} calls on {args.ranks} ranks -> {traced.schedule.num_ops:,} operations; median of "
              f"{args.repeat}: " + ", ".join(f"{k} {statistics.median(v):.2f} s" for k, v in times.items()))


if __name__ == "__main__":
    main()
