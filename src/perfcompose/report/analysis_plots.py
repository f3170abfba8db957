"""The scaling of a ranked call path, drawn: its measured medians, the kept model with its
interval out to the target, and for a caller the composed model beside the fitted one."""
from __future__ import annotations

from typing import Any

import numpy as np

from perfcompose.analyze.result import Picture
from perfcompose.report.figures import plt
from perfcompose.report.numbers import point, sig
from perfcompose.report.plots import log_axes


def scaling_figure(picture: Picture, unit: str, level: float, kept: str) -> Any:
    """One panel: ``picture`` on log-log axes, the target marked (``kept``: which model the call
    path keeps, "fit", "composed" or "constant")."""
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    grid = np.asarray(picture.grid)
    line, = ax.plot(grid, picture.kept, lw=2.4, label=f"kept model ({kept})")
    if picture.low:
        ax.fill_between(grid, picture.low, picture.high, color=line.get_color(), alpha=0.18, lw=0,
                        label=f"{round(100 * level)} % interval")
    if picture.composed and kept == "composed" and picture.fitted:
        ax.plot(grid, picture.fitted, "--", lw=1.3, label="fitted model")
    elif picture.composed:
        ax.plot(grid, picture.composed, "--", lw=1.3, label="composed model")
    if picture.measured_x:
        ax.plot(picture.measured_x, picture.measured_y, "o", ms=5, mfc="none", color="black", label="measured")
    ax.plot([grid[-1]], [picture.kept[-1]], "o", ms=7, color=line.get_color(), mec="white", zorder=5,
            label=f"target: {sig(picture.kept[-1], 4)} {unit}".rstrip())
    log_axes(ax)
    ax.set_xlabel(picture.parameter)
    ax.set_ylabel(f"inclusive [{unit}]" if unit else "inclusive")
    fixed = f" at {point(dict(picture.fixed))}" if picture.fixed else ""
    ax.set_title(f"{picture.path}{fixed}", fontsize=9, loc="left")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0, frameon=False)
    ax.grid(True, which="major", alpha=0.3)
    fig.tight_layout()
    return fig
