"""The what-if plot: one line of makespans per parameter over its factors, the slowdowns looked
for and another network's makespan as horizontal lines."""
from __future__ import annotations

import pytest

from perfcompose.loggp.params import LogGP
from perfcompose.loggp.trace.whatif import Sweep, Tolerance, WhatIf


def test_each_parameter_is_a_line_and_the_other_network_a_dashed_one():
    from perfcompose.report.figures import plt
    from perfcompose.report.loggp import whatif_figure

    factors = (0.1, 1.0, 10.0)
    sweeps = tuple(Sweep(p, factors, (0.9e-3, 1e-3, (2 + k) * 1e-3)) for k, p in enumerate("LogG"))
    tols = tuple(Tolerance(p, s, 2.0, 2.0, 1.1e-3) for p in "LogG" for s in (0.01, 0.1))
    w = WhatIf(LogGP(1, 1, 1, 0.01, "us"), 1e-3, sweeps, tols, LogGP(2, 1, 1, 0.01, "us"), 1.5e-3)
    fig = whatif_figure(w)
    ax = fig.axes[0]
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert list(lines["G"].get_ydata()) == pytest.approx([0.9, 1.0, 5.0])  # in ms
    assert list(lines["other network"].get_ydata()) == pytest.approx([1.5, 1.5])
    assert sum(line.get_linestyle() == ":" for line in ax.get_lines()) == 2  # +1 % and +10 %
    assert ax.get_xscale() == "log" and "[ms]" in ax.get_ylabel()
    plt.close(fig)
