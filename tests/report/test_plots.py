"""The model plot: one size still draws curves around it, the legend sits beside the axes,
measured points appear, and fixed parameters such as n are named."""
from __future__ import annotations

import numpy as np

from perfcompose.model import Model
from perfcompose.report.plots import models_figure


def test_one_size_draws_curves_around_it_with_the_point_marked() -> None:
    program = Model.parse("max(1034.17*x*log2(x)/n, 536.185*x)", unit="ns")
    fig = models_figure([("pipe(tpool_n(qsort), inc)", program)], (262144.0, 262144.0), fixed={"n": 4.0},
                        marks=[262144.0], points=[("measured", [65536.0, 262144.0], [1e8, 1.2e9])])
    ax = fig.axes[0]
    curve = ax.lines[0]
    xs = np.asarray(curve.get_xdata())
    assert xs.min() < 262144 < xs.max() and np.ptp(np.asarray(curve.get_ydata())) > 0
    marked = [ln for ln in ax.lines if ln.get_label().startswith("predicted at x = 262144")]
    assert len(marked) == 1
    expected = 1034.17 * 262144 * 18 / 4
    assert np.isclose(marked[0].get_ydata()[0], expected)
    assert any(ln.get_label() == "measured" and len(ln.get_xdata()) == 2 for ln in ax.lines)
    assert "n=4" in ax.get_title(loc="left")
    fig.canvas.draw()
    legend = ax.get_legend().get_window_extent()
    assert legend.x0 >= ax.get_window_extent().x1  # beside the axes, not over the curves
