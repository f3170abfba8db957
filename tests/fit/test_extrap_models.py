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

from perfcompose.data import Experiment, Point, Series, load
from perfcompose.data.extrap_saved import write
from perfcompose.fit import PMNFFitter, SegmentedFitter
from perfcompose.fit.extrap_models import model_set
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
