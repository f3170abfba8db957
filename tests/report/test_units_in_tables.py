"""No unit is lost in any command's tables: every bracketed unit in a table's title or headers
(``[ns]``, ``[ms]``, ``[s]``, ...) is printed, at 80 and at 200 columns; at 80 columns a column
may be left out only with a note that names it."""
from __future__ import annotations

import re
from importlib import import_module
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.commands import common

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
P = ["-c", "nop=5422.97", "-c", "inc=536.185*x", "-c", "qsort=1034.17*x*log2(x)", "--unit", "ns"]

COMMANDS: dict[str, list[str]] = {
    "show": ["show", str(EX / "tasks.csv")],
    "fit": ["fit", str(EX / "tasks.csv")],
    "laws": ["laws", "nop", "inc", *P],
    "explore": ["explore", "pipe(qsort, inc, nop)", *P, "--threads", "8", "--x", "65536"],
    "predict": ["predict", str(EX / "designs/pipeline.toml")],
    "predict one size": ["predict", str(EX / "designs/measured.toml"), "--x", "262144"],
    "bench": ["bench", "nop", "--param", "x=1024,2048", "--reps", "2", "--out", "{tmp}/nop.json"],
    "skeleton forecast": ["skeleton", "forecast", str(EX / "skeleton/checksum.csv"), "--at", "n=65536,p=4",
                          "--method", "lm", "--no-plot"],
    "loggp simulate": ["loggp", "simulate", str(EX / "loggp/fanin.json"), "--L", "10", "--o", "2", "--g", "5",
                       "--G", "0.01"],
    "loggp gauss": ["loggp", "gauss", "--n", "120", "--p", "4", "--blocks", "10,20", "--reps", "1"],
    "pamela eval": ["pamela", "eval", str(EX / "pamela/mrm.pam"), "P=1000", "N=1e6"],
    "paper lobachev": ["paper", "lobachev"],
    "demo": ["demo", "--plot", "{tmp}/demo.png", "--html", "{tmp}/demo.html"],
    "validate": ["validate", "pipe(inc, qsort)", "tpool_2(qsort)", "--x", "1024,16384,262144"],
    "paper table2": ["paper", "table2", "--quick"],
    "paper table7": ["paper", "table7", "--quick"],
    "paper table1": ["paper", "table1", "--quick", "--task", "nop", "--task", "inc", "--task", "qsort"],
}

#: commands whose quantities are in the unit of the model or paper they come from, not stated by it
UNITLESS = {"pamela eval", "paper lobachev"}

#: commands whose tables show each time with its own unit, scaled (28.48 ms), not one unit in a header
SCALED = {"predict", "predict one size"}

#: commands whose figures and HTML page are not drawn here (module, its drawing functions): they take
#: most of the command's time and are the same at every width; tests/report/test_cores_named.py and
#: tests/test_cli.py check demo's page and plot
DRAWS = {"demo": ("perfcompose.commands.demo", "programs_figure", "save", "page")}

UNIT = re.compile(r"\[([^\[\]]+)\]")


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch, part_rows: list[Any], study: Any) -> list[str]:
    """The raw titles and headers of every table the command builds; measurements replaced by
    the examples' (the demo) and by a study built from models (validate, paper tables)."""
    seen: list[str] = []
    init, add = common.Table.__init__, common.Table.add_column

    def record_init(self: Any, *args: Any, title: Any = None, **kw: Any) -> None:
        if isinstance(title, str):
            seen.append(title)
        init(self, *args, title=title, **kw)

    def record_add(self: Any, header: Any = "", *args: Any, **kw: Any) -> None:
        if isinstance(header, str):
            seen.append(header)
        add(self, header, *args, **kw)

    monkeypatch.setattr(common.Table, "__init__", record_init)
    monkeypatch.setattr(common.Table, "add_column", record_add)
    from perfcompose.commands import paper_tables
    from perfcompose.commands import validation as study_commands
    from perfcompose.validate import paper

    # the commands hold table1 under their own names
    for module in (paper, paper_tables, import_module("perfcompose.commands.demo")):
        monkeypatch.setattr(module, "table1", lambda **kw: part_rows)
    monkeypatch.setattr(study_commands, "run_composition_study", lambda *a, **kw: study)
    monkeypatch.setattr(paper_tables, "run_composition_study", lambda *a, **kw: study)
    return seen


def units_in(texts: list[str]) -> set[str]:
    """Bracketed units of titles and headers as printed (an escaping backslash removed)."""
    return {f"[{m}]" for t in texts for m in UNIT.findall(t.replace("\\[", "["))
            if not m.startswith(("/", "bold", "green", "red", "yellow", "dim"))}


@pytest.mark.parametrize("columns", [80, 200])
@pytest.mark.parametrize("name", list(COMMANDS))
def test_no_unit_is_lost(name: str, columns: int, recorded: list[str], tmp_path: Path,
                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for console in (common.console, common.err_console):
        monkeypatch.setattr(console, "_width", columns)
    if name in DRAWS:  # the tables are read here; the figures and page alike at any width, and tested elsewhere
        for attribute in DRAWS[name][1:]:
            monkeypatch.setattr(import_module(DRAWS[name][0]), attribute, lambda *a, **k: None)
    args = [a.replace("{tmp}", str(tmp_path)) for a in COMMANDS[name]]
    r = CliRunner().invoke(app, args, env={"COLUMNS": str(columns)})
    assert r.exit_code == 0, r.output
    out = r.output
    assert all(len(line) <= columns for line in out.splitlines() if "│" in line or "┃" in line)
    left_out = " ".join(re.findall(r"\(left out at this width: (.*?); widen", " ".join(out.split())))
    flat = " ".join(out.split())
    units = units_in(recorded)
    if name in SCALED:
        assert re.search(r"│\s*[0-9.]+ (s|ms|µs|ns)\s*│", out), f"{name} prints no time with its unit in a table"
    assert units or name in UNITLESS | SCALED, f"{name} prints no table with a unit"
    for unit in units:
        if unit in left_out:
            continue
        printed = unit in out if " " not in unit else " ".join(unit.split()) in flat
        assert printed, f"{unit} lost in the output of {name} at {columns} columns"
