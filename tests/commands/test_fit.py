"""``fit`` of a profile of several call paths: the models of each series fitted alone, in this
process or on Dask; a bad scheduler address is a user error."""
from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.data import load
from perfcompose.fit import PMNFFitter
from perfcompose.fit.record import fit_to_json

CALLPATHS = Path(__file__).resolve().parents[2] / "examples" / "callpaths.txt"


def test_fit_of_several_call_paths_writes_each_series_own_model(tmp_path):
    out = tmp_path / "models.json"
    result = CliRunner().invoke(app, ["fit", str(CALLPATHS), "--json", str(out)])
    assert result.exit_code == 0, result.output
    exp = load(CALLPATHS)
    fitter = PMNFFitter(aggregate="mean")   # the command's default, as Extra-P's
    alone = [fit_to_json(fitter.fit_series(exp.parameters, s, source=exp.source), "mean") for s in exp.series]
    assert len(exp.series) > 1
    assert json.loads(out.read_text()) == json.loads(json.dumps(alone))


def test_fit_with_a_bad_scheduler_address_exits_2():
    result = CliRunner().invoke(app, ["fit", str(CALLPATHS), "--scheduler", "nowhere:port"])
    assert result.exit_code == 2
    assert "tcp://HOST:PORT" in result.output and "Traceback" not in result.output
