"""``perfcompose loggp gauss``: section 5's blocked Gaussian elimination, predicted per block size and layout with the
standard and the worst-case algorithm, and with ``--measure`` run for real on local MPI ranks (Figures 6-9)."""
from __future__ import annotations

import os
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer

from perfcompose.commands.common import cli_command, console, json_option, numbers_table, progress, shared_option
from perfcompose.commands.reports import tables_html
from perfcompose.errors import InputError
from perfcompose.limits import check_memory, check_steps
from perfcompose.loggp.gauss import (
    BLOCK_SIZES,
    LAYOUTS,
    OPS,
    OPS_IMPLEMENTATION,
    best,
    run_gauss_study,
    time_operations,
)
from perfcompose.loggp.gauss import measure as run_measure
from perfcompose.loggp.options import LogGPOptions
from perfcompose.loggp.params import DEV_MACHINE, MEIKO_CS2, read_params
from perfcompose.option_fields import cli_option, option, shared
from perfcompose.report.loggp import plot_gauss, plot_operations


def _block_sizes(blocks: str | None, n: int) -> list[int]:
    """The block sizes asked for (each dividing n), or the paper's that divide n."""
    if blocks:
        try:
            sizes = [int(b) for b in blocks.split(",")]
        except ValueError:
            raise typer.BadParameter(f"{blocks!r}: write sizes like 10,12,16", param_hint="--blocks") from None
        bad = [b for b in sizes if b < 1 or n % b]
        if bad:
            raise InputError(f"block size {bad[0]} does not divide n = {n}")
    else:
        sizes = [b for b in BLOCK_SIZES if n % b == 0]
        if not sizes:
            raise InputError(f"none of the paper's block sizes divides n = {n}", hint="give --blocks")
    grid = (n / min(sizes)) ** 2  # blocks of the finest layout
    check_memory(grid * 8.0 * 8, f"Gaussian elimination of n = {n} in blocks of {min(sizes)} ({grid:.3g} blocks)")
    check_steps(grid ** 1.5, f"Gaussian elimination of n = {n} in blocks of {min(sizes)}")
    return sizes


def _network(params_file: Path | None, paper_network: bool,
             overrides: dict[str, float | None]) -> tuple[Any, str, str]:
    """The network's parameters in us, where they come from, and both as the tables say them."""
    if params_file is not None and paper_network:
        raise InputError("give --params or --paper-network, not both")
    base = read_params(params_file) if params_file else (MEIKO_CS2 if paper_network else DEV_MACHINE)
    if base.unit and base.unit != "us":
        base = base.to("us")
    source = str(params_file) if params_file else ("the paper's Meiko CS-2" if paper_network
                                                   else "measured on the development machine")
    params = base.replace(**overrides)
    return params, source, (f"L={params.L:.3g} o={params.o:.3g} g={params.g:.3g} us, G={params.G:.3g} us/byte "
                            f"({source})")


def _processors(p: int | None, measure: bool, ranks: int | None) -> int:
    """The processors predicted: --p (default 8), or the ranks measured."""
    if measure:
        measured_ranks = ranks or os.cpu_count() or 2
        if p is not None and p != measured_ranks:
            raise InputError(f"--p {p} differs from the {measured_ranks} ranks measured",
                             hint="leave out --p with --measure, or give --ranks")
        return measured_ranks
    if ranks is not None:
        raise InputError("--ranks needs --measure")
    return 8 if p is None else p


def _measure(n: int, p: int, sizes: list[int], reps: int, mpiexec: str | None) -> tuple[dict[Any, Any], str]:
    """The elimination run for real: per (block, layout) its measured record, and the MPI library."""
    with progress() as bar:
        task = bar.add_task(f"running it on {p} MPI ranks", total=len(sizes) * len(LAYOUTS))
        record = run_measure(n, sizes, layouts=LAYOUTS, reps=reps, ranks=p, mpiexec=mpiexec,
                             progress=lambda k, t: bar.update(task, completed=k))
    return {(r["block"], r["layout"]): r for r in record["rows"]}, str(record["library"])


def _tables(ops: Any, rows: Any, sizes: list[int], n: int, p: int, network: str) -> tuple[Any, Any, list[str]]:
    """Figure 6's operation times and the predictions, printed; and the faster layout per block."""
    t6 = numbers_table(f"Basic operations measured here (Figure 6; {OPS_IMPLEMENTATION}) [us]", "block", *OPS,
                       title_justify="left")
    for b in sizes:
        t6.add_row(str(b), *(f"{ops[op][b]:.4g}" for op in OPS))
    console.print(t6)
    table = numbers_table(f"Gaussian elimination, N = {n}, P = {p}; network {network}; predicted times [ms]", "block",
                          "layout", "total", "comp.", "comm.", "worst: total", "comp.", "comm.", "messages", "forced",
                          title_justify="left")
    for r in rows:
        table.add_row(str(r.block), r.layout, *(f"{x / 1e3:.4g}" for x in (
            r.standard.total, r.standard.computation, r.standard.communication, r.worst.total,
            r.worst.computation, r.worst.communication)), str(r.messages), str(r.forced))
    console.print(table)
    winners = []
    for b in sizes:
        win = min((r for r in rows if r.block == b), key=lambda r: r.standard.total)
        winners.append(f"{b}: {win.layout}")
    console.print("faster layout per block size (standard): " + ", ".join(winners))
    return t6, table, winners


