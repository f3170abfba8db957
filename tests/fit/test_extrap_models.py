"""perfcompose's models as an Extra-P model set: Extra-P's function types, evaluated here the way
Extra-P evaluates them (constant + sum of coefficient * product of x^i * log2(x)^j), and the
archive Extra-P 4.2.5 itself opens where its environment is at hand."""
from __future__ import annotations

import json
import math
import subprocess
import sys
import zipfile
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfcompose.data import Experiment, Point, Series, load
from perfcompose.data.extrap_saved import write
from perfcompose.errors import DataFormatError
from perfcompose.fit import PMNFFitter, SegmentedFitter
from perfcompose.fit.extrap_models import model_set, saved_model_sets
from perfcompose.fit.pmnf import predict

ROOT = Path(__file__).resolve().parents[2]
X1 = [4.0, 8.0, 16.0, 32.0, 64.0, 128.0]


def _simple(terms: list[dict], x: np.ndarray) -> np.ndarray:
    out = np.ones_like(x)
    for t in terms:
        e = float(Fraction(t["exponent"])) if t["term_type"] == "polynomial" else float(t["exponent"])
        out = out * (x ** e if t["term_type"] == "polynomial" else np.log2(x) ** e)
    return out


def evaluate(function: dict, X: np.ndarray) -> np.ndarray:
    """An Extra-P function (as saved) at coordinates ``X`` (points, parameters)."""
    kind = function["$type"]
    if kind == "SegmentedFunction":
        (lo, b), _ = function["intervals"]
        left, right = (evaluate(f, X) for f in function["segments"])
        return np.where(X[:, 0] <= b, left, right)
    out = np.full(len(X), function["constant_coefficient"], dtype=float)
    for term in function.get("compound_terms", []):
        if kind == "SingleParameterFunction":
            out += term["coefficient"] * _simple(term["simple_terms"], X[:, 0])
        else:
            value = np.full(len(X), term["coefficient"])
            for k, pair in term["parameter_term_pairs"].items():
                value *= pair["coefficient"] * _simple(pair["simple_terms"], X[:, int(k)])
            out += value
    return out


def _series(law, X: list[tuple[float, ...]], metric: str = "time", region: str = "r") -> Series:
    return Series(metric, tuple(Point(c, (law(*c) * 0.99, law(*c), law(*c) * 1.01)) for c in X), region)


@pytest.mark.parametrize("law, kind", [
    (lambda x: 12.0, "ConstantFunction"),
    (lambda x: 3.0 + 0.5 * x ** 1.5 * math.log2(x), "SingleParameterFunction"),
    (lambda x: 2.0 + 40.0 / x, "SingleParameterFunction"),          # strong scaling: x^-1
])
def test_one_parameter_models_evaluate_in_extrap_form_as_fitted(law, kind):
    e = Experiment(("x",), (_series(law, [(x,) for x in X1]),))
    results = PMNFFitter().fit(e).results_
    entry = model_set(e, results)["models"]["r"]["time"]
    X = np.array([[x] for x in X1 + [1024.0]])
    assert entry["hypothesis"]["function"]["$type"] == kind
    np.testing.assert_allclose(evaluate(entry["hypothesis"]["function"], X), predict(results[0].chosen, X),
                               rtol=1e-12)


def test_two_parameter_model_is_a_multi_parameter_function_indexed_by_parameter():
    X = [(p, n) for p in (2.0, 4.0, 8.0, 16.0, 32.0) for n in (10.0, 20.0, 40.0, 80.0, 160.0)]
    e = Experiment(("p", "n"), (_series(lambda p, n: 1 + 0.1 * n * math.log2(p), X),))
    results = PMNFFitter().fit(e).results_
    s = model_set(e, results)
    function = s["models"]["r"]["time"]["hypothesis"]["function"]
    assert function["$type"] == "MultiParameterFunction" and s["modeler"]["$type"] == "MultiParameterModeler"
    grid = np.array(X + [(1024.0, 2560.0)])
    np.testing.assert_allclose(evaluate(function, grid), predict(results[0].chosen, grid), rtol=1e-12)


