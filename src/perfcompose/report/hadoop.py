"""000's Figure 4 as predicted here: Hadoop's time per job against threads per node, one line per
node count, for both readings of the transfer cost (``paper fig4 --plot``)."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from perfcompose.report.figures import plt, save


def plot_fig4(grid: Sequence[Any], out: Path) -> Path:
    """The predicted time per job [ms] of every (m nodes, n threads) point of ``grid`` against n;
    the paper's row 13 as printed (0.125 ns per byte) solid, at the text's 1 Gb/s dashed."""
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for reading, attr, style in (("row 13 as printed (0.125 ns/B)", "total", "-"),
                                 ("at 1 Gb/s (8 ns/B)", "total_text", "--")):
        for m in sorted({p.m for p in grid}):
            pts = sorted((p for p in grid if p.m == m), key=lambda p: p.n)
            ax.plot([p.n for p in pts], [getattr(p, attr) / 1e6 for p in pts], style, marker="o", markersize=3,
                    label=f"m = {m}, {reading}" if m in (1, 24) else None)
    ax.set_xscale("log", base=2)
    ax.set(xlabel="threads per node n", ylabel="predicted time per job [ms]",
           title="000 Figure 4: Hadoop, eq. 5 + eq. 7 from Table 1 rows 11-13")
    ax.legend(fontsize=7)
    return save(fig, out, bbox_inches="tight")
