"""``compose --json`` of a program with a simulated part: the model record carries the record of
the LogGP program it simulates and is read back as a component with the same values; a part that
no record describes is a clear error, exit 2, no traceback."""
from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from perfcompose.cli import app

LOGGP = Path(__file__).resolve().parents[2] / "examples" / "loggp"


def run(*args: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def test_compose_json_with_a_loggp_component_writes_the_programs_record(tmp_path):
    halo = tmp_path / "halo.json"
    r = run("loggp", "simulate", str(LOGGP / "exchange.json"), "--params", str(LOGGP / "params_local.json"),
            "--model-json", str(halo))
    assert r.exit_code == 0, r.output
    r = run("compose", "pipe(halo, inc)", "-c", f"halo={halo}", "-c", "inc=0.01*x", "--unit", "us", "--json", "-")
    assert r.exit_code == 0, r.output
    # --json -: standard output carries the JSON alone, the model line goes to stderr
    assert r.stderr.splitlines()[0] == "Max(0.01*x, halo(x))"
    rest = r.stdout
    record = json.loads(rest)
    assert record["functions"]["halo"]["format"] == "perfcompose-loggp-model/1"
    composed = tmp_path / "composed.json"
    composed.write_text(rest)
    direct = run("compose", "pipe(halo, inc)", "-c", f"halo={halo}", "-c", "inc=0.01*x", "--unit", "us",
                 "--at", "x=4096")
    again = run("compose", "program", "-c", f"program={composed}", "--at", "x=4096")
    assert direct.exit_code == 0 and again.exit_code == 0, again.output
    # the same value; the composed record says what was predicted, without the calibration's interval
    assert direct.stdout.splitlines()[-1].split()[:3] == again.stdout.splitlines()[-1].split()[:3]
    assert "90 % interval" in direct.stdout.splitlines()[-1]
    assert "at x=4096: 74.1" in again.stdout


def test_compose_json_of_a_part_no_record_describes_is_a_clear_error(tmp_path):
    model = tmp_path / "shifted.pam"
    model.write_text("numeric parameter N\nnumeric parameter P\nresource cpu(p) = fcfs(p, 1)\n"
                     "process main = par (i = 1, N) { use(cpu(i mod P), 1) ; use(cpu((i + 1) mod P), 2) }\n")
    r = run("compose", "seq(a, b)", "-c", f"a={model}", "-b", "a.N=x", "-b", "a.P=3", "-c", "b=x", "--unit", "us",
            "--json", "-")
    assert r.exit_code == 2, r.output
    assert "cannot be written to JSON" in r.stderr and "pamela compile --json" in r.stderr
    assert "Traceback" not in r.output


def test_a_model_record_whose_functions_cannot_be_rebuilt_is_a_located_error(tmp_path):
    bad = {"format": "perfcompose-model/1", "text": "halo(x)", "parameters": ["x"], "unit": "us",
           "expr": "Function('halo')(Symbol('x', positive=True))"}
    for functions, says in (({"halo": {"format": "something else"}}, "no LogGP or skeleton model record"),
                            ({}, "the function 'halo' is not known here"),
                            ({"halo": {"format": "perfcompose-loggp-model/1"}}, "halo.json")):
        path = tmp_path / "halo.json"
        path.write_text(json.dumps({**bad, "functions": functions}))
        r = run("compose", "a", "-c", f"a={path}")
        assert r.exit_code == 2, r.output
        assert says in r.stderr and "Traceback" not in r.output, r.stderr
