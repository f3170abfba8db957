"""skeleton quality --json writes JSON (null, not NaN, for the serial fraction at p = 1, which is
undefined); found by the option fuzz through --json -."""
from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from perfcompose.cli import app

TABLE = Path(__file__).resolve().parents[2] / "examples" / "skeleton" / "checksum.csv"


def _strict(token: str) -> None:
    raise AssertionError(f"{token} is not JSON")


def test_the_rows_are_json_with_null_where_the_table_shows_n_a() -> None:
    result = CliRunner().invoke(app, ["skeleton", "quality", str(TABLE), "--json", "-"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout, parse_constant=_strict)
    assert {r["serial_fraction"] is None for r in rows} == {True, False}
    assert all(r["serial_fraction"] is None for r in rows if r["p"] == 1)
