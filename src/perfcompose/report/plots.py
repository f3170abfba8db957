"""Plots people read faster than tables: measurements with error bars and the fitted models."""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from perfcompose.data.experiment import Experiment, describe
from perfcompose.model import Model
from perfcompose.report.figures import plt
from perfcompose.report.numbers import point as point_text
from perfcompose.report.numbers import sig


def fits_figure(experiment: Experiment, models: Sequence[tuple[str, str, Model]], extend: float = 4.0,
                saved: Mapping[str, Mapping[tuple[str, str], Model]] | None = None, aggregate: str = "median") -> Any:
    """One panel per series: the ``aggregate`` of each point with min-max bars and the model, extended
    ``extend``x; of several parameters, a line per value of the others (at most five); ``saved``
    model sets drawn dashed beside them (``fit --plot`` and its page)."""
    n = len(models)
    cols = min(3, n)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 4.0 * rows), squeeze=False)
    params = experiment.parameters
    for ax, (region, metric, model) in zip(axes.flat, models):
        series = experiment.get(metric, region)
        X = series.coordinates()
        med = series.aggregated(aggregate)  # type: ignore[arg-type]
        lo = np.minimum(series.aggregated("min"), med)
        hi = np.maximum(series.aggregated("max"), med)
        others = sorted({tuple(r[1:]) for r in X})
        if len(others) > 5:
            others = [others[k] for k in np.linspace(0, len(others) - 1, 5).round().astype(int)]
        colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        for c, rest in enumerate(others):
            mask = np.all(X[:, 1:] == np.array(rest), axis=1) if rest else np.ones(len(X), bool)
            xs = X[mask, 0]
            order = np.argsort(xs)
            label = describe(params[1:], rest) if rest else f"measured ({aggregate}, min-max)"
            color = colors[c % len(colors)]
            ax.errorbar(xs[order], med[mask][order],
                        yerr=[med[mask][order] - lo[mask][order], hi[mask][order] - med[mask][order]],
                        fmt="o", color=color, capsize=3, label=label)
            grid = np.geomspace(max(xs.min() / 2, 1e-12), xs.max() * extend, 200)
            values = {params[0]: grid, **{p: v for p, v in zip(params[1:], rest)}}
            ax.plot(grid, model(**{p: values[p] for p in model.params}) * np.ones_like(grid), color=color,
                    lw=1.5)
            for style, (name, other) in zip(("--", ":", "-."), _saved_for(saved, region, metric)):
                ax.plot(grid, other(**{p: values[p] for p in other.params}) * np.ones_like(grid), color=color,
                        lw=1.2, ls=style, label=f"saved: {name}" if c == 0 else None)
            ax.axvspan(xs.max(), grid.max(), color="0.93", zorder=0)
        log_axes(ax)
        ax.set(xlabel=params[0], ylabel=f"{metric} [{series.unit}]" if series.unit else metric)
        title = series.label
        text = model.to_extrap(digits=6)
        ax.set_title(f"{title}\n{text if len(text) < 70 else text[:67] + '...'}", fontsize=9)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    fig.tight_layout()
    return fig


def _saved_for(saved: Mapping[str, Mapping[tuple[str, str], Model]] | None, region: str,
               metric: str) -> list[tuple[str, Model]]:
    """The saved models of one series, one per model set that has it (a series without a region
    is Extra-P's call path ``main``)."""
    key = (region or "main", metric)
    return [(name, models[key]) for name, models in (saved or {}).items() if key in models]


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def power_label(base: int, value: float) -> str:
    """``2¹⁰`` for 1024 on a base-2 axis: plain text (no TeX layout, which is slow to draw)."""
    exponent = math.log(value, base) if value > 0 else math.nan
    if exponent == exponent and abs(exponent - round(exponent)) < 1e-9:
        return f"{base}{str(int(round(exponent))).translate(_SUPERSCRIPT)}"
    return ""


