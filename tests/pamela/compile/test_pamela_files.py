"""Every PAMELA model shipped with perfcompose (examples/ and tests/) compiles, and each of its
processes evaluates the same numerically (``pamela eval``, compiled and from the cache) and
symbolically (the compiled model as a Model, and the text ``pamela compile`` prints)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.pamela import compile_file
from perfcompose.pamela.compile.numeric_form import read_numeric_form

ROOT = Path(__file__).resolve().parents[3]
FILES = sorted([*(ROOT / "examples").rglob("*.pam"), *(ROOT / "tests").rglob("*.pam")])
runner = CliRunner()

#: every parameter a process uses is given this value (small: index ranges are looped over)
VALUE = 6.0


def test_the_models_are_found():
    assert {p.name for p in FILES} >= {"mrm.pam", "bus.pam", "delay_only.pam", "unused_parameter.pam"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_process_compiles_and_evaluates_numerically_and_symbolically(path, tmp_path):
    cm = compile_file(path)
    assert cm.processes, "a model has a process to evaluate"
    for process in cm.processes:
        values = {p: VALUE for p in cm.uses(process)}
        given = [f"{k}={v:g}" for k, v in values.items()]
        evaluated = []
        for _ in range(2):  # compiled, then from the cache
            r = runner.invoke(app, ["pamela", "eval", str(path), "--process", process, *given, "--json", "-"])
            assert r.exit_code == 0, r.output
            evaluated.append(json.loads(r.stdout))
        assert evaluated[0].pop("unit") == evaluated[1].pop("unit") == "us"
        for key, value in evaluated[0].items():
            assert evaluated[1][key] == pytest.approx(value, rel=1e-12), key
        T = evaluated[0][f"T_{process}"]
        assert T == pytest.approx(cm.evaluate(values, process).T, rel=1e-12)
        model = cm.model(process)
        assert set(model.params) <= set(values)
        assert float(model(**{p: values[p] for p in model.params})) == pytest.approx(T, rel=1e-9)
        r = runner.invoke(app, ["pamela", "compile", str(path), "--process", process, "--all"])
        assert r.exit_code == 0, r.output
        form = read_numeric_form(r.output)
        if form is not None and form.reads(process):
            assert form.quantity(process, "T", values) == pytest.approx(T, rel=1e-9)
            compiled = tmp_path / f"{path.stem}.{process}.pam"
            compiled.write_text(r.output)
            r = runner.invoke(app, ["pamela", "eval", str(compiled), "--process", process, *given, "--json", "-"])
            assert r.exit_code == 0, r.output
            assert json.loads(r.stdout)[f"T_{process}"] == pytest.approx(T, rel=1e-9)
