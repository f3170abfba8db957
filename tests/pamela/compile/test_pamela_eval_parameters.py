"""``pamela eval`` of a process asks only for the parameters that process uses, names every one
that is missing, and evaluates a process without resources, both from the compiler and from the
compiled model kept in the cache."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from perfcompose.cli import app

runner = CliRunner()
MODELS = Path(__file__).parents[1] / "models"


def run(*args: str):
    return runner.invoke(app, ["pamela", "eval", *args], env={"COLUMNS": "200"})


@pytest.mark.parametrize("attempt", ["compiled", "kept in the cache"])
def test_a_process_without_resources_has_an_empty_load_vector(attempt):
    model = str(MODELS / "delay_only.pam")
    first = run(model, "N=4", "--json", "-")
    assert first.exit_code == 0, first.output
    again = run(model, "N=4", "--json", "-") if attempt == "kept in the cache" else first
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout) == {"T_main": 10.0, "phi_main": 10.0, "omega_main": 0.0, "delta_main": [],
                                        "unit": "us"}
    table = run(model, "N=4")
    assert table.exit_code == 0 and "delta_main" in table.output and "none" in table.output, table.output


def test_a_process_evaluates_with_only_the_parameters_it_uses():
    model = str(MODELS / "unused_parameter.pam")
    for _ in range(2):  # compiled, then from the cache
        r = run(model, "P=4", "--json", "-")
        assert r.exit_code == 0, r.output
        assert json.loads(r.stdout)["T_main"] == 3.5
    r = run(model, "P=1:3", "--json", "-")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout) == {"parameters": ["P"], "points": [[1.0], [2.0], [3.0]], "T_main": [3.5] * 3,
                                    "unit": "us"}


@pytest.mark.parametrize("given", [(), ("N=5",), ("N=1:3",)])
def test_every_missing_parameter_is_named(given):
    model = str(MODELS / "unused_parameter.pam")
    for _ in range(2):  # compiled, then from the cache
        assert run(model, "P=2", "N=4", "--process", "other").exit_code == 0
        r = run(model, *given, "--process", "other")
        assert r.exit_code == 2, r.output
        missing = "parameters P, N" if not given else "parameter P"
        assert f"no value for {missing}" in r.output and "unused_parameter.pam" in r.output, r.output
        assert "Traceback" not in r.output
