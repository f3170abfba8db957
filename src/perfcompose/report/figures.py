"""Matplotlib, set up once for every figure perfcompose draws: off screen (the Agg backend), so
that plots are written without a display, from scripts, tests and worker processes alike.

Every module that draws imports ``plt`` from here, never Matplotlib's pyplot directly.

>>> from perfcompose.report.figures import plt, save
>>> fig, ax = plt.subplots(); _ = ax.plot([1, 2], [3, 4])
>>> save(fig, "/tmp/line.png").suffix
'.png'
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

__all__ = ["plt", "save"]


def save(fig: Any, out: str | Path, **options: Any) -> Path:
    """Write ``fig`` to ``out`` (the format follows the suffix; its folder is made) and close it."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    options.setdefault("dpi", 110)
    fig.savefig(out, **options)
    plt.close(fig)
    return out
