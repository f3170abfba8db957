"""``fit`` models the mean of each point's repetitions by default, as Extra-P does, for every input
(of an Extra-P saved experiment without kept values, the saved mean); ``--aggregate`` chooses
another statistic, and every output says which was modelled."""
from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.data import load
from perfcompose.fit import PMNFFitter
from perfcompose.fit_options import FitOptions
from perfcompose.model import Model
from perfcompose.option_fields import default_of

X = (4, 8, 16, 32, 64, 128)


def _skewed_text(path: Path) -> Path:
    """Three repetitions per point whose mean (7 + 3x) and median (7 + 2x) follow different laws."""
    rows = "\n".join(f"DATA {7 + x} {7 + 2 * x} {7 + 6 * x}" for x in X)
    path.write_text(f"PARAMETER x\nPOINTS {' '.join(map(str, X))}\n\nREGION kernel\nMETRIC time\n{rows}\n")
    return path


def _saved(path: Path) -> Path:
    """An Extra-P saved experiment without kept values: mean 7 + 3x, median 7 + 2x per point."""
    points = [{"coordinate": [float(x)], "mean": 7 + 3.0 * x, "median": 7 + 2.0 * x, "minimum": 7 + x,
               "maximum": 7 + 6.0 * x, "std": 2.0 * x, "repetitions": 3, "values": None} for x in X]
    doc = {"Extra-P": "4.2.5", "parameters": ["x"], "measurements": {"kernel": {"time": points}}}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("experiment.json", json.dumps(doc))
    path.write_bytes(buf.getvalue())
    return path


def _fit(*args: str) -> tuple[str, list[dict]]:
    out = Path(args[0]).with_suffix(".models.json")
    result = CliRunner().invoke(app, ["fit", *args, "--json", str(out)])
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split()), json.loads(out.read_text())


def _slope(record: dict) -> float:
    """What the record's model grows by per unit of x, far out."""
    model = Model.from_json(record["model"])
    return round(float(model(x=2000.0) - model(x=1000.0)) / 1000.0, 6)


def test_the_mean_is_the_declared_default():
    assert default_of(FitOptions, "aggregate") == "mean"


def test_text_input_is_fitted_to_the_mean_unless_told_otherwise(tmp_path):
    path = _skewed_text(tmp_path / "k.txt")
    e = load(path)
    by = {how: PMNFFitter(aggregate=how).fit(e).model_.to_extrap(digits=6) for how in ("mean", "median")}
    assert by["mean"] != by["median"]
    text, (record,) = _fit(str(path))
    assert "(mean of repetitions)" in text and record["aggregate"] == "mean" and record["text"] == by["mean"]
    text, (record,) = _fit(str(path), "--aggregate", "median")
    assert "(median of repetitions)" in text and record["aggregate"] == "median" and record["text"] == by["median"]


def test_a_saved_experiment_is_fitted_to_its_saved_mean_or_median(tmp_path):
    path = _saved(tmp_path / "k.extra-p")
    _, (record,) = _fit(str(path))
    assert record["aggregate"] == "mean" and _slope(record) == 3.0
    _, (record,) = _fit(str(path), "--aggregate", "median")
    assert _slope(record) == 2.0
    _, (record,) = _fit(str(path), "--aggregate", "max")
    assert _slope(record) == 6.0
    # the library fits the saved statistic of its aggregate as well
    model = PMNFFitter(aggregate="median").fit(load(path)).model_
    assert round(float(model(x=2000.0) - model(x=1000.0)) / 1000.0, 6) == 2.0


def test_the_html_page_names_the_modelled_statistic(tmp_path):
    page = tmp_path / "fit.html"
    result = CliRunner().invoke(app, ["fit", str(_saved(tmp_path / "k.extra-p")), "--html", str(page)])
    assert result.exit_code == 0, result.output
    html = page.read_text()
    assert "fitted to the mean of each point" in html and "measured mean" in html


def test_a_saved_experiment_written_back_keeps_the_saved_statistics(tmp_path):
    out = tmp_path / "again.extra-p"
    result = CliRunner().invoke(app, ["fit", str(_saved(tmp_path / "k.extra-p")), "--save-experiment", str(out)])
    assert result.exit_code == 0, result.output
    back = load(out).series[0]
    assert back.aggregated("mean").tolist() == [7 + 3.0 * x for x in X]
    assert back.aggregated("median").tolist() == [7 + 2.0 * x for x in X]
    assert [p.repetitions for p in back.points] == [3] * len(X)
