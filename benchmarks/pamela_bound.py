"""How tight is the symbolic bound? The MRM's T_main against simulation for P = 1 ... 1000.

Paper 004: the error of the symbolic model is zero for P -> 0 and P -> infinity and "around 8 %"
near the saturation point P = 100. This prints, for N cycles (default 1000), the bound
max(10.1 N, 0.1 N P), the simulated completion time with deterministic times (exactly
10.1 N + 0.1 (P - 1) up to P = 101, and 10 + 0.1 N P beyond), and the mean over several seeds
with exponentially distributed service times (the think time stays 10; the infinite-server
think station makes the steady state insensitive to its distribution). The error is
(simulated - bound) / simulated. Beside the bound, the mean value analysis (MVA) of the same
closed network, and its error against both simulations.

    python benchmarks/pamela_bound.py                  # the table in docs/pamela.md
    python benchmarks/pamela_bound.py --every 1        # every P from 1 to 1000 (minutes)
    python benchmarks/pamela_bound.py --all-exponential --seeds 10
"""
from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from perfcompose.pamela import compile_file

MRM = Path(__file__).resolve().parent.parent / "examples" / "pamela" / "mrm.pam"
GRID = (1, 2, 5, 10, 20, 50, 70, 80, 90, 95, 98, 100, 101, 102, 105, 110, 120, 150, 200, 300, 500, 700, 1000)


def exact_deterministic(P: int, N: int) -> float:
    """The completion time of the deterministic MRM, derived by hand (see tests/pamela)."""
    return 10.1 * N + 0.1 * (P - 1) if 0.1 * P <= 10.1 else 10 + 0.1 * N * P


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--N", type=int, default=1000, help="cycles per client (default 1000)")
    ap.add_argument("--seeds", type=int, default=5, help="seeds averaged for random times (default 5)")
    ap.add_argument("--every", type=int, default=0, help="every k-th P from 1 to 1000 instead of the grid")
    ap.add_argument("--all-exponential", action="store_true",
                    help="think times exponential too (the completion time then also carries the spread "
                         "of each client's total)")
    ap.add_argument("--json", type=Path, help="also write the rows to this JSON file")
    args = ap.parse_args()
    ps = list(range(1, 1001, args.every)) if args.every else list(GRID)
    if args.every and ps[-1] != 1000:
        ps.append(1000)
    random_kind = "exponential" if args.all_exponential else "exponential-service"
    cm = compile_file(MRM)
    bound_of = cm.function()
    cm.simulate({"P": 2, "N": 2})  # load the compiled simulator kernel once
    console = Console(width=160)
    rows = []
    started = time.perf_counter()
    for P in ps:
        bound = bound_of(P, args.N)
        det = cm.simulate({"P": P, "N": args.N}).time
        rnd = [cm.simulate({"P": P, "N": args.N}, distribution=random_kind, seed=s).time for s in range(args.seeds)]
        mean = statistics.fmean(rnd)
        mva = cm.mva({"P": P, "N": args.N})
        rows.append({"P": P, "bound": bound, "deterministic": det, "exact": exact_deterministic(P, args.N),
                     "error_deterministic": (det - bound) / det, random_kind: mean,
                     "spread": statistics.stdev(rnd) if len(rnd) > 1 else 0.0,
                     "error_random": (mean - bound) / mean, "mva": mva,
                     "mva_error_random": (mean - mva) / mean, "mva_error_deterministic": (det - mva) / det})
    wall = time.perf_counter() - started
    t = Table(title=f"MRM (paper 004), N = {args.N}: bound max(10.1 N, 0.1 N P) vs simulation; "
                    f"error = (simulated - bound) / simulated", title_justify="left")
    for col in ("P", "bound T_main", "simulated, deterministic", "= by hand", "error", f"simulated, {random_kind} "
                f"(mean of {args.seeds})", "sd", "error", "MVA", f"MVA error vs {random_kind}",
                "MVA error vs deterministic"):
        t.add_column(col, justify="right")
    for r in rows:
        t.add_row(str(r["P"]), f"{r['bound']:.6g}", f"{r['deterministic']:.8g}",
                  "yes" if abs(r["deterministic"] - r["exact"]) <= 1e-9 * r["exact"] else "NO",
                  f"{100 * r['error_deterministic']:.3f} %", f"{r[random_kind]:.7g}", f"{r['spread']:.3g}",
                  f"{100 * r['error_random']:.2f} %", f"{r['mva']:.7g}", f"{100 * r['mva_error_random']:.2f} %",
                  f"{100 * r['mva_error_deterministic']:.2f} %")
    console.print(t)
    worst_det = max(rows, key=lambda r: r["error_deterministic"])
    worst_rnd = max(rows, key=lambda r: r["error_random"])
    worst_mva = max(rows, key=lambda r: abs(r["mva_error_random"]))
    console.print(f"MVA (mean value analysis, beside the bound): largest |error| against the {random_kind} "
                  f"simulation {100 * abs(worst_mva['mva_error_random']):.2f} % at P = {worst_mva['P']}")
    console.print(f"largest error: deterministic {100 * worst_det['error_deterministic']:.3f} % at P = "
                  f"{worst_det['P']}; {random_kind} {100 * worst_rnd['error_random']:.2f} % at P = {worst_rnd['P']} "
                  f"({len(rows)} values of P, {len(rows) * (1 + args.seeds)} simulations in {wall:.1f} s)")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
