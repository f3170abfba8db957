"""``predict --json`` and ``--html`` of every example design: the JSON holds what was predicted
(per point the time, interval, bottleneck and each component's time with source and unit), the
same values the table prints and the Python API returns, the composed model as text and as an
expression over the components, and a model record read back as a component; a design whose
components are simulated (LogGP, skeleton) is written like any other."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.compose import Composer, load_design, parse_component
from perfcompose.compose.prediction import predict
from perfcompose.report.numbers import size
from perfcompose.units import human, human_interval

DESIGNS = sorted((Path(__file__).resolve().parents[2] / "examples" / "designs").glob("*.toml"))


@pytest.fixture
def wide(monkeypatch):
    from perfcompose.commands.common import console, err_console

    for c in (console, err_console):  # the consoles read COLUMNS when they were made
        monkeypatch.setattr(c, "_width", 250)


def printed_rows(output: str) -> dict[str, list[str]]:
    """The rows of the table 'predicted time per data element', by the size they start with."""
    table = output[output.index("predicted time per data element"):]
    rows = [[c.strip() for c in line.split("│")[1:-1]] for line in table.splitlines() if line.startswith("│")]
    return {row[0]: row[1:] for row in rows}


def test_every_example_design_is_tried():
    assert {d.name for d in DESIGNS} >= {"mixed.toml", "pipeline.toml", "measured.toml"}


@pytest.mark.parametrize("design", DESIGNS, ids=lambda p: p.stem)
def test_predict_json_holds_what_was_predicted_and_printed(design, tmp_path, wide):
    out, page = tmp_path / "prediction.json", tmp_path / "prediction.html"
    r = CliRunner().invoke(app, ["predict", str(design), "--json", str(out), "--html", str(page)])
    assert r.exit_code == 0, r.output
    assert "Traceback" not in r.output and page.stat().st_size > 1000
    data = json.loads(out.read_text())
    d = load_design(design)
    assert data["format"] == "perfcompose-prediction/1" and data["program"] == str(d.program)
    assert [p["point"]["x"] for p in data["points"]] == list(d.x)

    # the Python API gives the same prediction
    api = predict(d.program, Composer(d.components, pipe=d.pipe), d.x, d.parameters)
    assert data["unit"] == api.unit and data["model"]["text"] == str(api.model)
    assert data["model"]["operators"] == str(api.operators)
    for got, want in zip(data["points"], api.points):
        assert got["value"] == pytest.approx(want.value, rel=1e-9)
        assert got["bottleneck"] == list(want.bottleneck)
        assert (got["interval"] is None) == (want.low is None)
        if got["interval"] is not None:
            low, high = got["interval"]
            assert low == pytest.approx(want.low, rel=1e-9) and high == pytest.approx(want.high, rel=1e-9)
            assert low <= got["value"] * (1 + 1e-9) and high >= got["value"] * (1 - 1e-9)
        for c in want.components:
            assert got["components"][c.name]["value"] == pytest.approx(c.value, rel=1e-9)
            assert got["components"][c.name]["unit"] == c.unit == api.unit
            assert got["components"][c.name]["source"] == c.source

    # the text output prints the same values and bottlenecks
    rows = printed_rows(r.output)
    for p in data["points"]:
        cells = rows[size(p["point"]["x"])]
        assert cells[0] == human(p["value"], data["unit"], 5)
        if p["interval"] is not None:
            assert cells[1] == human_interval(*p["interval"], data["unit"])
        assert cells[-1] == (" > ".join(p["bottleneck"]) or "-")

    # every component with its source, unit and record; the model over the components' names
    assert set(data["components"]) == set(d.program.components())
    for name, comp in data["components"].items():
        assert comp["source"] and comp["unit"] == api.unit and comp["record"] is not None, name
    structure = data["model"]["over_components"]
    assert structure is not None and set(re.findall(r"[A-Za-z_]\w*", structure)) >= set(d.program.components())

    # the composed model's record is read back as a component, with the same values
    assert data["model"]["record"] is not None
    _, again = parse_component(f"program={out}")
    for p in data["points"]:
        value = again(**{k: v for k, v in p["point"].items() if k in again.params})
        assert float(value) == pytest.approx(p["value"], rel=1e-9)


def test_the_simulated_parts_of_a_prediction_carry_their_sources_records(tmp_path, wide, monkeypatch):
    monkeypatch.setattr("perfcompose.compose.oversubscription.machine_cores", lambda: 2)
    out = tmp_path / "mixed.json"
    design = next(d for d in DESIGNS if d.name == "mixed.toml")
    r = CliRunner().invoke(app, ["predict", str(design), "--json", str(out)])
    assert r.exit_code == 0, r.output
    data = json.loads(out.read_text())
    functions = data["model"]["record"]["functions"]
    assert functions["halo"]["format"] == "perfcompose-loggp-model/1"
    assert functions["checksum"]["format"] == "perfcompose-skeleton-model/1"
    assert data["components"]["halo"]["record"]["functions"]["halo"] == functions["halo"]
    assert data["model"]["over_components"] == "Max(halo, solve, checksum + post, " \
                                               "checksum/2 + halo/2 + post/2 + solve/2)"
    assert data["workers"]["workers"] == 3
    assert data["components"]["post"]["own_unit"] == "ns" and data["components"]["post"]["unit"] == "us"


def test_a_part_no_record_describes_is_written_as_null_and_the_prediction_all_the_same(tmp_path, wide):
    (tmp_path / "shifted.pam").write_text(
        "numeric parameter N\nnumeric parameter P\nresource cpu(p) = fcfs(p, 1)\n"
        "process main = par (i = 1, N) { use(cpu(i mod P), 1) ; use(cpu((i + 1) mod P), 2) }\n")
    design = tmp_path / "d.toml"
    design.write_text('unit = "us"\nprogram = "pipe(a, b)"\nx = [16, 64]\n[components]\n'
                      'a = { pamela = "shifted.pam", bind = { N = "x", P = 3 } }\nb = "0.5*x"\n')
    out = tmp_path / "p.json"
    r = CliRunner().invoke(app, ["predict", str(design), "--json", str(out)])
    assert r.exit_code == 0, r.output
    data = json.loads(out.read_text())
    assert [p["value"] for p in data["points"]] == [17.0, 65.0]
    assert data["model"]["record"] is None and data["components"]["a"]["record"] is None
    assert list(data["model"]["functions"].values()) == [None]
    assert data["components"]["b"]["record"]["text"] == "0.5*x"
    assert data["model"]["over_components"] == "Max(a, b)"
