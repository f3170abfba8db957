"""``perfcompose skeleton quality``: the penalty and the Karp-Flatt serial fraction of a runtime
table, per n and p (paper 001)."""
from __future__ import annotations

import math
from pathlib import Path

import typer

from perfcompose.commands.common import Table, console, fmt, json_option, user_errors, write_json
from perfcompose.skeleton import quality as quality_rows
from perfcompose.skeleton import read_table


@user_errors
def quality(table_file: Path = typer.Argument(..., metavar="TABLE.csv", help="Runtimes (see forecast)."),
            json_out: Path | None = json_option("the rows"),
            ) -> None:
    table = read_table(table_file)
    rows = quality_rows(table)
    ref = "T(n)" if table.absolute else "T(n, 1)"
    for n in sorted({r.n for r in rows}):
        t = Table(title=f"n = {n:g} (reference {ref} = {table.sequential(n):.6g} s)", title_justify="left")
        for col in ("p", "T(n,p) [s]", "speedup", "Ā(n,p) [s]", "f(n,p)"):
            t.add_column(col, justify="right")
        for r in (r for r in rows if r.n == n):
            t.add_row(str(r.p), fmt(r.time, ".6g"), fmt(r.speedup, ".3f"), fmt(r.penalty, ".4g"),
                      fmt(r.serial_fraction, ".4g"))
        console.print(t)
    if json_out:
        # JSON has no NaN: the serial fraction at p = 1, undefined, is null (the table's n/a)
        write_json(json_out, [{k: None if isinstance(v, float) and not math.isfinite(v) else v
                               for k, v in r.__dict__.items()} for r in rows], "rows")
