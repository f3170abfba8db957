"""Whole processes, as a user runs them: start-up, reading, work and writing, beside the anchor.

Each row runs a perfcompose command and, where there is one, its anchor as separate processes,
alternately, ``--repeat`` times; the table gives the median wall time, the peak resident memory
(from the kernel's accounting of the finished child) and the ratio perfcompose / anchor. Rows
whose anchor cannot run here (LogGOPSim not built, Extra-P not installed) say why and still time
perfcompose. Where there is no anchor program, a floor is shown instead: the interpreter alone
for ``--help``, the interpreter importing SymPy for a command that builds a symbolic model.

    python benchmarks/process_speed.py [--repeat 5] [--only help,compose,pamela,fit]
        [--extrap .venv-extrap/bin/extrap]

The ``fit`` rows fit an Extra-P text file (one parameter, 5 points of 5 repetitions, and two
parameters on a 5 x 5 grid, written here) with ``perfcompose fit`` and with Extra-P's own command
line (``extrap --text``); LogGP's whole-process rows are in ``loggp_process.py``.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
PERFCOMPOSE = [PYTHON, "-m", "perfcompose"]


@dataclass(frozen=True)
class Run:
    """One finished process: wall seconds, peak resident set in MB, exit status."""

    seconds: float
    peak_mb: float
    status: int


@dataclass
class Row:
    """A command beside its anchor (or floor), and the goal the row is read against."""

    name: str
    command: list[str]
    anchor: list[str] | None = None
    anchor_name: str = ""
    goal: str = ""
    skip: str = ""
    runs: list[Run] = field(default_factory=list)
    anchor_runs: list[Run] = field(default_factory=list)


def run_once(command: Sequence[str], cwd: Path = ROOT) -> Run:
    """Run a command to its end with output discarded; time it and read its peak memory."""
    start = time.perf_counter()
    proc = subprocess.Popen(list(command), cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0 and proc.stderr is not None:
        sys.stderr.write(f"{' '.join(command)} exited {proc.returncode}: {proc.stderr.read().decode()[-400:]}\n")
    return Run(seconds, usage.ru_maxrss / 1024, proc.returncode)


def measure(rows: list[Row], repeat: int, progress: Callable[[str], None]) -> None:
    """Alternate each row's command and anchor so that both see the same machine."""
    for row in rows:
        if row.skip and row.anchor is None and not row.command:
            continue
        run_once(row.command)  # warm the file cache and any compiled-kernel cache
        if row.anchor is not None:
            run_once(row.anchor)
        for k in range(repeat):
            progress(f"{row.name}: run {k + 1} of {repeat}")
            row.runs.append(run_once(row.command))
            if row.anchor is not None:
                row.anchor_runs.append(run_once(row.anchor))


def _median(runs: list[Run], attr: str) -> float:
    return statistics.median(getattr(r, attr) for r in runs) if runs else float("nan")


def render(rows: list[Row]) -> Table:
    table = Table(title="whole process, median of the runs", title_justify="left")
    for col in ("command", "perfcompose \\[s]", "peak \\[MB]", "anchor", "anchor \\[s]", "anchor peak \\[MB]",
                "ratio", "goal"):
        table.add_column(col, justify="left" if col in ("command", "anchor", "goal") else "right")
    for row in rows:
        t, m = _median(row.runs, "seconds"), _median(row.runs, "peak_mb")
        failed = any(r.status != 0 for r in row.runs + row.anchor_runs)
        if row.anchor_runs:
            ta, ma = _median(row.anchor_runs, "seconds"), _median(row.anchor_runs, "peak_mb")
            ratio = f"{t / ta:.2f}"
            anchor_cols = [row.anchor_name, f"{ta:.3f}", f"{ma:.0f}", ratio]
        else:
            anchor_cols = [row.skip or "—", "—", "—", "—"]
        table.add_row(row.name + (" (a run failed)" if failed else ""), f"{t:.3f}", f"{m:.0f}", *anchor_cols,
                      row.goal)
    return table


def help_rows() -> list[Row]:
    return [Row("perfcompose --help", [*PERFCOMPOSE, "--help"], [PYTHON, "-c", "pass"],
                "floor: the interpreter alone", "≤ 0.25 s")]


