"""Which runs in the executor count as disturbed, with nothing beside them and with CPU hogs.

For each probe program of the validation study, N runs are taken as the study takes them, first
with nothing started beside them, then with H processes spinning (``while True: pass``). A run
is disturbed when its workers lost more than 2 % of it to other programs
(:func:`perfcompose.runtime.target.lost_to_others`); the earlier rule, every wait for a core
counted (the program's own feeding thread included), is printed beside it. The anchor is the
same runs' share under that earlier rule. Run on an otherwise quiet machine: the first block
should flag nothing, the second nearly everything.

    python benchmarks/disturbance_flag.py [--runs N] [--hogs H]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import numpy as np

from perfcompose.bench.tasks import TASKS, random_ints, touch, warm_touch
from perfcompose.runtime.executor import run_term
from perfcompose.runtime.target import DISTURBED_SHARE, WAKE_LATENCY, lost_to_others, own_cpu_since, thread_cpu_ns

PROBES = [("tpool_2(touch)", 1024), ("pipe(touch, touch)", 1024), ("pipe(inc, touch)", 65536),
          ("tpool_2(qsort)", 16384), ("pipe(inc, inc)", 262144), ("inc", 16384)]


def _shares(term: str, x: int, runs: int, functions: dict) -> tuple[np.ndarray, np.ndarray]:
    """Per run: the share lost to other programs, and the share spent waiting at all."""
    lost, waited = [], []
    for _ in range(runs):
        elements = [random_ints(x) for _ in range(max(32, int(0.05 / (6e-9 * x))))]
        own = thread_cpu_ns()
        run = run_term(term, elements, functions, keep_outputs=False)
        mine = own_cpu_since(own)
        if run.runqueue_wait is None or mine is None:
            sys.exit("the kernel does not report runqueue waits here")
        lost.append(lost_to_others(run, mine) / run.makespan)
        waited.append(max(run.runqueue_wait - WAKE_LATENCY * len(run.finished), 0.0) / run.makespan)
    return np.array(lost), np.array(waited)


def _block(label: str, runs: int, functions: dict) -> None:
    print(f"\n{label} (load {os.getloadavg()[0]:.1f})")
    print(f"{'program':20s} {'x':>7s}  flagged now  flagged by any wait  median share lost / waited")
    for term, x in PROBES:
        lost, waited = _shares(term, x, runs, functions)
        print(f"{term:20s} {x:7d}  {int((lost > DISTURBED_SHARE).sum()):4d}/{runs:<4d}   "
              f"{int((waited > DISTURBED_SHARE).sum()):4d}/{runs:<4d}            "
              f"{np.median(lost):.3f} / {np.median(waited):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--hogs", type=int, default=2)
    args = parser.parse_args()
    for name in ("nop", "inc", "qsort"):
        TASKS[name].warm()
    warm_touch()
    functions = {n: TASKS[n].run for n in ("nop", "inc", "qsort")} | {"touch": touch}
    _block("nothing started beside the runs", args.runs, functions)
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.hogs)]
    try:
        time.sleep(0.5)
        _block(f"{args.hogs} CPU hogs beside the runs", args.runs, functions)
    finally:
        for h in hogs:
            h.kill()
            h.wait()


if __name__ == "__main__":
    main()