def _print_best(rows: Any) -> None:
    for which in ("standard", "worst"):
        b = best(rows, which)
        for layout in LAYOUTS:
            mine = best([r for r in rows if r.layout == layout], which)
            console.print(f"{which:>8}: best block size for {layout}: {mine.block} "
                          f"({getattr(mine, which).total / 1e3:.4g} ms)")
        console.print(f"{which:>8}: best choice: block {b.block}, {b.layout} layout "
                      f"({getattr(b, which).total / 1e3:.4g} ms)")


def _where(measured: float, standard: float, worst: float) -> str:
    """Where a measured time falls against the two predictions."""
    lo, hi = sorted((standard, worst))
    return "below both" if measured < lo else ("above both" if measured > hi else "between")


#: the measured side by side with both predictions, as the paper's Figures 7-9 show them
_FIGURES = (("total", "Figure 7: total time"), ("communication", "Figure 8: communication time"),
            ("computation", "Figure 9: computation time"))


def _print_measured(rows: Any, measured: dict[Any, Any], p: int, library: str, reps: int) -> None:
    """Measured against both predictions, total, communication and computation (Figures 7-9), and
    where the measurement falls (Figure 8: between the two for communication). The measured
    communication time is the critical rank's time outside Op1-Op4 (its total less its
    computation), as the predictions' is the last processor's total less its computation."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for part, title in _FIGURES:
        mtable = numbers_table(f"{title}, measured on {p} MPI ranks ({library}, median of {reps}) against the "
                               "predictions [ms]", "block", "layout", "standard", "measured", "worst case", "where",
                               title_justify="left")
        for r in rows:
            m = measured[(r.block, r.layout)]
            value = m["total"] - m["computation"] if part == "communication" else m[part]
            std, worst = getattr(r.standard, part), getattr(r.worst, part)
            where = _where(value, std, worst)
            counts[part][where] += 1
            mtable.add_row(str(r.block), r.layout, f"{std / 1e3:.4g}", f"{value / 1e3:.4g}", f"{worst / 1e3:.4g}",
                           where)
        console.print(mtable)
    for part, _title in _FIGURES[:2]:
        c = counts[part]
        console.print(f"{part}: the measurement lies between the standard and the worst-case prediction for "
                      f"{c.get('between', 0)} of {len(rows)} block sizes and layouts, below both for "
                      f"{c.get('below both', 0)}, above both for {c.get('above both', 0)}"
                      + (" (the paper's Figure 8: between)" if part == "communication" else ""))
    if not all(m["eliminated"] for m in measured.values()):
        console.print("WARNING: some runs did not reduce the matrix to upper triangular form")


def _plots(rows: Any, ops: Any, measured: dict[Any, Any], n: int, p: int, plot: Path | None,
           plot_ops: Path | None) -> None:
    if plot is not None:
        plot_gauss(rows, plot, title=f"Blocked Gaussian elimination, N = {n}, P = {p} "
                                     f"({'predicted and measured' if measured else 'predicted'})",
                   measured={k: v["total"] for k, v in measured.items()} or None)
        console.print(f"plot written to {plot}")
    if plot_ops is not None:
        plot_operations(ops, plot_ops, title=f"Basic operations measured here (Figure 6; {OPS_IMPLEMENTATION})")
        console.print(f"plot of the basic operations written to {plot_ops}")


def _write_json(path: Path, n: int, p: int, params: Any, source: str, ops: Any, rows: Any,
                measured: dict[Any, Any]) -> None:
    from perfcompose.commands.common import write_json

    record = {"n": n, "p": p, "params": {"L": params.L, "o": params.o, "g": params.g, "G": params.G,
                                         "unit": "us", "source": source},
              "op_times_us": {op: {str(b): v for b, v in ops[op].items()} for op in OPS},
              "rows": [{"block": r.block, "layout": r.layout, "steps": r.steps, "messages": r.messages,
                        "forced": r.forced, "standard": vars(r.standard), "worst": vars(r.worst),
                        **({"measured": measured[(r.block, r.layout)]} if measured else {})} for r in rows]}
    write_json(path, record, "results", indent=2)


def _write_html(path: Path, n: int, p: int, network: str, rows: Any, tables: list[Any], winners: list[str]) -> None:
    top = {which: best(rows, which) for which in ("standard", "worst")}
    title = f"Blocked Gaussian elimination, N = {n}, P = {p} (predicted)"
    tables_html(path, title, "LogGP study", tables,
                lines=["faster layout per block size (standard): " + ", ".join(winners)],
                plots=[("total, communication and computation time per block size",
                        lambda out: plot_gauss(rows, out, title=title))],
                summary=[("network", network),
                         *((f"best choice ({which})", f"block {b.block}, {b.layout} layout "
                            f"({getattr(b, which).total / 1e3:.4g} ms)") for which, b in top.items())])


def _predict(n: int, p: int, sizes: list[int], params: Any, reps: int, seed: int) -> tuple[Any, Any, float, float]:
    """Op1-Op4 timed here, and both predictions per block size and layout; the seconds each took."""
    start = time.perf_counter()
    with progress() as bar:
        task = bar.add_task("timing Op1-Op4", total=len(OPS) * len(sizes))
        ops = time_operations(sizes, reps=reps, progress=lambda k, t: bar.update(task, completed=k))
        timed = time.perf_counter() - start
        task2 = bar.add_task("simulating", total=len(sizes) * len(LAYOUTS))
        rows = run_gauss_study(n, p, params, ops, block_sizes=sizes, seed=seed,
                         progress=lambda k, t: bar.update(task2, completed=k))
    return ops, rows, timed, time.perf_counter() - start - timed


@dataclass(frozen=True)
class GaussCommand:
    n: int = option(960, "Matrix order N.", minimum=1)
    p: int | None = option(None, "Processors (default 8; with --measure, the ranks measured).", minimum=1)
    blocks: str | None = option(None, "Block sizes, comma separated (default: the paper's 14 sizes that divide N).")
    params_file: Path | None = option(None, "Network parameters (from calibrate); default: those measured on the "
                                            "development machine.", flag="--params")
    paper_network: bool = option(False, "Use the paper's Meiko CS-2 values (L=9, o=2, g=14 us, G=0.03 us/byte).")
    L: float | None = option(None, "Override the latency [us].")
    o: float | None = option(None, "Override the overhead [us].")
    g: float | None = option(None, "Override the gap [us].")
    G: float | None = option(None, "Override the gap per byte [us].")
    reps: int = option(5, "Timed repetitions of each basic operation.", minimum=1)
    seed: int = shared(cli_option(LogGPOptions, "seed"))
    plot: Path | None = option(None, "Plot total, communication and computation time per block size (Figures 7-9) "
                                     "to this PNG.")
    json_out: Path | None = shared(json_option("the operation times and predictions"))
    html: Path | None = shared_option("html")
    measure: bool = option(False, "Also run the elimination for real on local MPI ranks (mpi4py + MPICH) and compare "
                                  "with both predictions (Figures 7-9).")
    ranks: int | None = option(None, "With --measure: MPI ranks (default: one per core).", minimum=1)
    mpiexec: str | None = option(None, "With --measure: mpiexec to use.")
    plot_ops: Path | None = option(None, "Plot the basic operations' times per block size (Figure 6) to this PNG.")


@cli_command(GaussCommand)
def gauss(opts: GaussCommand) -> None:
    n = opts.n
    p = _processors(opts.p, opts.measure, opts.ranks)
    sizes = _block_sizes(opts.blocks, n)
    # each simulation keeps about 1 KiB and takes about 25 steps per processor
    runs = len(sizes) * len(LAYOUTS)
    check_memory(1024.0 * p, f"simulating {p:,} processors (--p)")
    check_steps(25.0 * p * runs, f"{runs} simulations of {p:,} processors (--p, --blocks)")
    params, source, network = _network(opts.params_file, opts.paper_network, {k: getattr(opts, k) for k in "LogG"})
    ops, rows, timed, simulated = _predict(n, p, sizes, params, opts.reps, opts.seed)
    measured, library = _measure(n, p, sizes, opts.reps, opts.mpiexec) if opts.measure else ({}, "")
    t6, table, winners = _tables(ops, rows, sizes, n, p, network)
    _print_best(rows)
    console.print(f"timing the operations took {timed:.1f} s, the {len(rows)} x 2 simulations {simulated:.1f} s")
    if measured:
        _print_measured(rows, measured, p, library, opts.reps)
    _plots(rows, ops, measured, n, p, opts.plot, opts.plot_ops)
    if opts.json_out is not None:
        _write_json(opts.json_out, n, p, params, source, ops, rows, measured)
    if opts.html is not None:
        _write_html(opts.html, n, p, network, rows, [t6, table], winners)
