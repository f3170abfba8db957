"""How long the demo's HTML report takes to draw, against an anchor measured in the same run: the
same figures with matplotlib's default TeX-style log labels (2^{10}, 10^{6}).

    python benchmarks/report_speed.py [REPEATS]

Prints one row per variant with the median time over REPEATS and its ratio to the anchor.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]


def part_rows() -> list:
    from perfcompose.data import load
    from perfcompose.fit import PMNFFitter
    from perfcompose.validate.paper import PAPER_TABLE1, Table1Row

    exp = load(ROOT / "examples" / "tasks.csv")
    rows = []
    for task in ("nop", "inc", "qsort"):
        part = exp.select(region=task)
        rows.append(Table1Row(task, part, PMNFFitter(max_terms=1).fit(part).model_, None, None, PAPER_TABLE1[task]))
    return rows


def main() -> None:
    from perfcompose.report import plots
    from perfcompose.report.demo import demo_report
    from perfcompose.report.html import render
    from perfcompose.validate.paper import table2

    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    rows = part_rows()
    results = table2({r.task: r.model for r in rows})

    def default_axes(ax, xbase=2, ybase=10):  # the anchor: matplotlib's own log labels
        ax.set_xscale("log", base=xbase)
        ax.set_yscale("log", base=ybase)

    def once() -> float:
        t = time.perf_counter()
        render(demo_report(rows, results))
        return time.perf_counter() - t

    once()  # imports and caches
    times: dict[str, list[float]] = {"anchor: TeX-style log labels": [], "plain-text power labels": []}
    for _ in range(repeats):  # interleaved, so both see the same load
        with mock.patch.object(plots, "log_axes", default_axes):
            times["anchor: TeX-style log labels"].append(once())
        times["plain-text power labels"].append(once())
    anchor = statistics.median(times["anchor: TeX-style log labels"])
    print(f"{'variant':32} {'median [s]':>11} {'ratio':>7}")
    for name, ts in times.items():
        print(f"{name:32} {statistics.median(ts):11.3f} {statistics.median(ts) / anchor:7.2f}")


if __name__ == "__main__":
    main()
