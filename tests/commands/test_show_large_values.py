"""``perfcompose show`` of measurements near the largest double: medians and variation are
computed without overflow, never printed as inf."""
from __future__ import annotations

import json

from typer.testing import CliRunner

from perfcompose.cli import app


def test_show_prints_finite_medians_of_values_near_the_largest_double(tmp_path):
    path = tmp_path / "big.extrap.json"
    path.write_text(json.dumps({"parameters": ["x"], "measurements": {"r": {"time": [
        {"point": [1], "values": [1e308, 1e308]}, {"point": [2], "values": [1e308, 5e307]}]}}}))
    r = CliRunner().invoke(app, ["show", str(path)], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    assert "inf" not in r.output and "nan" not in r.output
    rows = [line.split("│")[1:-1] for line in r.output.splitlines() if line.startswith("│")]
    assert [[c.strip() for c in row] for row in rows] == [["x=1", "2", "1e+308", "0.00"],
                                                          ["x=2", "2", "7.5e+307", "47.14"]]
