"""The PMNF benchmark's figures that Extra-P users judge a fitter by, from two runs' result tables.

    python benchmarks/extrap_targets.py ANCHOR_results.csv CANDIDATE_results.csv

Per number of parameters: the share of data sets whose lead term is exact (all noise levels
pooled) and the difference in points; per number of parameters and noise level: the median
relative error at 16x the measured range (nearest rank); and the number of data sets whose error
at 16x exceeds 100 %.
"""
from __future__ import annotations

import csv
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def median(values: list[float]) -> float:
    s = sorted(values)
    return s[(len(s) + 1) // 2 - 1]


def main() -> None:
    anchor, cand = (rows(Path(p)) for p in sys.argv[1:3])
    console = Console()
    lead = Table(title="lead term exact, all noise levels pooled [%]", title_justify="left")
    for col in ("parameters", "anchor", "candidate", "difference"):
        lead.add_column(col, justify="right")
    for npar in sorted({r["n_params"] for r in anchor}):
        a, c = ([r for r in t if r["n_params"] == npar] for t in (anchor, cand))
        pa, pc = (100 * sum(r["lead_match"] == "True" for r in t) / len(t) for t in (a, c))
        lead.add_row(npar, f"{pa:.1f}", f"{pc:.1f}", f"{pc - pa:+.1f}")
    console.print(lead)
    err = Table(title="median error at 16x", title_justify="left")
    for col in ("parameters", "noise", "anchor", "candidate", "ratio"):
        err.add_column(col, justify="right")
    keys = sorted({(r["n_params"], float(r["noise"])) for r in anchor})
    for npar, noise in keys:
        ma, mc = (median([float(r["err_x16"]) for r in t if r["n_params"] == npar and float(r["noise"]) == noise])
                  for t in (anchor, cand))
        err.add_row(npar, f"{noise:.0%}", f"{ma:.3f}", f"{mc:.3f}", f"{mc / ma:.2f}" if ma else "-")
    console.print(err)
    over = [sum(1 for r in t if r["err_x16"] and float(r["err_x16"]) > 1.0) for t in (anchor, cand)]
    console.print(f"error above 100 % at 16x: anchor {over[0]}, candidate {over[1]} of {len(cand)} data sets")


if __name__ == "__main__":
    main()
