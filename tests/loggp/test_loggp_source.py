"""A LogGP program with expressions as a Model: instances, the simulation cache, located errors,
and the model record written by ``perfcompose loggp simulate --model-json``."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.errors import InputError
from perfcompose.loggp import (
    LogGP,
    LogGPSource,
    ProgramTemplate,
    program_to_json,
    read_params,
    read_program,
    read_source,
    read_template,
    simulate_program,
)
from perfcompose.model import Model

runner = CliRunner(env={"COLUMNS": "200"})

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "loggp"
EXCHANGE = EXAMPLES / "exchange.json"
PARAMS_FILE = EXAMPLES / "params_local.json"
NETWORK = ["--L", "10", "--o", "2", "--g", "5", "--G", "0.01"]

TWO = {"P": 2, "steps": [{"kind": "comp", "durations": ["0.5*x", "y"]},
                         {"kind": "comm", "messages": [[0, 1, "8*x*y"], [1, 0, 64]]}]}


def simulate_cli(*args: str) -> dict:
    res = runner.invoke(app, ["loggp", "simulate", *args, "--json", "-"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def exchange_source() -> LogGPSource:
    return LogGPSource(read_template(EXCHANGE), read_params(PARAMS_FILE))


@pytest.mark.parametrize("x", ["1000", "12345.5", "3e6"])
def test_model_at_a_point_equals_the_cli_simulation(x, write_file):
    model = exchange_source().model("exchange")
    value = model(x=float(x))
    assert simulate_cli(str(EXCHANGE), "--params", str(PARAMS_FILE), "--at", f"x={x}")["makespan"] == value
    # the same program written out with numbers, simulated without --at
    fixed = read_template(EXCHANGE).instantiate({"x": float(x)})
    path = write_file("fixed.json", json.dumps(program_to_json(fixed)))
    assert simulate_cli(str(path), "--params", str(PARAMS_FILE))["makespan"] == value


def test_options_reach_the_simulation():
    template = read_template(EXCHANGE)
    params = read_params(PARAMS_FILE)
    src = LogGPSource(template, params, worst_case=True, ties="rank", gap_origin="start", seed=3)
    expect = simulate_program(template.instantiate({"x": 500.0}), params, worst_case=True, ties="rank",
                              gap_origin="start", seed=3).makespan
    assert src.model()(x=500.0) == expect


def test_fifty_distinct_points_simulate_fifty_times_then_none():
    src = exchange_source()
    model = src.model("exchange")
    xs = np.linspace(100.0, 1e5, 50)
    first = model(x=xs)
    assert src.simulations == 50
    again = model(x=xs)
    assert src.simulations == 50
    assert np.array_equal(first, again) and first.shape == (50,)
    assert np.all(np.diff(first) > 0)  # more data, longer run


def test_repeated_points_in_one_array_simulate_once_each():
    src = exchange_source()
    xs = np.array([[1000.0, 2000.0, 1000.0], [3000.0, 2000.0, 1000.0]])
    out = src.model()(x=xs)
    assert src.simulations == 3
    assert out.shape == (2, 3)
    assert out[0, 0] == out[0, 2] == out[1, 2] and out[0, 1] == out[1, 1]
    assert out[1, 0] == src.evaluate(3000.0)
    assert src.simulations == 3


def test_two_parameters_broadcast_over_a_grid(write_file):
    src = LogGPSource(read_template(write_file("two.json", json.dumps(TWO))), LogGP(10, 2, 5, 0.01))
    model = src.model("two")
    assert model.params == ("x", "y")
    grid = model(x=np.array([1.0, 2.0, 4.0])[:, None], y=np.array([1.0, 3.0]))
    assert grid.shape == (3, 2) and src.simulations == 6
    assert grid[2, 1] == model(x=4.0, y=3.0) and src.simulations == 6


def test_the_model_composes_with_analytic_models():
    src = exchange_source()
    total = src.model("exchange") + Model.parse("0.5*x", unit="us")
    assert total.unit == "us"
    assert total(x=2000.0) == pytest.approx(src.evaluate(2000.0) + 1000.0)


def test_the_models_unit_and_source():
    template = read_template(EXCHANGE)
    assert exchange_source().model().unit == "us"
    assert exchange_source().model().source == f"loggp program {EXCHANGE}"
    unitless = ProgramTemplate.from_doc(TWO)
    assert LogGPSource(unitless, LogGP(1, 1, 1, 0, "ms")).model().unit == "ms"
    assert LogGPSource(unitless, LogGP(1, 1, 1, 0)).model().unit == ""
    assert LogGPSource(unitless, LogGP(1, 1, 1, 0)).model(unit="cycles").unit == "cycles"
    # parameters in ms are converted to the program's us
    ms = LogGPSource(template, read_params(PARAMS_FILE).to("ms"))
    assert ms.params.unit == "us"
    assert ms.model()(x=1000.0) == pytest.approx(exchange_source().model()(x=1000.0), rel=1e-12)


def test_a_program_without_expressions_is_a_constant_model():
    path = EXAMPLES / "worked.json"
    template = read_template(path)
    assert template.parameters == ()
    fixed = read_program(path)
    assert np.array_equal(template.instantiate({}).steps[0].nbytes, fixed.steps[0].nbytes)
    src = LogGPSource(template, LogGP(10, 2, 14, 0, "us"), ties="rank")
    model = src.model("worked")
    assert model.params == () and float(model()) == 32.0  # the worked timeline of docs/loggp.md
    assert src.simulations == 1


def test_constant_expressions_are_evaluated_once():
    doc = {"P": 2, "steps": [{"kind": "comm", "messages": [[0, 1, "2^10"]]}]}
    template = ProgramTemplate.from_doc(doc)
    assert template.parameters == () and template.instantiate({}).steps[0].nbytes[0] == 1024.0


def test_instantiation_fills_the_expressions_and_keeps_the_numbers(write_file):
    template = read_template(write_file("two.json", json.dumps(TWO)))
    prog = template.instantiate({"x": 4.0, "y": 3.0, "unused": 1.0})
    assert list(prog.steps[0].durations) == [2.0, 3.0]
    assert list(prog.steps[1].nbytes) == [96.0, 64.0]
    assert prog.steps[1].send_order(1) == (1,)
    assert template.doc == TWO  # the document as written, for writing back


def test_a_bad_expression_is_located(write_file):
    text = ('{"P": 2, "steps": [\n'
            '  {"kind": "comm", "messages": [[0, 1, "8*x +* 2"]]}\n'
            ']}\n')
    path = write_file("bad.json", text)
    with pytest.raises(InputError) as info:
        read_template(path)
    e = info.value
    assert str(path) in str(e) and "cannot parse" in str(e)
    assert e.line == 2 and e.column == text.splitlines()[1].index('"8*x') + 1 + 6  # the second '*'


@pytest.mark.parametrize("doc, needle", [
    ({"P": 2, "steps": [{"kind": "comp", "durations": ["x", "nope(x)"]}]}, "unknown function 'nope'"),
    ({"P": 2, "steps": [{"kind": "comm", "messages": [[0, "x", "8*x"]]}]}, "dst must be a number"),
    ({"P": 2, "steps": [{"kind": "comm", "messages": [[0, 0, "8*x"]]}]}, "sends to itself"),
    ({"P": 2, "steps": [{"kind": "comp", "durations": ["x"]}]}, "list of 2 numbers"),
    ({"P": "x", "steps": []}, "P must be a positive integer"),
])
def test_structural_problems_are_located_with_expressions_in_place(write_file, doc, needle):
    path = write_file("bad.json", json.dumps(doc))
    with pytest.raises(InputError) as info:
        read_template(path)
    assert needle in str(info.value) and info.value.line == 1 and info.value.column is not None


def test_a_negative_size_names_the_step_the_message_and_the_point(write_file):
    doc = {"P": 2, "steps": [{"kind": "comp", "durations": [1, 1]},
                             {"kind": "comm", "messages": [[1, 0, 1], [0, 1, "8*x - 100"]]}]}
    src = LogGPSource(read_template(write_file("neg.json", json.dumps(doc))), LogGP(10, 2, 5, 0.01))
    model = src.model("neg")
    assert model(x=20.0) > 0
    with pytest.raises(InputError) as info:
        model(x=np.array([20.0, 3.0]))
    text = str(info.value)
    assert "step 1" in text and "message 1 (0 -> 1)" in text and "x=3" in text and "-76" in text
    assert info.value.line == 1


def test_a_duration_that_is_not_finite_names_the_processor():
    doc = {"P": 2, "steps": [{"kind": "comp", "durations": [1, "log2(x)"]}]}
    with pytest.raises(InputError, match="processor 1.*x=0"):
        ProgramTemplate.from_doc(doc, source="p.json").instantiate({"x": 0.0})


def test_model_json_round_trips_through_from_record(tmp_path):
    out = tmp_path / "exchange_model.json"
    res = runner.invoke(app, ["loggp", "simulate", str(EXCHANGE), "--params", str(PARAMS_FILE),
                              "--ties", "rank", "--model-json", str(out)])
    assert res.exit_code == 0, res.output
    record = json.loads(out.read_text())
    assert record["format"] == "perfcompose-loggp-model/1" and record["name"] == "exchange"
    assert record["options"] == {"worst_case": False, "ties": "rank", "seed": 0, "gap_origin": "end"}
    assert record["program"] == json.loads(EXCHANGE.read_text())
    again = LogGPSource.from_record(record, out)
    original = LogGPSource(read_template(EXCHANGE), read_params(PARAMS_FILE), ties="rank")
    xs = np.array([10.0, 1e3, 7.5e4])
    assert np.array_equal(again.model()(x=xs), original.model()(x=xs))
    assert again.model().source == f"loggp program {EXCHANGE}"
    assert read_source(out).to_record() == record


def test_model_json_with_at_also_simulates_the_point(tmp_path):
    out = tmp_path / "m.json"
    value = simulate_cli(str(EXCHANGE), *NETWORK, "--at", "x=4096", "--model-json", str(out))["makespan"]
    assert read_source(out).model()(x=4096.0) == value


@pytest.mark.parametrize("change, needle", [
    (lambda r: r.pop("params"), "missing key 'params'"),
    (lambda r: r.pop("options"), "missing key 'options'"),
    (lambda r: r["params"].pop("G"), "missing key 'G'"),
    (lambda r: r["options"].update(ties="coin"), "['options']['ties']: must be 'random' or 'rank'"),
    (lambda r: r.update(format="other/1"), "the format is 'other/1'"),
    (lambda r: r["params"].update(L=-1), "L = -1"),
])
def test_a_bad_record_names_the_file_and_the_key(tmp_path, change, needle):
    record = exchange_source().to_record()
    change(record)
    path = tmp_path / "model.json"
    with pytest.raises(InputError) as info:
        LogGPSource.from_record(record, path)
    assert str(path) in str(info.value) and needle in str(info.value)
    path.write_text(json.dumps(record, indent=2))
    with pytest.raises(InputError) as info:
        read_source(path)
    assert needle in str(info.value) and info.value.line is not None


def test_a_bad_program_in_a_record_is_located_in_the_record(tmp_path):
    record = exchange_source().to_record()
    record["program"]["steps"][0]["durations"][2] = "0.002*x)"
    path = tmp_path / "model.json"
    path.write_text(json.dumps(record, indent=2))
    with pytest.raises(InputError) as info:
        read_source(path)
    e = info.value
    assert "['program']['steps'][0]['durations'][2]" in str(e)
    assert '"0.002*x)"' in path.read_text().splitlines()[e.line - 1]


def test_cli_without_values_lists_the_parameters_needed():
    res = runner.invoke(app, ["loggp", "simulate", str(EXCHANGE), *NETWORK])
    assert res.exit_code == 2
    assert "depend on x; give --at for x" in res.stderr and "Traceback" not in res.output


@pytest.mark.parametrize("at, needle", [
    (["--at", "y=2"], "no parameter 'y'"),
    (["--at", "x"], "NAME=VALUE"),
    (["--at", "x=inf"], "finite number"),
    (["--at", "x=1", "--at", "x=2"], "given twice"),
])
def test_cli_rejects_bad_values(at, needle):
    res = runner.invoke(app, ["loggp", "simulate", str(EXCHANGE), *NETWORK, *at])
    assert res.exit_code == 2 and needle in res.output


def test_cli_reports_the_point_in_json_and_tables():
    out = simulate_cli(str(EXCHANGE), *NETWORK, "--at", "x=100")
    assert out["at"] == {"x": 100.0} and out["unit"] == "us"
    res = runner.invoke(app, ["loggp", "simulate", str(EXCHANGE), *NETWORK, "--at", "x=100"])
    assert res.exit_code == 0 and "at x=100" in res.stdout


def test_cli_without_expressions_has_no_point(write_file):
    out = simulate_cli(str(EXAMPLES / "worked.json"), "--L", "10", "--o", "2", "--g", "14", "--G", "0",
                       "--ties", "rank")
    assert "at" not in out and out["makespan"] == 32
    res = runner.invoke(app, ["loggp", "simulate", str(EXAMPLES / "worked.json"), *NETWORK, "--at", "x=1"])
    assert res.exit_code == 2 and "numbers, not expressions" in res.stderr