def test_two_piece_model_is_extraps_segmented_function():
    xs = [float(x) for x in range(1, 13)]
    law = lambda x: 5.0 + x if x <= 6 else 2.0 * x * x  # noqa: E731
    e = Experiment(("x",), (_series(law, [(x,) for x in xs]),))
    fit = SegmentedFitter().fit(e).results_[0]
    assert fit.segmented
    function = model_set(e, [fit])["models"]["r"]["time"]["hypothesis"]["function"]
    assert function["$type"] == "SegmentedFunction" and function["intervals"][1][1] == "inf"
    X = np.array([[x] for x in xs + [100.0]])
    ours = np.where(X[:, 0] <= fit.breakpoint, predict(fit.left.chosen, X), predict(fit.right.chosen, X))
    np.testing.assert_allclose(evaluate(function, X), ours, rtol=1e-12)
    np.testing.assert_allclose(ours[:-1], [law(x) for x in xs], rtol=0.01)


def test_hypothesis_statistics_are_extraps_on_the_aggregated_values():
    e = Experiment(("x",), (_series(lambda x: 3.0 + 2.0 * x, [(x,) for x in X1]),))
    h = model_set(e, PMNFFitter(aggregate="mean").fit(e).results_, aggregate="mean")["models"]["r"]["time"][
        "hypothesis"]
    assert h["_use_measure"] == "MEAN" and h["$type"] == "SingleParameterHypothesis"
    assert h["RSS"] == pytest.approx(0.0, abs=1e-18) and h["AR2"] == pytest.approx(1.0)
    assert h["SMAPE"] == pytest.approx(0.0, abs=1e-9) and h["RE"] == pytest.approx(0.0, abs=1e-9)


def test_fit_command_saves_the_experiment_with_its_models(tmp_path):
    from typer.testing import CliRunner

    from perfcompose.cli import app

    out = tmp_path / "tasks.extra-p"
    result = CliRunner().invoke(app, ["fit", str(ROOT / "examples" / "tasks.txt"), "--save-experiment", str(out)])
    assert result.exit_code == 0, result.output
    with zipfile.ZipFile(out) as z:
        doc = json.loads(z.read("experiment.json"))
    (models,) = doc["modelers"]
    assert models["name"] == "perfcompose PMNF" and set(models["models"]) == {"nop", "inc", "qsort"}
    source = load(ROOT / "examples" / "tasks.txt")
    assert [[p.values for p in s.points] for s in load(out).series] == [[p.values for p in s.points]
                                                                        for s in source.series]
    qsort = models["models"]["qsort"]["time"]["hypothesis"]["function"]["compound_terms"][0]["simple_terms"]
    assert qsort == [{"term_type": "polynomial", "exponent": "1"}, {"term_type": "logarithm", "exponent": 1.0}]


@pytest.mark.skipif(not (ROOT / ".venv-extrap" / "bin" / "python").exists(),
                    reason="Extra-P 4.2.5 is not installed (benchmarks/compare_extrap.sh makes .venv-extrap)")
def test_extrap_itself_opens_the_archives_with_the_same_data_and_models():
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "extrap_saved_check.py")], capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "3 of 3 archives read by Extra-P with the same data and models" in run.stdout


def test_archive_is_read_back_by_perfcompose(tmp_path):
    e = Experiment(("x",), (_series(lambda x: 1.0 + x, [(x,) for x in X1]),))
    path = tmp_path / "a.extra-p"
    write(e, path, [model_set(e, PMNFFitter().fit(e).results_)])
    assert [p.values for p in load(path).series[0].points] == [p.values for p in e.series[0].points]


# ---------------------------------------------------------------------------------------------
# Model sets read back from a saved experiment (Extra-P's own, or perfcompose's)

