"""A LogGP model record written under calibrated parameters keeps the calibration's members, so
the component read from it (``-c NAME=RECORD``) carries the same 90 % interval as the program
named in a design with the same parameter file."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.compose import parse_component
from perfcompose.compose.components import from_table
from perfcompose.errors import InputError
from perfcompose.loggp.source import read_source

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
PROGRAM, PARAMS = EXAMPLES / "loggp" / "exchange.json", EXAMPLES / "loggp" / "params_local.json"


def record(tmp_path: Path, *flags: str) -> Path:
    out = tmp_path / "halo.json"
    result = CliRunner().invoke(app, ["loggp", "simulate", str(PROGRAM), *flags, "--model-json", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_a_record_under_a_calibrated_parameter_file_has_the_designs_interval(tmp_path):
    _, read = parse_component(f"h={record(tmp_path, '--params', str(PARAMS))}")
    named = from_table("h", {"loggp": str(PROGRAM), "params": str(PARAMS)}, base=tmp_path)
    x = [4096.0, 16384.0]
    low, high = read.interval(x=x)
    assert low == pytest.approx(named.interval(x=x)[0], rel=1e-12)
    assert high == pytest.approx(named.interval(x=x)[1], rel=1e-12)
    assert read(x=x) == pytest.approx(named(x=x), rel=1e-12)
    assert all(low <= read(x=x) * (1 + 1e-12)) and all(read(x=x) <= high * (1 + 1e-12)) and all(high > low)


def test_a_parameter_given_on_the_command_line_is_exact_in_every_member(tmp_path):
    doc = json.loads(record(tmp_path, "--params", str(PARAMS), "--L", "3").read_text())
    assert len(doc["calibration"]) > 1 and {m["L"] for m in doc["calibration"]} == {3.0}
    assert len({m["o"] for m in doc["calibration"]}) > 1


def test_parameters_typed_in_are_exact(tmp_path):
    path = record(tmp_path, "--L", "9", "--o", "2", "--g", "14", "--G", "0.03")
    assert "calibration" not in json.loads(path.read_text())
    _, read = parse_component(f"h={path}")
    assert read.interval(x=4096.0) is None


def test_a_bad_calibration_member_is_located(tmp_path):
    path = record(tmp_path, "--params", str(PARAMS))
    doc = json.loads(path.read_text())
    del doc["calibration"][1]["G"]
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError, match="missing key 'G'") as info:
        read_source(path)
    assert "calibration" in str(info.value)
