"""Plots people read faster than tables: measurements with error bars and the fitted models."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

import numpy as np

from perfcompose.data.experiment import Experiment, describe
from perfcompose.model import Model


def plot_fits(experiment: Experiment, models: Sequence[tuple[str, str, Model]], out: str | Path,
              extend: float = 4.0) -> Path:
    """One panel per series: medians with min-max error bars and the model, extended ``extend``x.

    With several parameters the first is on the x axis and one line is drawn per value of the
    others (at most five).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out)
    n = len(models)
    cols = min(3, n)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 4.0 * rows), squeeze=False)
    params = experiment.parameters
    for ax, (region, metric, model) in zip(axes.flat, models):
        series = experiment.get(metric, region)
        X = series.coordinates()
        med = series.aggregated("median")
        lo = np.array([min(p.values) for p in series.points])
        hi = np.array([max(p.values) for p in series.points])
        others = sorted({tuple(r[1:]) for r in X})
        if len(others) > 5:
            others = [others[k] for k in np.linspace(0, len(others) - 1, 5).round().astype(int)]
        colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        for c, rest in enumerate(others):
            mask = np.all(X[:, 1:] == np.array(rest), axis=1) if rest else np.ones(len(X), bool)
            xs = X[mask, 0]
            order = np.argsort(xs)
            label = describe(params[1:], rest) if rest else "measured (median, min-max)"
            color = colors[c % len(colors)]
            ax.errorbar(xs[order], med[mask][order],
                        yerr=[med[mask][order] - lo[mask][order], hi[mask][order] - med[mask][order]],
                        fmt="o", color=color, capsize=3, label=label)
            grid = np.geomspace(max(xs.min() / 2, 1e-12), xs.max() * extend, 200)
            values = {params[0]: grid, **{p: v for p, v in zip(params[1:], rest)}}
            ax.plot(grid, model(**{p: values[p] for p in model.params}) * np.ones_like(grid), color=color,
                    lw=1.5)
            ax.axvspan(xs.max(), grid.max(), color="0.93", zorder=0)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel(params[0])
        ax.set_ylabel(f"{metric} [{series.unit}]" if series.unit else metric)
        title = series.label
        text = model.to_extrap(digits=6)
        ax.set_title(f"{title}\n{text if len(text) < 70 else text[:67] + '...'}", fontsize=9)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def plot_models(curves: Sequence[tuple[str, Model]], x_range: tuple[float, float], out: str | Path, *,
                fixed: dict[str, float] | None = None, size: str = "x", title: str = "",
                points: Sequence[tuple[str, Sequence[float], Sequence[float]]] = ()) -> Path:
    """Models against the size parameter on log-log axes; the first curve is drawn bold.

    ``fixed`` gives values for the other parameters; ``points`` adds measured (label, x, y) sets.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out)
    fixed = dict(fixed or {})
    fig, ax = plt.subplots(figsize=(7.5, 5.0))
    lo, hi = x_range
    if lo >= hi:
        lo, hi = lo / 4, hi * 4
    # a model known only by simulation costs one simulation per point drawn
    samples = 50 if any(m.is_numeric for _, m in curves) else 200
    grid = np.geomspace(lo, hi, samples)
    unit = ""
    for k, (label, model) in enumerate(curves):
        values = {size: grid, **fixed}
        y = model(**{p: values[p] for p in model.params}) * np.ones_like(grid)
        ax.plot(grid, y, lw=2.6 if k == 0 else 1.3, ls="-" if k == 0 else "--", label=label)
        unit = unit or model.unit
    for label, xs, ys in points:
        ax.plot(xs, ys, "o", ms=4, label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(size)
    ax.set_ylabel(f"time per data element [{unit}]" if unit else "time per data element")
    if title:
        ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(True, which="major", alpha=0.3)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
