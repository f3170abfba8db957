"""Messages simulated per second by perfcompose.loggp on a random pattern (P = 4096, 10^6 messages).

Each message goes from a uniformly random processor to another, with 1 to 65,536 bytes; each
processor sends in message-id order. Timed: building the step from arrays plus the simulation
(median of the repetitions, after one untimed run that compiles the kernels). The anchor is
LogGOPSim (C++), which is not built here: its figure on such a pattern, 0.16 M messages/s, is
quoted, not measured in this run. The worst case and the LogGOPSim-semantics rows run on
smaller random patterns (see their options): on a random pattern every processor waits on others
in one big cycle, and breaking it costs a forced send per processor.

    python benchmarks/loggp_speed.py [--procs 4096] [--messages 1000000] [--reps 5]
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from perfcompose.loggp import CommStep, LogGP, Program, simulate_program, simulate_step, worst_case_step

LOGGOPSIM_QUOTED = 0.16e6  # messages/s, LogGOPSim on such a pattern (quoted)


def pattern(P: int, M: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    src = rng.integers(0, P, M)
    dst = (src + rng.integers(1, P, M)) % P
    return src, dst, rng.integers(1, 65537, M).astype(np.float64)


def timed(fn, reps: int) -> float:
    fn()  # compile / warm up
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--procs", type=int, default=4096)
    ap.add_argument("--messages", type=int, default=1_000_000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--worst-procs", type=int, default=256,
                    help="processors of the worst-case run (a random pattern forces about P sends, each "
                         "after a strongly-connected-components pass over the waiting graph)")
    ap.add_argument("--worst-messages", type=int, default=100_000)
    ap.add_argument("--loggopsim-messages", type=int, default=50_000,
                    help="size of the (pure Python) LogGOPSim-semantics run")
    args = ap.parse_args()
    P, M = args.procs, args.messages
    src, dst, nbytes = pattern(P, M)
    params = LogGP(L=1.0, o=0.5, g=0.6, G=0.0002, unit="us")
    step = CommStep.from_arrays(P, src, dst, nbytes)
    rows = []
    t = timed(lambda: simulate_step(CommStep.from_arrays(P, src, dst, nbytes), params), args.reps)
    rows.append(("standard (Figure 2), random ties, incl. building the step", M, t))
    t = timed(lambda: simulate_step(step, params, ties="rank"), args.reps)
    rows.append(("standard (Figure 2), ties by rank", M, t))
    wp, wm = args.worst_procs, min(args.worst_messages, M)
    wsrc, wdst, wbytes = pattern(wp, wm, seed=1)
    wstep = CommStep.from_arrays(wp, wsrc, wdst, wbytes)
    t = timed(lambda: worst_case_step(wstep, params, seed=1), max(1, args.reps // 2))
    forced = len(worst_case_step(wstep, params, seed=1).forced)
    rows.append((f"worst case (sec. 4.2), P = {wp}, {forced} forced sends", wm, t))
    m2 = min(args.loggopsim_messages, M)
    small = Program(P, (CommStep.from_arrays(P, src[:m2], dst[:m2], nbytes[:m2]),))
    t = timed(lambda: simulate_program(small, params, semantics="loggopsim", timelines=False), 1)
    rows.append(("LogGOPSim semantics (pure Python, smaller pattern)", m2, t))

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"random pattern: P = {P}, {M:,} messages, 1..65536 bytes; {os.cpu_count()} cores, "
          f"load average {load:.2f}")
    print(f"anchor: LogGOPSim (C++) {LOGGOPSIM_QUOTED / 1e6:.2f} M messages/s on such a pattern "
          "(quoted, not built here)")
    print()
    print(f"| {'simulator':58} | {'messages':>9} | {'time [s]':>8} | {'M msgs/s':>8} | {'vs LogGOPSim':>12} |")
    print(f"|{'-' * 60}|{'-' * 11}|{'-' * 10}|{'-' * 10}|{'-' * 14}|")
    for name, m, secs in rows:
        rate = m / secs
        print(f"| {name:58} | {m:>9,} | {secs:>8.3f} | {rate / 1e6:>8.2f} | {rate / LOGGOPSIM_QUOTED:>11.1f}x |")


if __name__ == "__main__":
    main()
