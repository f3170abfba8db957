"""``perfcompose loggp calibrate``: the LogGP parameters measured on two local MPI ranks."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import typer

from perfcompose.commands.common import cli_command, console, numbers_table, progress
from perfcompose.limits import check_steps
from perfcompose.loggp.calibrate.parameters import BANDWIDTH, MIN_G_SIZE, CalibrationOptions
from perfcompose.loggp.calibrate.parameters import calibrate as run_calibration
from perfcompose.option_fields import option

#: the largest message size the probe sends (each size is one buffer on each rank)
MAX_SIZE = 1 << 30


def _check_sizes(sizes: str) -> list[int]:
    """Refuse a --sizes that is not at least three whole byte counts from 1 B to 1 GiB, two of them long
    enough to measure G from."""
    try:
        values = [int(s) for s in sizes.split(",")]
    except ValueError:
        values = []
    if (len(set(values)) < 3 or not all(1 <= v <= MAX_SIZE for v in values)
            or len({v for v in values if v >= MIN_G_SIZE}) < 2):
        raise typer.BadParameter(f"{sizes!r}: give at least three message sizes in bytes from 1 to {MAX_SIZE}, "
                                 f"two of them at least {MIN_G_SIZE} (G is measured there), comma separated, "
                                 "like 1,4096,65536", param_hint="--sizes")
    return values


@dataclass(frozen=True)
class CalibrateCommand(CalibrationOptions):
    out: Path = option(Path("loggp_params.json"), "Parameter file to write.")
    raw: Path | None = option(None, "Also keep the raw figures (JSON) here.")


@cli_command(CalibrateCommand)
def calibrate(o: CalibrateCommand) -> None:
    """Two local ranks measure ping-pong round trips, message trains and a delayed train; each
    parameter is the median over repetitions. Calibrate on the MPI the program runs on: --mpicc
    names its compiler wrapper (its mpiexec is found beside it)."""
    if o.bandwidth not in BANDWIDTH:
        raise typer.BadParameter(f"{o.bandwidth!r}: give one of {', '.join(BANDWIDTH)}", param_hint="--bandwidth")
    count = len(_check_sizes(o.sizes))
    # each size's figures take about 2 ms per message of a train or round trip: 1e4 of the limits' steps
    check_steps(o.reps * count * (3.0 + o.train) * 1e4, f"{o.reps:,} repetitions of trains of {o.train:,} messages "
                f"at {count} sizes (--reps, --train, --sizes)")
    with progress() as bar:
        task = bar.add_task("MPI probe on 2 ranks", total=o.reps)
        cal = run_calibration(o.out, o, raw_out=o.raw, progress=lambda k, n: bar.update(task, completed=k, total=n))
    via = "a C probe" if cal.raw_summary["probe"] == "C" else "mpi4py"
    table = numbers_table(f"LogGP parameters of {cal.raw_summary['library']} via {via}, 2 local ranks, "
                          f"{cal.raw_summary['repetitions']} repetitions [us]", "parameter", "median", "quartiles",
                          "min .. max", title_justify="left")
    for k in ("L", "o", "g", "G"):
        s = cal.spread[k]
        table.add_row(k + (" (per byte)" if k == "G" else ""), f"{s['median']:.4g}", f"{s['q1']:.4g} .. {s['q3']:.4g}",
                      f"{s['min']:.4g} .. {s['max']:.4g}")
    console.print(table)
    for line in [*cal.raw_summary["table"], *cal.raw_summary["notes"]]:
        console.print(line, highlight=False)
    console.print(f"bandwidth 1/G = {1 / cal.params.G / 1e3:.3g} GB/s (G from the {cal.raw_summary['G_from']}s); "
                  f"parameters written to {o.out}")
