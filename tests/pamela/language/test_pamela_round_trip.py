"""The compiler's output is a PAMELA model again (paper 004, section 2.2): ``pamela compile`` of every
example, written to a file, evaluates with ``pamela eval`` to the value of the process model."""
from __future__ import annotations

import json

import pytest
from pamela_models import EXAMPLES
from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.pamela import compile_file

runner = CliRunner()
ENV = {"COLUMNS": "200"}


def _point(path) -> list[str]:
    params = compile_file(path).parameters
    values = {"P": "1000", "N": "1e6", "C": "4", "R": "100"}
    return [f"{p}={values.get(p, '7')}" for p in params]


def _t(args: list[str]) -> float:
    r = runner.invoke(app, ["pamela", "eval", *args, "--json", "-"], env=ENV)
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)["T_main"]


@pytest.mark.parametrize("example", sorted(EXAMPLES.glob("*.pam")), ids=lambda p: p.stem)
@pytest.mark.parametrize("everything", [False, True], ids=["T", "all"])
def test_compiled_form_of_every_example_evaluates_as_the_model(example, everything, tmp_path):
    args = ["compile", str(example)] + (["--all"] if everything else [])
    r = runner.invoke(app, ["pamela", *args], env=ENV)
    assert r.exit_code == 0, r.output
    compiled = tmp_path / "c.pam"
    compiled.write_text(r.output)
    point = _point(example)
    assert _t([str(compiled), *point]) == pytest.approx(_t([str(example), *point]), rel=1e-9)


def test_numbers_only_model_cannot_be_simulated(tmp_path):
    path = tmp_path / "c.pam"
    path.write_text("numeric parameter N\nnumeric T_main = 2*N\n")
    r = runner.invoke(app, ["pamela", "simulate", str(path), "N=3"], env=ENV)
    assert r.exit_code == 2 and "no process" in r.output
