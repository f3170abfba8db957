"""The plot of a skeleton forecast: T(n) and the penalty Ā, each with its forecast marked."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from perfcompose.report.figures import plt, save
from perfcompose.skeleton.estimation import Estimate, Part
from perfcompose.skeleton.table import RuntimeTable


def _panel(ax, part: Part, label: str, measured: float | None = None) -> None:
    x, y = np.asarray(part.x, float), np.asarray(part.y, float)
    if part.forecaster is not None and x.size:
        lo, hi = min(x.min(), part.at), max(x.max(), part.at)
        grid = np.linspace(lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo), 300)
        ax.plot(grid, part.forecaster.predict(grid), lw=1.5, label=f"{part.method}")
    if x.size and part.direction != "measured":
        ax.plot(x, y, "o", color="0.2", label="known")
    kind = "measured, used" if part.direction == "measured" else "forecast"
    ax.plot([part.at], [part.value], "*", ms=14, color="tab:red", label=f"{kind} {part.value:.4g}")
    if measured is not None:
        ax.plot([part.at], [measured], "x", ms=10, color="tab:green", label=f"measured {measured:.4g}")
    ax.set(xlabel=part.direction if part.direction in ("n", "p") else "n", ylabel=f"{label} [s]")
    ax.legend(fontsize=8)


def plot_estimate(table: RuntimeTable, est: Estimate, out: str | Path,
                  interval: tuple[float, float] | None = None) -> Path:
    """Two panels: T(n) with its forecast, and Ā(n, p) along the direction it was forecast; the
    title gives T(n, p) with its 90 % ``interval`` when there is one."""
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.2))
    _panel(a1, est.sequential, "T(n)")
    if est.sequential.direction == "measured":
        ns = [v for v in table.reference_ns if v != est.n]
        a1.plot(ns, [table.sequential(v) for v in ns], "o", color="0.2", label="known")
        a1.legend(fontsize=8)
    a1.set_title(f"sequential time T(n) ({'absolute' if est.absolute else 'relative: T(n, 1)'})")
    _panel(a2, est.penalty, "Ā(n, p)", None if est.measured is None else est.measured - est.share)
    fixed = f"p = {est.p}" if est.penalty.direction == "n" else f"n = {est.n:g}"
    a2.set_title(f"penalty Ā(n, p) w.r.t. {est.penalty.direction} ({fixed})")
    fig.suptitle(f"{est.skeleton.name}: T({est.n:g}, {est.p}) = {est.value:.4g} s"
                 + (f", 90 % interval [{interval[0]:.4g}, {interval[1]:.4g}]" if interval else "")
                 + (f" (measured {est.measured:.4g} s, {100 * (est.error or 0):+.2g} %)" if est.measured else ""))
    fig.tight_layout()
    return save(fig, out)
