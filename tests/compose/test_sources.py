"""Components from every source: a composed prediction equals evaluating the source alone.

Each source (PAMELA, LogGP, skeleton forecast, fitted measurements) is bound to the design's
parameters, composed with seq, pipe and tpool next to models in other units, and checked against
the source's own command at the same point.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from perfcompose import Model
from perfcompose.cli import app
from perfcompose.compose import ComponentError, Composer, DesignError, load_design, parse_component
from perfcompose.compose.components import from_table
from perfcompose.errors import ModelError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MRM = EXAMPLES / "pamela" / "mrm.pam"
runner = CliRunner()


def cli(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def pamela_eval(path: Path, **values: float) -> float:
    out = cli("pamela", "eval", str(path), *(f"{k}={v!r}" for k, v in values.items()), "--json")
    return json.loads(out)["T_main"]


# -- PAMELA -----------------------------------------------------------------------------------


def test_pamela_component_binds_its_parameters_to_the_design(tmp_path):
    mrm = from_table("mrm", {"pamela": str(MRM), "bind": {"N": "x", "P": 4}, "unit": "us"}, base=tmp_path)
    assert mrm.params == ("x",) and mrm.unit == "us"
    assert mrm(x=1000.0) == pytest.approx(pamela_eval(MRM, P=4, N=1000))


@pytest.mark.parametrize("term, combine", [
    ("seq(mrm, inc)", lambda m, i: m + i),
    ("pipe(mrm, inc)", max),
    ("tpool_3(mrm)", lambda m, i: m / 3),
])
def test_pamela_in_seq_pipe_and_tpool_equals_pamela_eval_in_mixed_units(tmp_path, term, combine):
    # the PAMELA model is in microseconds, inc in nanoseconds: the composition is in ns
    mrm = from_table("mrm", {"pamela": str(MRM), "bind": {"N": "x", "P": "n"}, "unit": "us"}, base=tmp_path)
    inc = Model.parse("5000*x", unit="ns")
    model = Composer({"inc": inc, "mrm": mrm})(term)
    assert model.unit == "ns"
    for x, n in ((10.0, 2.0), (1000.0, 150.0), (1e5, 400.0)):
        expected = combine(pamela_eval(MRM, P=n, N=x) * 1e3, 5000 * x)
        assert model(**{p: {"x": x, "n": n}[p] for p in model.params}) == pytest.approx(expected, rel=1e-12)


def test_pamela_component_from_the_command_line_keeps_its_parameters():
    name, model = parse_component(f"mrm={MRM}")
    assert set(model.params) == {"N", "P"} and model.unit == ""
    _, main = parse_component(f"mrm={MRM}:main")
    assert main == model


def test_pamela_bind_that_leaves_a_parameter_unbound_lists_it(tmp_path):
    with pytest.raises(ComponentError, match="parameter P of PAMELA model .* left unbound") as info:
        from_table("mrm", {"pamela": str(MRM), "bind": {"N": "x"}}, base=tmp_path)
    assert info.value.key == "bind"


def test_pamela_component_without_a_unit_is_refused_next_to_timed_ones(tmp_path):
    mrm = from_table("mrm", {"pamela": str(MRM), "bind": {"N": "x", "P": 4}}, base=tmp_path)
    with pytest.raises(ModelError, match="'mrm' .* has no time unit, and 'inc' .*is in ns"):
        Composer({"mrm": mrm, "inc": Model.parse("x", unit="ns").with_meta(name="inc")})("seq(mrm, inc)")


def test_pamela_compile_json_is_read_back_as_a_component(tmp_path):
    out = tmp_path / "mrm.json"
    cli("pamela", "compile", str(MRM), "--json", str(out))
    _, model = parse_component(f"m={out}")
    assert model(N=1e6, P=1000.0) == pamela_eval(MRM, P=1000, N=1e6) == 1e8


def test_pamela_model_without_closed_form_round_trips_as_its_source(tmp_path):
    src = tmp_path / "shift.pam"
    src.write_text("numeric parameter N\nnumeric parameter P\n"
                   "resource parameter fcfs(i)\n"
                   "process main = par (i = 1, N) use(fcfs((i + 1) mod P, 1), 1)\n")
    out = tmp_path / "shift.json"
    cli("pamela", "compile", str(src), "--json", str(out))
    record = json.loads(out.read_text())
    _, model = parse_component(f"s={out}")
    assert model(N=10.0, P=3.0) == pytest.approx(pamela_eval(src, N=10, P=3))
    assert record["format"] in ("perfcompose-model/1", "perfcompose-pamela-model/1")


# -- parameters and units ----------------------------------------------------------------------


def test_a_name_meaning_two_things_is_refused():
    size_n = Model.parse("3*n", unit="s", name="g").with_meta(name="g", source="skeleton t.csv",
                                                                roles={"n": "size"})
    with pytest.raises(ModelError, match="'n' means the input size in 'g' .* and a thread count in tpool_n"):
        Composer({"g": size_n})("tpool_n(g)")
    # bound to the design's size, it composes
    model = Composer({"g": size_n.bind({"n": "x"})})("tpool_n(g)")
    assert model(x=8.0, n=2.0) == 12.0


def test_binding_a_size_to_the_designs_thread_count_is_refused():
    size_n = Model.parse("3*n").with_meta(roles={"n": "size"}, name="g")
    with pytest.raises(ModelError, match="means the input size"):
        Composer({"g": size_n.bind({"n": "m"}), "h": Model.parse("m")})(
            "mapreduce(map=g, reduce=h, m=m, n=2, keys=1, per_key=x, bandwidth=1e9)")


def test_cycles_convert_with_their_clock():
    comps = {"a": Model.parse("2000*x", unit="cycles@2GHz"), "b": Model.parse("x", unit="us")}
    model = Composer(comps)("seq(a, b)")
    assert model.unit == "cycles@2GHz"
    assert Composer(comps, target_unit="us")("seq(a, b)")(x=1.0) == pytest.approx(2.0)


# -- bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize("spec, key", [
    ({"pamela": "missing.pam"}, "pamela"),
    ({"pamela": str(MRM), "process": "nope"}, "process"),
    ({"pamela": str(MRM), "bind": "N=x"}, "bind"),
    ({"pamela": str(MRM), "bind": {"N": "x", "P": "4", "Q": 1}}, "bind"),
    ({"pamela": str(MRM), "roles": {"N": "colour"}}, "roles"),
    ({"pamela": str(MRM), "unit": "parsecs"}, "unit"),
    ({"pamela": str(MRM), "region": "a"}, "region"),
    ({"file": str(EXAMPLES / "tasks.csv"), "region": "nothere"}, "file"),
])
def test_bad_component_tables_name_the_key(tmp_path, spec, key):
    with pytest.raises(ComponentError) as info:
        from_table("c", spec, base=tmp_path)
    assert info.value.key == key, str(info.value)


def test_bad_component_in_a_design_points_at_its_line(tmp_path):
    design = tmp_path / "d.toml"
    design.write_text(f'program = "seq(a, b)"\n[components]\na = "x"\n'
                      f'b = {{ pamela = "{MRM}", bind = {{ N = "x" }} }}\n')
    with pytest.raises(DesignError, match="left unbound") as info:
        load_design(design)
    assert info.value.line == 4 and info.value.path == design


def test_measurement_file_without_region_is_fitted():
    # qsort.json holds one series: no :REGION needed
    name, model = parse_component(f"qsort={EXAMPLES / 'qsort.json'}")
    assert model.order("x") == (1, 1)
    assert Composer({"qsort": model})("tpool_2(qsort)")(x=4096.0) == pytest.approx(model(x=4096.0) / 2)


def test_design_component_file_without_region_is_fitted(tmp_path):
    design = tmp_path / "d.toml"
    design.write_text(f'program = "tpool_2(q)"\n[components]\nq = {{ file = "{EXAMPLES / "qsort.json"}" }}\n')
    assert load_design(design).model().order("x") == (1, 1)


def test_component_cli_errors_exit_2_without_traceback(tmp_path):
    for args in (["compose", "seq(a, b)", "-c", f"a={MRM}", "-c", "b=x"],
                 ["compose", "a", "-c", f"a={tmp_path}"],
                 ["compose", "a", "-c", f"a={MRM}:nope"],
                 ["compose", "a", "-c", f"a={MRM}", "-b", "a.Q=4"],
                 ["compose", "a", "-c", f"a={MRM}", "-b", "a=4"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert "Traceback" not in result.output
