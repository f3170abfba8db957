"""The terminal table: units in titles and headers survive Rich's markup, long cells wrap
instead of being cut, optional columns give way with a note when the terminal is narrow."""
from __future__ import annotations

from rich.console import Console

from perfcompose.commands.common import Table
from perfcompose.report.tables import literal


def render(table: Table, width: int) -> str:
    console = Console(width=width, record=True, color_system=None)
    console.print(table)
    return console.export_text()


def test_literal_escapes_tags_once() -> None:
    assert literal("time [ms]") == "time \\[ms]"
    assert literal("time \\[ms]") == "time \\[ms]"
    assert literal("[1024, 2048]") == "[1024, 2048]"  # not a tag: Rich prints it as it is


def test_units_in_title_and_headers_are_printed() -> None:
    t = Table(title="predicted time per element [ns]")
    t.add_column("median [s]")
    t.add_column("time \\[ms]")
    t.add_row("1", "2")
    out = render(t, 80)
    assert "[ns]" in out and "[s]" in out and "[ms]" in out and "\\[" not in out


def test_long_cells_wrap_instead_of_being_cut() -> None:
    model = "1034.17*x*log2(x)+536.185*x+5422.97*x**2*log2(x)**3"
    t = Table()
    t.add_column("model [ns]")
    t.add_column("value", justify="right")
    t.add_row(model, "12345")
    out = render(t, 30)
    assert "…" not in out
    first = "".join(line.split("│")[1].strip() for line in out.splitlines() if line.startswith("│"))
    assert first == model


def test_optional_columns_give_way_with_a_note() -> None:
    def table() -> Table:
        t = Table(title="t")
        t.add_column("program")
        t.add_column("paper's model [ns]", optional=1)
        t.add_column("lead coefficient error %", optional=2)
        t.add_column("time [ns]", justify="right")
        t.add_row("pipe(tpool_4(qsort), inc, nop)", "5422.97 + 1034.17*x*log2(x)", "1.5", "2.5e+09")
        return t

    wide = render(table(), 200)
    assert "paper's model [ns]" in wide and "left out" not in wide
    narrow = render(table(), 80)
    flat = " ".join(narrow.split())
    assert "left out at this width: paper's model [ns]" in flat
    assert "lead coefficient" in flat  # the lower-ranked column went first; this one fits now
    assert "time [ns]" in flat and "2.5e+09" in narrow


def test_the_report_block_holds_the_printed_cells_without_markup() -> None:
    t = Table(title="laws [ns]")
    t.add_column("law")
    t.add_column("value \\[ms]", justify="right")
    t.add_row("[green]holds[/green]", "1.5")
    t.caption = "2 of 3 rows"
    block = t.block()
    assert block.title == "laws [ns]" and block.columns == ("law", "value [ms]")
    assert block.rows == (("holds", "1.5"),) and block.numeric == (False, True) and block.note == "2 of 3 rows"
    out = render(t, 80)
    assert "holds" in out and "[green]" not in out and "2 of 3 rows" in out
