"""Components from every source: a composed prediction equals evaluating the source alone.

Each source (PAMELA, LogGP, skeleton forecast, fitted measurements) is bound to the design's
parameters, composed with seq, pipe and tpool next to models in other units, and checked against
the source's own command at the same point.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from perfcompose import Model
from perfcompose.cli import app
from perfcompose.compose import ComponentError, Composer, DesignError, compose, load_design, parse_component
from perfcompose.compose.components import from_table
from perfcompose.errors import ModelError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MRM = EXAMPLES / "pamela" / "mrm.pam"
runner = CliRunner()


def cli(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def pamela_eval(path: Path, **values: float) -> float:
    out = cli("pamela", "eval", str(path), *(f"{k}={v!r}" for k, v in values.items()), "--json", "-")
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
    d = load_design(design)
    assert compose(d.program, d.components, pipe=d.pipe).order("x") == (1, 1)


def test_component_cli_errors_exit_2_without_traceback(tmp_path):
    for args in (["compose", "seq(a, b)", "-c", f"a={MRM}", "-c", "b=x"],
                 ["compose", "a", "-c", f"a={tmp_path}"],
                 ["compose", "a", "-c", f"a={MRM}:nope"],
                 ["compose", "a", "-c", f"a={MRM}", "-b", "a.Q=4"],
                 ["compose", "a", "-c", f"a={MRM}", "-b", "a=4"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert "Traceback" not in result.output


# -- LogGP ----------------------------------------------------------------------------------------

EXCHANGE = EXAMPLES / "loggp" / "exchange.json"
LOGGP = {"L": 5.0, "o": 1.5, "g": 4.0, "G": 0.01}


def loggp_simulate(x: float) -> float:
    out = cli("loggp", "simulate", str(EXCHANGE), *(f"--{k}={v}" for k, v in LOGGP.items()), "--at", f"x={x!r}",
              "--json", "-")
    return json.loads(out)["makespan"]


def loggp_component(tmp_path: Path, **extra) -> Model:
    return from_table("halo", {"loggp": str(EXCHANGE), **LOGGP, **extra}, base=tmp_path)


@pytest.mark.parametrize("term, combine", [
    ("seq(halo, post)", lambda h, p: h + p),
    ("pipe(halo, post)", max),
    ("tpool_2(halo)", lambda h, p: h / 2),
])
def test_loggp_in_seq_pipe_and_tpool_equals_loggp_simulate_in_mixed_units(tmp_path, term, combine):
    halo = loggp_component(tmp_path)
    assert halo.unit == "us"
    post = Model.parse("3*x", unit="ns")
    model = Composer({"halo": halo, "post": post})(term)
    assert model.unit == "us"
    for x in (64.0, 4096.0, 1e6):
        assert model(x=x) == pytest.approx(combine(loggp_simulate(x), 3e-3 * x), rel=1e-12)


def test_loggp_component_bound_to_another_design_parameter(tmp_path):
    halo = loggp_component(tmp_path, bind={"x": "4*m"})
    assert halo.params == ("m",)
    assert halo(m=256.0) == pytest.approx(loggp_simulate(1024.0), rel=1e-12)


def test_loggp_model_json_is_read_back_as_a_component(tmp_path):
    out = tmp_path / "halo.json"
    cli("loggp", "simulate", str(EXCHANGE), *(f"--{k}={v}" for k, v in LOGGP.items()), "--model-json", str(out))
    _, model = parse_component(f"halo={out}")
    assert model(x=4096.0) == pytest.approx(loggp_simulate(4096.0), rel=1e-12)


def test_a_50_point_plot_of_a_loggp_design_costs_50_simulations(tmp_path):
    from perfcompose.loggp.params import LogGP
    from perfcompose.loggp.source import LogGPSource
    from perfcompose.loggp.steps.template import read_template
    from perfcompose.report.figures import plt
    from perfcompose.report.plots import models_figure

    source = LogGPSource(read_template(EXCHANGE), LogGP(**LOGGP, unit="us"))
    halo = source.model("halo")
    comps = {"halo": halo, "post": Model.parse("3*x", unit="ns")}
    program = Composer(comps)("pipe(halo, tpool_2(post))")
    halo = Composer(comps).leaf(__import__("perfcompose").compose.Component("halo"))
    plt.close(models_figure([("program", program), ("halo", halo)], (1024.0, 2.0 ** 20)))
    assert source.simulations == 50


# -- skeleton forecasts ---------------------------------------------------------------------------

GAUSS = Path(__file__).resolve().parents[2] / "src" / "perfcompose" / "skeleton" / "cases" / "gauss.csv"


def skeleton_forecast(n: float, p: int, tmp_path: Path) -> float:
    out = tmp_path / "f.json"
    cli("skeleton", "forecast", str(GAUSS), "--at", f"n={n:g},p={p}", "--method", "lm-poly", "--no-plot",
        "--json", str(out))
    return json.loads(out.read_text())["forecast"]


@pytest.mark.parametrize("term, combine", [
    ("seq(farm, post)", lambda f, p: f + p),
    ("pipe(farm, post)", max),
    ("tpool_2(farm)", lambda f, p: f / 2),
])
def test_skeleton_in_seq_pipe_and_tpool_equals_skeleton_forecast(tmp_path, term, combine):
    farm = from_table("farm", {"skeleton": str(GAUSS), "method": "lm-poly", "bind": {"n": "x", "p": 7}},
                      base=tmp_path)
    assert farm.params == ("x",) and farm.roles == {"x": "size"}
    post = Model.parse("2e5*x", unit="ns")  # 0.2 ms per unit of x
    model = Composer({"farm": farm, "post": post})(term)
    assert model.unit == "s"
    for x in (110.0, 140.0):
        assert model(x=x) == pytest.approx(combine(skeleton_forecast(x, 7, tmp_path), 2e-4 * x), rel=1e-12)


def test_skeleton_forecast_json_is_read_back_as_a_component(tmp_path):
    out = tmp_path / "f.json"
    cli("skeleton", "forecast", str(GAUSS), "--at", "n=110,p=7", "--method", "lm-poly", "--no-plot", "--json", str(out))
    _, model = parse_component(f"g={out}")
    assert model.roles == {"n": "size", "p": "processes"}
    assert model(n=140.0, p=7.0) == pytest.approx(skeleton_forecast(140, 7, tmp_path), rel=1e-12)


def test_an_unbound_skeleton_size_in_a_thread_pool_is_refused(tmp_path):
    farm = from_table("farm", {"skeleton": str(GAUSS)}, base=tmp_path)
    with pytest.raises(ModelError, match="'n' means the input size in 'farm'"):
        Composer({"farm": farm})("tpool_n(farm)")


def test_a_loggp_program_without_parameters_says_how_to_give_them():
    with pytest.raises(ComponentError, match="is a LogGP program") as info:
        parse_component(f"halo={EXCHANGE}")
    assert "--model-json" in str(info.value)


# -- Extra-P's saved models -------------------------------------------------------------------


def _saved_experiment(tmp_path: Path) -> Path:
    """tasks.txt saved with perfcompose's models as the model set 'perfcompose PMNF', and a second
    model set 'Extra-P' holding a hand-written model of inc (as Extra-P's GUI would list it)."""
    import zipfile

    from perfcompose.data import load
    from perfcompose.data.extrap_saved import write
    from perfcompose.fit import PMNFFitter
    from perfcompose.fit.extrap_models import model_set

    exp = load(EXAMPLES / "tasks.txt")
    path = tmp_path / "tasks.extra-p"
    inc = {"constant_coefficient": 100.0, "compound_terms": [
        {"coefficient": 535.0, "simple_terms": [{"term_type": "polynomial", "exponent": "1"}]}],
        "$type": "SingleParameterFunction"}
    theirs = {"name": "Extra-P", "modeler": {"$type": "SingleParameterModeler"},
              "models": {"inc": {"time": {"hypothesis": {"function": inc}, "annotations": []}}}}
    write(exp, path, [model_set(exp, PMNFFitter().fit(exp).results_), theirs])
    assert zipfile.is_zipfile(path)
    return path


def test_an_extrap_saved_model_is_a_design_component(tmp_path):
    path = _saved_experiment(tmp_path)
    design = tmp_path / "d.toml"
    design.write_text(f'program = "pipe(inc, nop)"\nx = [1024, 4096]\nunit = "ns"\n[components]\n'
                      f'inc = {{ file = "{path}", model_set = "Extra-P", region = "inc", unit = "ns" }}\n'
                      f'nop = {{ file = "{path}", model_set = "perfcompose PMNF", region = "nop", unit = "ns" }}\n')
    d = load_design(design)
    inc = d.components["inc"]
    assert inc(x=4096.0) == pytest.approx(100.0 + 535.0 * 4096) and inc.unit == "ns"
    assert "model set 'Extra-P'" in inc.source
    composed = compose(d.program, d.components, pipe=d.pipe)
    assert composed(x=4096.0) == pytest.approx(max(inc(x=4096.0), d.components["nop"](x=4096.0)))


@pytest.mark.parametrize("spec, message, key", [
    ({"model_set": "Default Model", "region": "inc"}, "no model set 'Default Model'", "model_set"),
    ({"model_set": "perfcompose PMNF"}, "3 models of model set", "region"),
    ({"metric": "time"}, "metric picks a saved model", "metric"),
])
def test_a_saved_model_that_is_not_there_names_what_is(tmp_path, spec, message, key):
    path = _saved_experiment(tmp_path)
    with pytest.raises(ComponentError, match=message) as info:
        from_table("c", {"file": str(path), **spec}, base=tmp_path)
    assert info.value.key == key
