"""Pictures of LogGP simulations: per-processor timelines (as the paper's Figures 4 and 5) and
the Gaussian elimination study (as its Figures 7 to 9), and a traced run under other networks."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from matplotlib.patches import Patch

from perfcompose.report.figures import plt, save

if TYPE_CHECKING:  # pragma: no cover
    from perfcompose.loggp.gauss import StudyRow
    from perfcompose.loggp.results import ProgramResult
    from perfcompose.loggp.trace.whatif import WhatIf

_COLORS = {"send": "#1f77b4", "recv": "#ff7f0e", "comp": "#b0b0b0"}


def plot_timeline(result: ProgramResult, path: Path, *, title: str = "", unit: str = "",
                  max_arrows: int = 400) -> None:
    """A Gantt chart: one row per processor, sends, receives and computations as bars, and an
    arrow from each send to its receive (up to ``max_arrows``)."""
    P = result.P
    fig, ax = plt.subplots(figsize=(10, max(2.5, 0.45 * P + 1.2)))
    sends: dict[int, tuple[float, int]] = {}
    recvs: dict[int, tuple[float, int]] = {}
    for p, ops in enumerate(result.ops):
        for op in ops:
            ax.barh(p, op.end - op.start, left=op.start, height=0.6, color=_COLORS[op.kind],
                    edgecolor="black", linewidth=0.4)
            if op.kind == "send" and op.message is not None:
                sends[op.message] = (op.end, p)
            elif op.kind == "recv" and op.message is not None:
                recvs[op.message] = (op.start, p)
    common = sorted(set(sends) & set(recvs))
    if len(common) <= max_arrows:
        for m in common:
            (x0, p0), (x1, p1) = sends[m], recvs[m]
            ax.annotate("", xy=(x1, p1), xytext=(x0, p0),
                        arrowprops={"arrowstyle": "->", "color": "0.4", "lw": 0.6})
    ax.set(yticks=range(P), yticklabels=[f"P{p}" for p in range(P)], xlabel=f"time [{unit}]" if unit else "time",
           title=title or f"LogGP timeline, makespan {result.makespan:.6g}")
    ax.invert_yaxis()
    ax.legend(handles=[Patch(color=c, label=k) for k, c in _COLORS.items()], loc="lower right", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    save(fig, path, dpi=120)


def plot_operations(op_times: Mapping[str, Mapping[int, float]], path: Path, *, title: str = "",
                    unit: str = "us") -> None:
    """The time of each basic operation against block size, log-log: the paper's Figure 6."""
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for op, times in op_times.items():
        b = sorted(times)
        ax.plot(b, [times[x] for x in b], "o-", label=op)
    ax.set(xscale="log", yscale="log", xlabel="block size", ylabel=f"time [{unit}]", title=title or "Basic operations")
    ax.grid(alpha=0.3, which="both")
    ax.legend()
    fig.tight_layout()
    save(fig, path)


def plot_gauss(rows: Sequence[StudyRow], path: Path, *, title: str = "", unit: str = "us",
               measured: Mapping[tuple[int, str], float] | None = None) -> None:
    """Total, communication and computation time against block size for each layout, standard
    and worst case: the paper's Figures 7, 8 and 9 side by side; ``measured`` totals (by block
    size and layout) join the total panel."""
    layouts = sorted({r.layout for r in rows})
    fig, axes = plt.subplots(len(layouts), 3, figsize=(14, 3.6 * len(layouts)), squeeze=False)
    for i, layout in enumerate(layouts):
        mine = sorted((r for r in rows if r.layout == layout), key=lambda r: r.block)
        b = [r.block for r in mine]
        for j, (what, label) in enumerate((("total", "total (Fig. 7)"), ("communication", "communication (Fig. 8)"),
                                           ("computation", "computation (Fig. 9)"))):
            ax = axes[i][j]
            ax.plot(b, [getattr(r.standard, what) for r in mine], "o-", label="standard (sec. 4)")
            ax.plot(b, [getattr(r.worst, what) for r in mine], "s--", label="worst case (sec. 4.2)")
            if measured and what == "total":
                ax.plot(b, [measured[(r.block, layout)] for r in mine], "^-", color="black", label="measured (MPI)")
            ax.set_xscale("log")
            if what != "computation":
                ax.set_yscale("log")
            ax.set_xticks(b, [str(x) for x in b], fontsize=7)
            ax.set(xlabel="block size", ylabel=f"{label} [{unit}]")
            ax.set_title(f"{layout}: {label}", fontsize=10)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    save(fig, path)


def whatif_figure(result: WhatIf, *, title: str = "", other: str = "other network") -> Any:
    """The simulated makespan against the factor each of L, o, g and G is scaled by (the others
    held), the slowdowns looked for as dotted lines and another network's makespan dashed."""
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for sweep in result.sweeps:
        ax.plot(sweep.factors, [m * 1e3 for m in sweep.makespans], "o-", ms=3, label=sweep.parameter)
    ax.set(xscale="log", yscale="log")
    for s in sorted({t.slowdown for t in result.tolerances}):
        ax.axhline(result.base * (1 + s) * 1e3, color="0.6", ls=":", lw=0.8)
        ax.annotate(f"+{s * 100:g} %", (ax.get_xlim()[0], result.base * (1 + s) * 1e3), fontsize=7, color="0.4",
                    va="bottom")
    if result.other_makespan is not None:
        ax.axhline(result.other_makespan * 1e3, color="k", ls="--", lw=1.0, label=other)
    ax.set(xlabel="factor on the parameter (the others held)", ylabel="simulated makespan [ms]",
           title=title or f"What if: base makespan {result.base * 1e3:.4g} ms")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