def _archive(tmp_path, functions: dict[str, dict], params=("x",)) -> Path:
    """A saved experiment whose model set 'Default Model' holds ``functions`` (callpath -> function)."""
    X = [(x,) * len(params) for x in X1]
    e = Experiment(tuple(params), tuple(_series(lambda *c: 1.0 + sum(c), X, region=r) for r in functions))
    models = {r: {"time": {"hypothesis": {"function": f, "$type": "SingleParameterHypothesis"}, "annotations": []}}
              for r, f in functions.items()}
    path = tmp_path / "saved.extra-p"
    write(e, path, [{"name": "Default Model", "modeler": {"$type": "SingleParameterModeler"}, "models": models}])
    return path


def test_saved_models_read_back_evaluate_as_fitted(tmp_path):
    xs = [float(x) for x in range(1, 13)]
    e = Experiment(("x",), (_series(lambda x: 3.0 + 0.5 * x ** 1.5 * math.log2(x + 1), [(x,) for x in xs]),
                            _series(lambda x: 2.0 + 40.0 / x, [(x,) for x in xs], region="strong"),
                            _series(lambda x: 5.0 + x if x <= 6 else 2.0 * x * x, [(x,) for x in xs], region="two")))
    pieces = SegmentedFitter().fit(e).results_
    path = tmp_path / "ours.extra-p"
    write(e, path, [model_set(e, pieces)])
    (name, models), = saved_model_sets(path).items()
    assert name == "perfcompose PMNF" and set(models) == {("r", "time"), ("strong", "time"), ("two", "time")}
    x = np.array(xs + [100.0])
    for fit in pieces:
        model = models[(fit.region, fit.metric)]
        np.testing.assert_allclose(model(x=x), fit.model(x=x), rtol=1e-12)
    assert "  if x <= " in models[("two", "time")].to_extrap(digits=4)


def test_a_multi_parameter_term_multiplies_its_pairs_coefficients(tmp_path):
    term = {"coefficient": 2.0, "parameter_term_pairs": {
        "0": {"coefficient": 3.0, "simple_terms": [{"term_type": "polynomial", "exponent": "3/2"}]},
        "1": {"coefficient": 1.0, "simple_terms": [{"term_type": "logarithm", "exponent": 1.0}]}}}
    path = _archive(tmp_path, {"k": {"constant_coefficient": 1.5, "compound_terms": [term],
                                     "$type": "MultiParameterFunction"}}, params=("p", "n"))
    model = saved_model_sets(path)["Default Model"][("k", "time")]
    assert model.to_extrap(digits=4) == "1.5 + 6 * p^(3/2) * log2(n)^(1)"


@pytest.mark.parametrize("function, message", [
    ({"$type": "SplineFunction"}, "unknown function type 'SplineFunction'"),
    ({"$type": "SingleParameterFunction", "constant_coefficient": "a lot"}, "not a finite number"),
    ({"$type": "SingleParameterFunction", "constant_coefficient": 1,
      "compound_terms": [{"coefficient": 1, "simple_terms": [{"term_type": "exponential", "exponent": 1}]}]},
     "not a polynomial or logarithm"),
    ({"$type": "MultiParameterFunction", "constant_coefficient": 1,
      "compound_terms": [{"coefficient": 1, "parameter_term_pairs": {"7": {"simple_terms": []}}}]},
     "a term of parameter '7'"),
    ({"$type": "SegmentedFunction", "segments": []}, "two segments"),
    ({"$type": "SingleParameterFunction", "constant_coefficient": 1,
      "compound_terms": [{"coefficient": 1, "simple_terms": [{"term_type": "polynomial", "exponent": "1e400"}]}]},
     "PMNF exponents lie within"),
])
def test_a_saved_model_that_is_not_extraps_is_a_located_error(tmp_path, function, message):
    path = _archive(tmp_path, {"solve": function})
    with pytest.raises(DataFormatError, match=message) as info:
        saved_model_sets(path)
    assert str(info.value).startswith(str(path)) and "'Default Model', solve/time" in str(info.value)


