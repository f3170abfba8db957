"""``perfcompose skeleton quality``: the penalty and the Karp-Flatt serial fraction of a runtime
table, per n and p (paper 001)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from perfcompose.commands.common import cli_command, console, fmt, json_option, numbers_table, write_json
from perfcompose.option_fields import option, shared
from perfcompose.skeleton import quality as quality_rows
from perfcompose.skeleton import read_table


@dataclass(frozen=True)
class QualityCommand:
    table_file: Path = option(..., "Runtimes (see forecast).", argument=True, metavar="TABLE.csv")
    json_out: Path | None = shared(json_option("the rows"))


@cli_command(QualityCommand)
def quality(o: QualityCommand) -> None:
    table = read_table(o.table_file)
    rows = quality_rows(table)
    ref = "T(n)" if table.absolute else "T(n, 1)"
    for n in sorted({r.n for r in rows}):
        t = numbers_table(f"n = {n:g} (reference {ref} = {table.sequential(n):.6g} s)", "p", "T(n,p) [s]", "speedup",
                          "Ā(n,p) [s]", "f(n,p)")
        for r in (r for r in rows if r.n == n):
            t.add_row(str(r.p), fmt(r.time, ".6g"), fmt(r.speedup, ".3f"), fmt(r.penalty, ".4g"),
                      fmt(r.serial_fraction, ".4g"))
        console.print(t)
    if o.json_out:
        # JSON has no NaN: the serial fraction at p = 1, undefined, is null (the table's n/a)
        write_json(o.json_out, [{k: None if isinstance(v, float) and not math.isfinite(v) else v
                                 for k, v in r.__dict__.items()} for r in rows], "rows")