def log_axes(ax: Any, xbase: int = 2, ybase: int = 10) -> None:
    """Log-log axes labelled ``2¹⁰`` and ``10⁶`` in plain text."""
    ax.set_xscale("log", base=xbase)
    ax.set_yscale("log", base=ybase)

    def minor(axis: Any, base: int) -> Any:
        # an axis spanning less than about one power has no labelled power: label the minor ticks
        def label(v: float, _pos: Any) -> str:
            lo, hi = sorted(axis.get_view_interval())
            return sig(v, 2) if lo > 0 and hi / lo < base ** 1.5 else ""
        return FuncFormatter(label)

    for axis, base in ((ax.xaxis, xbase), (ax.yaxis, ybase)):
        axis.set_major_locator(LogLocator(base=base))
        axis.set_major_formatter(FuncFormatter(lambda v, _pos, b=base: power_label(b, v)))
        axis.set_minor_formatter(minor(axis, base) if base == 10 else NullFormatter())


def models_figure(curves: Sequence[tuple[str, Model]], x_range: tuple[float, float], *,
                  fixed: dict[str, float] | None = None, size: str = "x", title: str = "",
                  points: Sequence[tuple[str, Sequence[float] | np.ndarray, Sequence[float] | np.ndarray]] = (),
                  marks: Sequence[float] = (), ylabel: str = "time per data element") -> Any:
    """Models against the size parameter on log-log axes, the first curve bold with its interval as
    a band where its model has one; ``fixed`` values the other parameters, ``marks`` (the sizes
    asked for) are dots on the first curve, measured ``points`` (label, x, y) are markers, the
    legend stands beside the axes."""
    fixed = dict(fixed or {})
    fig, ax = plt.subplots(figsize=(9.5, 5.0))
    lo, hi = x_range
    if lo >= hi:  # one size: a range around it, so the curves have a shape
        lo, hi = lo / 8, hi * 8
    # a model known only by simulation costs one simulation per point drawn
    samples = 50 if any(m.is_numeric for _, m in curves) else 200
    grid = np.geomspace(lo, hi, samples)
    unit = ""
    for k, (label, model) in enumerate(curves):
        values = {size: grid, **fixed}
        args = {p: values[p] for p in model.params}
        y = model(**args) * np.ones_like(grid)
        line, = ax.plot(grid, y, lw=2.6 if k == 0 else 1.3, ls="-" if k == 0 else "--", label=label)
        unit = unit or model.unit
        if k == 0:
            band = interval_at(model, args)
            if band is not None:
                ax.fill_between(grid, band[0] * np.ones_like(grid), band[1] * np.ones_like(grid),
                                color=line.get_color(), alpha=0.18, lw=0, label="90 % interval")
            if len(marks):
                mx = np.asarray(marks, dtype=float)
                my = model(**{p: ({**fixed, size: mx})[p] for p in model.params}) * np.ones_like(mx)
                ax.plot(mx, my, "o", ms=7, color=line.get_color(), mec="white", zorder=5,
                        label="predicted at " + (f"{size} = {sig(mx[0], 6)}" if len(mx) == 1 else "the sizes asked"))
                if len(mx) == 1:
                    ax.annotate(f"{sig(float(my[0]))} {unit}", (mx[0], my[0]), textcoords="offset points",
                                xytext=(8, 8), fontsize=9)
    for label, xs, ys in points:
        ax.plot(xs, ys, "o", ms=4, mfc="none", label=label)
    log_axes(ax)
    ax.set(xlabel=size, ylabel=f"{ylabel} [{unit}]" if unit else ylabel)
    shown = {k: v for k, v in fixed.items() if k != size}
    full = title + (f" ({point_text(shown)})" if shown else "")
    if full:
        ax.set_title(full, fontsize=10, loc="left")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0, frameon=False)
    ax.grid(True, which="major", alpha=0.3)
    fig.tight_layout()
    return fig


def interval_at(model: Any, values: Mapping[str, Any]) -> tuple[Any, Any] | None:
    """The model's interval at ``values``; None for a model without one."""
    interval = getattr(model, "interval", None)
    if interval is None:
        return None
    try:
        return interval(**{p: values[p] for p in model.params})
    except Exception:  # an interval is an extra; a model that cannot give one is shown without
        return None

