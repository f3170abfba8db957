"""Per statement, predicted against measured, for the case studies of `perfcompose paper vangemund`.

    python benchmarks/pamela_phases.py --machine vangemund/machine.pam [--clock cpu]
        [--program gauss_block --program gauss_cyclic] [--N 1024] [--P 2]

The machine model is one `perfcompose paper vangemund` wrote (calibrated with the same clock).
Every program runs once after a warm-up with every line timed (the tracing adds about a
microsecond per line run: compare statements, not totals with the table's); each statement's
model is the program's model with every other statement costing nothing. Without --N, each
study's own sizes; without --P, 1 and 2.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from perfcompose.pamela.dataparallel.vangemund import PROGRAMS, STUDIES, phases


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--machine", type=Path, required=True, help="machine model (.pam) to predict with")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    ap.add_argument("--program", action="append", help="program stem (e.g. gauss_block); default: all")
    ap.add_argument("--N", type=int, action="append", help="problem size; default: the study's sizes")
    ap.add_argument("--P", type=int, action="append", help="processors; default: 1 and 2")
    args = ap.parse_args()
    console = Console()
    for study in STUDIES:
        for _, name in study.alternatives:
            stem = Path(name).stem
            if args.program and stem not in args.program:
                continue
            for N in args.N or study.sizes:
                for P in args.P or (1, 2):
                    table = Table(title=f"{stem} N={N:,} P={P} ({args.clock} clock)")
                    for col in ("line", "statement", "predicted \\[ms]", "measured \\[ms]", "error"):
                        table.add_column(col, justify="left" if col in ("line", "statement") else "right")
                    found = phases(PROGRAMS / name, {"N": N}, P, args.machine, args.clock)
                    for ph in found:
                        table.add_row(f"{Path(ph.file).name}:{ph.line}", escape(ph.source[:60]),
                                      f"{ph.predicted * 1e3:.3f}" if ph.modelled else "not in the model",
                                      f"{ph.measured * 1e3:.3f}",
                                      f"{ph.error * 100:+.1f} %" if ph.modelled else "")
                    pred = sum(ph.predicted for ph in found)
                    meas = sum(ph.measured for ph in found)
                    table.add_row("", "sum", f"{pred * 1e3:.3f}", f"{meas * 1e3:.3f}",
                                  f"{(pred - meas) / meas * 100:+.1f} %" if meas else "")
                    console.print(table)


if __name__ == "__main__":
    main()
