"""The executor's patterns on sleeping tasks: per-element time of tpool_2, pipe and seq against one stage.

A task that sleeps a fixed time needs no core while it waits, so the patterns' own arithmetic
shows: tpool_2 halves the time of one stage (target 0.35-0.7), a pipe of two stages takes the
slower stage (0.8-1.4) and seq takes their sum (1.6-2.5). Each term's time is its fastest of
``--runs`` runs, taken in turns so that a busy spell falls on all of them (a thread woken late only
lengthens a run). On a loaded machine the wake-ups are late and the ratios drift: quote the load.

    python benchmarks/executor_patterns.py [--runs 5] [--elements 40] [--sleep-ms 4]
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

from perfcompose.runtime import run_term

TERMS = {"sleep": None, "tpool_2(sleep)": (0.35, 0.7), "pipe(sleep, sleep)": (0.8, 1.4),
         "seq(sleep, sleep)": (1.6, 2.5)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--elements", type=int, default=40)
    ap.add_argument("--sleep-ms", type=float, default=4.0)
    args = ap.parse_args()
    seconds = args.sleep_ms / 1e3

    def sleep(a: np.ndarray) -> np.ndarray:
        time.sleep(seconds)
        return a

    els = [np.full(4, i, dtype=np.int32) for i in range(args.elements)]
    best = dict.fromkeys(TERMS, float("inf"))
    disturbed = dict.fromkeys(TERMS, 0)
    for _ in range(args.runs):
        for term in TERMS:
            r = run_term(term, els, {"sleep": sleep})
            best[term] = min(best[term], r.per_element)
            disturbed[term] += r.disturbed
    print(f"load average {os.getloadavg()[0]:.2f}; {args.elements} elements, sleep {args.sleep_ms:g} ms, "
          f"fastest of {args.runs} runs; anchor: the single stage (sleep)")
    print(f"{'term':<20} {'per element [ms]':>17} {'ratio':>7} {'target':>10} {'met':>4} {'disturbed':>10}")
    for term, target in TERMS.items():
        ratio = best[term] / best["sleep"]
        span = "" if target is None else f"{target[0]:g}-{target[1]:g}"
        met = "" if target is None else ("yes" if target[0] < ratio < target[1] else "no")
        print(f"{term:<20} {best[term] * 1e3:>17.3f} {ratio:>7.3f} {span:>10} {met:>4} "
              f"{disturbed[term]:>4} of {args.runs}")


if __name__ == "__main__":
    main()
