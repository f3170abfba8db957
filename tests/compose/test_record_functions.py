"""Model records whose functions are known only numerically (a LogGP program, a skeleton table),
read as several components of one program: the same record twice composes; two records with a
function of the same name are a clear error, never a traceback."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.compose import Composer, parse_component
from perfcompose.errors import ModelError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PROGRAM, PARAMS = EXAMPLES / "loggp" / "exchange.json", EXAMPLES / "loggp" / "params_local.json"


def cli(*args: object) -> tuple[int, str]:
    result = CliRunner().invoke(app, [str(a) for a in args])
    # what a run that worked wrote to stdout (with --json -, the JSON alone); all it printed, if it failed
    return result.exit_code, result.stdout if result.exit_code == 0 else result.output


def makespan(x: float) -> float:
    code, out = cli("loggp", "simulate", PROGRAM, "--params", PARAMS, "--at", f"x={x:g}", "--json", "-")
    assert code == 0, out
    return json.loads(out)["makespan"]


def saved_model(tmp_path: Path, component: str, *loggp: str) -> Path:
    """``compose --json`` of ``seq(COMPONENT, c)``: a model record holding the LogGP program's
    function (simulated with ``loggp``'s options) under the name COMPONENT, beside its record."""
    record = tmp_path / f"{component}{''.join(loggp)}.loggp.json"
    code, out = cli("loggp", "simulate", PROGRAM, "--params", PARAMS, *loggp, "--at", "x=1024", "--model-json", record)
    assert code == 0, out
    code, out = cli("compose", f"seq({component}, c)", "-c", f"{component}={record}", "-c", "c=0.5", "--unit", "us",
                    "--json", "-")
    assert code == 0, out
    path = tmp_path / f"{component}{''.join(loggp)}.json"
    path.write_text(out)
    assert component in json.loads(path.read_text())["functions"]
    return path


def test_one_saved_model_read_as_two_components_composes(tmp_path):
    saved = saved_model(tmp_path, "halo")
    _, a = parse_component(f"a={saved}")
    _, b = parse_component(f"b={saved}")
    model = Composer({"a": a, "b": b})("seq(a, b)")
    assert model(x=4096.0) == pytest.approx(2 * (makespan(4096) + 0.5), rel=1e-12)


def test_one_saved_model_as_two_components_on_the_command_line(tmp_path):
    saved = saved_model(tmp_path, "halo")
    code, out = cli("compose", "seq(a, b)", "-c", f"a={saved}", "-c", f"b={saved}", "--at", "x=4096")
    assert code == 0, out
    assert f"at x=4096: {2 * (makespan(4096) + 0.5):.6g} us" in out


def test_two_records_with_functions_of_one_name_are_a_clear_error(tmp_path):
    first, second = saved_model(tmp_path, "halo"), saved_model(tmp_path, "halo", "--L", "5")
    _, a = parse_component(f"a={first}")
    _, b = parse_component(f"b={second}")
    with pytest.raises(ModelError, match="two different functions named halo"):
        Composer({"a": a, "b": b})("seq(a, b)")(x=4096.0)
    code, out = cli("compose", "seq(a, b)", "-c", f"a={first}", "-c", f"b={second}", "--at", "x=4096")
    assert code == 2 and "Traceback" not in out and "two different functions named halo" in out, out
