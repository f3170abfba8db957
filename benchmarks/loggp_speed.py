"""Messages simulated per second by perfcompose.loggp on a random pattern (P = 4096, 10^6 messages).

Each message goes from a uniformly random processor to another, with 1 to 65,536 bytes; each
processor sends in message-id order. Timed: building the step from arrays plus the simulation
(median of the repetitions, after one untimed run that compiles the kernels); the LogGOPSim
semantics row includes turning the program into its GOAL schedule. The anchor is the standard
kernel measured in the same run (ratios in the last column); LogGOPSim itself is timed beside
whole processes by loggp_process.py. The kernels are the compiled C extension where it is built,
else Numba (PERFCOMPOSE_KERNELS=numba picks Numba); the header says which ran, and with the
extension a row times the Numba kernel of the standard algorithm on the same step for comparison.
The worst case runs on the same pattern by default: on a random pattern every processor waits on
others in one big cycle, and breaking it costs a forced send per processor (the waiting graph's
components are kept from one forced send to the next; --worst-procs/--worst-messages give a
smaller pattern).

    python benchmarks/loggp_speed.py [--procs 4096] [--messages 1000000] [--reps 5]
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from perfcompose.loggp import CommStep, LogGP, Program, backend, simulate_program, simulate_step, worst_case_step


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


def standard_args(step: CommStep, params: LogGP) -> tuple:
    """The arguments of Figure 2's kernel for ``step`` entered at time 0 (random ties, seed 0)."""
    from perfcompose.loggp.step_inputs import recv_pointers

    P, M = step.P, step.M
    out = (np.zeros(M), np.zeros(M), np.zeros(M, np.int64), np.zeros(M, np.int64), np.zeros(P), np.zeros(P),
           np.zeros(P))
    return (P, step.dst, step.nbytes, step.order, step.send_ptr, recv_pointers(step), np.zeros(P), params.L,
            params.o, params.g, params.G, True, True, 0, *out)


def goal_kernels() -> str:
    """Which implementation runs LogGOPSim's semantics."""
    try:
        import perfcompose.loggp._cgoal  # noqa: F401
    except ImportError:
        return "Numba"
    return "compiled extension (C)"


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
    if backend.implementation() == "compiled":
        t = timed(lambda: backend.standard_kernel("numba")(*standard_args(step, params)), args.reps)
        rows.append(("standard (Figure 2), random ties, the Numba kernel alone", M, t))
    wp, wm = args.worst_procs or P, min(args.worst_messages or M, M)
    wsrc, wdst, wbytes = pattern(wp, wm, seed=1)
    wstep = CommStep.from_arrays(wp, wsrc, wdst, wbytes)
    t = timed(lambda: worst_case_step(wstep, params, seed=1), max(1, args.reps // 2))
    forced = len(worst_case_step(wstep, params, seed=1).forced)
    rows.append((f"worst case (sec. 4.2), P = {wp}, {forced} forced sends", wm, t))
    prog = Program(P, (step,))
    t = timed(lambda: simulate_program(prog, params, semantics="loggopsim", timelines=False), max(1, args.reps // 2))
    rows.append(("LogGOPSim semantics (compiled), incl. the GOAL schedule", M, t))

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"random pattern: P = {P}, {M:,} messages, 1..65536 bytes; {os.cpu_count()} cores, "
          f"load average {load:.2f}")
    print(f"kernels: {backend.describe()} (the paper's algorithms), {goal_kernels()} (LogGOPSim semantics)")
    print("anchor: the first row (rates relative to it); target: >= 1 M messages/s in every mode")
    print()
    anchor = rows[0][1] / rows[0][2]
    print(f"| {'simulator':58} | {'messages':>9} | {'time [s]':>8} | {'M msgs/s':>8} | {'vs anchor':>9} |")
    print(f"|{'-' * 60}|{'-' * 11}|{'-' * 10}|{'-' * 10}|{'-' * 11}|")
    for name, m, secs in rows:
        rate = m / secs
        print(f"| {name:58} | {m:>9,} | {secs:>8.3f} | {rate / 1e6:>8.2f} | {rate / anchor:>8.2f}x |")
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
