"""``perfcompose analyze DIR`` of a folder of runs Hatchet reads, the parameter named with --param,
and its table of call paths written with --table."""
from __future__ import annotations

import csv
from pathlib import Path

import pytest
from caliper_json_files import solver_runs
from typer.testing import CliRunner

from perfcompose.cli import app


def run(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(app, ["analyze", *args], env={"COLUMNS": "300"})
    assert result.exit_code == code, result.output
    return result.output


def test_a_folder_of_runs_is_analysed_and_its_table_ranks_the_growing_call_path_first(tmp_path: Path) -> None:
    runs = solver_runs(tmp_path / "runs")
    out = run(str(runs), "--param", "p=file", "--at", "p=1024", "--table", str(tmp_path / "t.csv"))
    assert "main->solve" in out and "table written to" in out
    rows = {(r["metric"], r["call path"]): r for r in csv.DictReader((tmp_path / "t.csv").open())}
    assert set(rows) == {("time", p) for p in ("main", "main->solve", "main->io", "main->io->write")}
    solve = rows["time", "main->solve"]
    assert solve["rank"] == "1" and rows["time", "main"]["rank"] == ""
    assert float(solve["value"]) == pytest.approx(512.0, rel=1e-3) and "p" in solve["model"]
    assert float(rows["time", "main->io"]["value"]) == pytest.approx(3.5, rel=1e-3)
    assert float(solve["share"]) > 0.98


def test_a_run_without_the_named_parameter_is_named_with_exit_status_2(tmp_path: Path) -> None:
    runs = solver_runs(tmp_path / "runs")
    out = run(str(runs), "--param", "p=mpi.world.size", "--at", "p=64", code=2)
    assert "run.p16.json: no value of parameter 'p' in its metadata key 'mpi.world.size'" in out
    out = run(str(runs), "--param", "p", "--at", "p=64", code=2)
    assert "--param 'p' is not NAME=SOURCE" in out
