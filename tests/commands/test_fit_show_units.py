"""The data's unit reaches every output of ``fit`` and ``show``: a file in nanoseconds stays in
nanoseconds, a file that states no unit (Extra-P's formats) is shown without one unless ``--unit``
says it, and times are shown scaled (28.48 ms, not 28480000 ns)."""
from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from perfcompose.cli import app

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def run(*args: str):
    return CliRunner(env={"COLUMNS": "200"}).invoke(app, [str(a) for a in args])


def _model_header(output: str) -> str:
    (header,) = [line for line in output.splitlines() if "region" in line and "model" in line]
    return header


def test_fit_of_a_file_without_a_unit_claims_no_time_unit(tmp_path):
    out, page = tmp_path / "m.json", tmp_path / "m.html"
    r = run("fit", EXAMPLES / "tasks.txt", "--json", out, "--html", page)
    assert r.exit_code == 0, r.output
    assert not re.search(r"\[(s|ms|us|ns)\]", _model_header(r.output))
    assert "states no unit" in r.output and "--unit ns" in r.output
    assert {rec["unit"] for rec in json.loads(out.read_text())} == {""}
    assert {rec["model"]["unit"] for rec in json.loads(out.read_text())} == {""}
    assert "[s]" not in page.read_text()


def test_fit_unit_option_states_the_unit_of_a_file_without_one(tmp_path):
    out, page = tmp_path / "m.json", tmp_path / "m.html"
    r = run("fit", EXAMPLES / "tasks.txt", "--unit", "ns", "--json", out, "--html", page)
    assert r.exit_code == 0, r.output
    assert "model [ns]" in _model_header(r.output) and "states no unit" not in r.output
    assert {rec["unit"] for rec in json.loads(out.read_text())} == {"ns"}
    assert re.search(r"measured \w+ \[ns\]", page.read_text())


def test_fit_of_nanoseconds_stays_in_nanoseconds(tmp_path):
    out = tmp_path / "m.json"
    r = run("fit", EXAMPLES / "tasks.csv", "--json", out)
    assert r.exit_code == 0, r.output
    assert "model [ns]" in _model_header(r.output)
    assert {rec["model"]["unit"] for rec in json.loads(out.read_text())} == {"ns"}


def test_fit_of_a_count_prints_no_time_unit(write_file):
    rows = "".join(f"main,visits,{x},{r},{3 * x}\n" for x in (2, 4, 8, 16, 32) for r in (1, 2))
    r = run("fit", write_file("v.csv", "region,metric,x,repetition,value\n" + rows))
    assert r.exit_code == 0, r.output
    assert "visits" in r.output and "[" not in _model_header(r.output)


def test_a_unit_that_contradicts_the_file_is_a_located_error():
    r = run("fit", EXAMPLES / "tasks.csv", "--unit", "s")
    assert r.exit_code == 2
    assert "tasks.csv is in ns" in r.output and "Traceback" not in r.output


def test_show_scales_times_and_keeps_the_files_unit():
    r = run("show", EXAMPLES / "tasks.csv")
    assert r.exit_code == 0, r.output
    assert "inc/time [ns]" in r.output
    # inc at x=65536 is 535 ns * 65536 = 35.2 ms: shown as milliseconds, not 3.52e+07
    (row,) = [line for line in r.output.splitlines() if "x=65536" in line and " ms " in line]
    assert re.search(r"3[45]\.\d+ ms", row)
    r = run("show", EXAMPLES / "tasks.txt")
    assert r.exit_code == 0 and "nop/time (no unit stated)" in r.output and "[s]" not in r.output
    r = run("show", EXAMPLES / "tasks.txt", "--unit", "ns")
    assert r.exit_code == 0 and "nop/time [ns]" in r.output and "µs" in r.output