def compose_rows() -> list[Row]:
    small = [*PERFCOMPOSE, "compose", "tpool_4(qsort)", "-c", "qsort=1034.17*x*log2(x)", "--unit", "ns"]
    design = [*PERFCOMPOSE, "predict", str(ROOT / "examples" / "designs" / "pipeline.toml")]
    explore = [*PERFCOMPOSE, "explore", "-c", "a=2*x", "-c", "b=3*x*log2(x)", "-c", "c=500", "--threads", "4",
               "pipe(a,b,c)"]
    floor = [PYTHON, "-c", "import sympy"]
    return [Row("compose tpool_4(qsort), one component", small, floor,
                "floor: the interpreter importing SymPy", "≤ 0.25 s"),
            Row("predict pipe(tpool_4(qsort), inc, nop), 5 sizes", design, floor,
                "floor: the interpreter importing SymPy", ""),
            Row("explore pipe(a,b,c), 4 threads", explore, floor, "floor: the interpreter importing SymPy", "")]


def pamela_rows() -> list[Row]:
    mrm = str(ROOT / "examples" / "pamela" / "mrm.pam")
    batch = [*PERFCOMPOSE, "pamela", "eval", mrm, "P=1:1000", "N=1e6"]
    probe = subprocess.run(batch, cwd=ROOT, capture_output=True, text=True)
    skip = "" if probe.returncode == 0 else "this pamela eval takes no ranges"
    return [Row("pamela eval mrm.pam P=1:1000 N=1e6 (1,000 points)", batch, None,
                skip or "paper: 120 µs per evaluation, quoted", "≤ 0.5 s", skip=skip)]


def _experiment_files(folder: Path) -> list[tuple[str, Path]]:
    """Extra-P text files of a one- and a two-parameter experiment with 5 % noise."""
    import numpy as np

    from perfcompose.data import Experiment, save

    rng = np.random.default_rng(7)
    one = [((x,), 3 + 0.2 * x ** 2 * (1 + 0.05 * rng.standard_normal(5))) for x in (4, 8, 16, 32, 64)]
    two = [((p, n), 1 + 0.5 * p * np.log2(p) * n * (1 + 0.05 * rng.standard_normal(5)))
           for p in (4, 8, 16, 32, 64) for n in (10, 20, 40, 80, 160)]
    out = []
    for name, params, points in (("one parameter", ["x"], one), ("two parameters", ["p", "n"], two)):
        path = folder / f"{name.replace(' ', '_')}.txt"
        save(Experiment.single(params, points, region="kernel"), path, "extrap-text")
        out.append((name, path))
    return out


def fit_rows(extrap: str, folder: Path) -> list[Row]:
    found = Path(extrap).exists()
    skip = "" if found else f"Extra-P not found at {extrap} (pip install extrap==4.2.5 there, or pass --extrap)"
    return [Row(f"fit, Extra-P text, {name}", [*PERFCOMPOSE, "fit", str(path)],
                [extrap, "--text", str(path)] if found else None, "Extra-P 4.2.5: extrap --text", "ratio ≤ 1",
                skip=skip)
            for name, path in _experiment_files(folder)]


def main() -> None:
    import tempfile

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", default="help,compose,pamela,fit", help="comma-separated row groups")
    ap.add_argument("--extrap", default=str(ROOT / ".venv-extrap" / "bin" / "extrap"),
                    help="Extra-P's command line program (default: %(default)s)")
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="process_speed_"))
    groups: dict[str, Callable[[], list[Row]]] = {"help": help_rows, "compose": compose_rows,
                                                  "pamela": pamela_rows,
                                                  "fit": lambda: fit_rows(args.extrap, folder)}
    wanted = [g.strip() for g in args.only.split(",") if g.strip()]
    unknown = [g for g in wanted if g not in groups]
    if unknown:
        ap.error(f"unknown row group(s) {', '.join(unknown)}; choose from {', '.join(groups)}")
    rows = [row for g in wanted for row in groups[g]()]
    err = Console(stderr=True)
    measure(rows, args.repeat, lambda text: err.print(text, highlight=False))
    Console(width=200).print(render(rows))
    print(f"load average at the end: {os.getloadavg()[0]:.2f} (cores: {os.cpu_count()})")


if __name__ == "__main__":
    main()
