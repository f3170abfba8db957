"""``pamela eval`` on a grid: ranges (P=1:1000), steps and lists, one compilation for every point."""
from __future__ import annotations

import json

import pytest
from pamela_models import EXAMPLES
from typer.testing import CliRunner

from perfcompose.cli import app

runner = CliRunner()
MRM = str(EXAMPLES / "mrm.pam")


def _grid(*args: str):
    r = runner.invoke(app, ["pamela", "eval", MRM, *args, "--json", "-"], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_a_thousand_points_of_the_mrm_match_its_closed_form():
    out = _grid("P=1:1000", "N=1e6")
    assert out["parameters"] == ["P", "N"] and len(out["points"]) == 1000
    for (P, N), T in zip(out["points"], out["T_main"]):
        assert T == pytest.approx(max(10.1 * N, 0.1 * N * P))


def test_steps_and_lists_make_a_cartesian_grid():
    out = _grid("P=100:300:100", "N=1,2")
    assert out["points"] == [[100, 1], [100, 2], [200, 1], [200, 2], [300, 1], [300, 2]]
    assert out["T_main"][-1] == pytest.approx(60.0)


def test_a_grid_prints_one_row_per_point():
    r = runner.invoke(app, ["pamela", "eval", MRM, "P=1:3", "N=10"], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    assert "3 points" in r.output and "101" in r.output


@pytest.mark.parametrize("args, words", [
    (["P=5:1", "N=1"], "not a range"),
    (["P=1:3", "N=1", "Q=1:2"], "'Q' is not a parameter"),
    (["P=1:3"], "no value for parameter N"),
    (["P=1:3", "N=x,2"], "not a number"),
])
def test_bad_grids_exit_2(args, words):
    r = runner.invoke(app, ["pamela", "eval", MRM, *args], env={"COLUMNS": "200"})
    assert r.exit_code == 2 and words in r.output, r.output


def test_a_large_grid_prints_every_point_as_plain_aligned_columns():
    r = runner.invoke(app, ["pamela", "eval", MRM, "P=1:1000", "N=1e6"], env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0] == "mrm.pam: T_main at 1,000 points"
    assert lines[1].split() == ["P", "N", "T_main", "[us]"] and len(lines) == 1002
    assert lines[-1].split() == ["1000", "1e+06", "100000000"]  # max(10.1*N, 0.1*N*P) at P = 1000
    assert len({len(line) for line in lines[1:]}) == 1  # columns aligned