def test_show_lists_the_model_sets_saved_with_the_experiment(tmp_path):
    from typer.testing import CliRunner

    from perfcompose.cli import app

    path = _archive(tmp_path, {"solve": {"constant_coefficient": 4.25, "$type": "ConstantFunction"}})
    result = CliRunner().invoke(app, ["show", str(path)], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())   # the table's title wraps to the table's width
    assert "model set 'Default Model' saved in saved.extra-p" in text
    assert "solve/time │ 4.25" in text
    bad = _archive(tmp_path, {"solve": {"$type": "SplineFunction"}})
    result = CliRunner().invoke(app, ["show", str(bad)])
    assert result.exit_code == 2 and "unknown function type" in result.output


_KEYS = ["$type", "constant_coefficient", "compound_terms", "coefficient", "simple_terms", "term_type", "exponent",
         "parameter_term_pairs", "segments", "intervals", "0", "1"]
_LEAVES = (st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=True, allow_infinity=True)
           | st.sampled_from(["SingleParameterFunction", "MultiParameterFunction", "ConstantFunction",
                              "SegmentedFunction", "polynomial", "logarithm", "3/2", "-1", "x"]))
_JSON = st.recursive(_LEAVES, lambda c: st.lists(c, max_size=3) | st.dictionaries(st.sampled_from(_KEYS), c,
                                                                                   max_size=5), max_leaves=25)


@settings(max_examples=200)
@given(function=_JSON)
def test_any_saved_function_reads_or_is_a_located_error(tmp_path_factory, function):
    path = _archive(tmp_path_factory.mktemp("fuzz"), {"solve": function}, params=("p", "n"))
    try:
        models = saved_model_sets(path)["Default Model"]
    except DataFormatError as exc:
        assert str(exc).startswith(str(path))
        return
    model = models[("solve", "time")]
    model(p=np.array([2.0, 4.0]), n=np.array([10.0, 20.0]))   # evaluates, whatever it says


def test_model_sets_need_the_experiments_parameter_names(tmp_path):
    import io

    doc = {"parameters": [1, 2], "measurements": {}, "modelers": [{"name": "m", "models": {}}]}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("experiment.json", json.dumps(doc))
    path = tmp_path / "p.extra-p"
    path.write_bytes(buf.getvalue())
    with pytest.raises(DataFormatError, match="invalid 'parameters'"):
        saved_model_sets(path)


def test_the_plot_draws_the_saved_models_dashed_beside_the_fit(tmp_path):
    from perfcompose.report.plots import fits_figure

    path = _archive(tmp_path, {"solve": {"constant_coefficient": 4.25, "$type": "ConstantFunction"}})
    exp = load(path)
    fitted = PMNFFitter().fit(exp).results_
    fig = fits_figure(exp, [(r.region, r.metric, r.model) for r in fitted], saved=saved_model_sets(path))
    (ax,) = [a for a in fig.axes if a.get_visible()]
    dashed = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
    assert len(dashed) == 1 and np.allclose(dashed[0].get_ydata(), 4.25)
    assert "saved: Default Model" in [t.get_text() for t in ax.get_legend().get_texts()]


def test_the_fit_report_lists_and_draws_the_saved_model_sets(tmp_path):
    from perfcompose.report.fit import fit_report
    from perfcompose.report.html import render

    path = _archive(tmp_path, {"solve": {"constant_coefficient": 4.25, "$type": "ConstantFunction"}})
    exp = load(path)
    fitted = [(r.region, r.metric, r.model, r.text(6), r.stats) for r in PMNFFitter().fit(exp).results_]
    page = render(fit_report(exp, fitted, "fit", saved=saved_model_sets(path)))
    assert "model set &#39;Default Model&#39; saved with the experiment" in page
    assert "dashed: the saved models" in page
