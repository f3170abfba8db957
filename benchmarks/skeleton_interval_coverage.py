"""How often a skeleton forecast's 90 % interval holds a runtime it never saw, one step beyond the table.

    python benchmarks/skeleton_interval_coverage.py [--seeds 25]

Synthetic runtime tables (n = 2^10 ... 2^17, p = seq, 1, 2, 4, 8; T(n) = n, n log2 n, n^1.5 or n^2
times a constant, T(n, p) = T(n)/p plus an overhead growing with n and p; relative Gaussian noise
of 2, 5 and 10 % on every time) are forecast with ``method auto``, their largest n left out; the
table gives the share of the left-out parallel times inside the interval of the forecast from the
rest, beside the nominal level and the jackknife+ guarantee (at least 1 - 2 * 0.05). Forecasts
that the rest of a table cannot make (a method refusing a negative value) are counted apart.
"""
from __future__ import annotations

import argparse
import math
from collections.abc import Callable

import numpy as np
from rich.console import Console
from rich.table import Table

from perfcompose.errors import PerfcomposeError
from perfcompose.skeleton import RuntimeTable, SkeletonSource
from perfcompose.skeleton.table import SEQ

LAWS: dict[str, Callable[[float], float]] = {
    "n": lambda n: 1e-7 * n, "n log2 n": lambda n: 1e-8 * n * math.log2(n),
    "n^1.5": lambda n: 1e-9 * n ** 1.5, "n^2": lambda n: 1e-11 * n * n}
NS = [2 ** k for k in range(10, 18)]
PS = [1, 2, 4, 8]
NOISE = (0.02, 0.05, 0.1)


def table(law: str, noise: float, rng: np.random.Generator) -> RuntimeTable:
    T = LAWS[law]
    rows = [(n, SEQ, T(n) * (1 + noise * rng.standard_normal())) for n in NS]
    rows += [(n, p, (T(n) / p + 2.5e-8 * n * math.sqrt(p) + 1e-4 * p) * (1 + noise * rng.standard_normal()))
             for n in NS for p in PS]
    return RuntimeTable.from_rows(rows)


def held_out(law: str, noise: float, seed: int) -> tuple[list[bool], int]:
    """Whether each left-out time lies in its interval, and how many could not be forecast."""
    t = table(law, noise, np.random.default_rng(seed))
    group = [k for k in t.times if k[0] == NS[-1]]
    try:
        model = SkeletonSource(t.without_all(group)).model("T", interval=True)
    except PerfcomposeError:
        return [], len(PS)
    inside, failed = [], 0
    for n, p in group:
        if p == SEQ:
            continue
        try:
            bounds = model.interval(n=n, p=p)
        except PerfcomposeError:
            failed += 1
            continue
        if bounds is None:
            failed += 1
            continue
        inside.append(bool(bounds[0] <= t.times[(n, p)] <= bounds[1]))
    return inside, failed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=25, help="tables per law and noise level (default: %(default)s)")
    args = ap.parse_args()
    out = Table(title="skeleton forecasts one step beyond the table: left-out times inside the 90 % interval",
                title_justify="left")
    for col in ("noise", *LAWS, "all", "not forecast", "nominal", "jackknife+ bound"):
        out.add_column(col, justify="right")
    for noise in NOISE:
        cells, everything, failed = [], [], 0
        for law in LAWS:
            hits = []
            for seed in range(args.seeds):
                inside, f = held_out(law, noise, seed)
                hits += inside
                failed += f
            everything += hits
            cells.append(f"{np.mean(hits):.2f} ({len(hits)})" if hits else "—")
        out.add_row(f"{noise:.0%}", *cells, f"{np.mean(everything):.2f} ({len(everything)})", str(failed),
                    "0.90", "≥ 0.80")
    Console(width=160).print(out)


if __name__ == "__main__":
    main()
