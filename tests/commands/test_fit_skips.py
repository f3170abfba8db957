"""``fit`` of a profile where one call path cannot be modelled: that series is named with the
reason in every output, and the others are fitted. Extra-P's call-path tags (``\\x03{"gpu": true}``
after the name) are read apart from the name, kept with the series and written back."""
from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.compose.components import from_file
from perfcompose.data import load
from perfcompose.fit.extrap_models import saved_model_sets

X = (4.0, 8.0, 16.0, 32.0, 64.0)
GPU = '\x03{"gpu": true}'


def _points(xs: tuple[float, ...], law) -> list[dict]:
    return [{"coordinate": [x], "mean": law(x), "median": law(x), "minimum": law(x), "maximum": law(x), "std": 0.0,
             "repetitions": 1, "values": None} for x in xs]


def _tagged_profile(path: Path) -> Path:
    """Call paths tagged as GPU kernels in their names, one of them measured at two sizes only."""
    measurements = {
        "main": {"time": _points(X, lambda x: 10 + 3 * x)},
        "main->kernel" + GPU: {"time": _points(X, lambda x: 1 + 0.5 * x)},
        "main->copy" + GPU: {"time": _points(X[:2], lambda x: 2.0)},
    }
    doc = {"Extra-P": "4.2.5", "parameters": ["x"], "measurements": measurements,
           "modelers": [{"name": "Default", "models": {"main->kernel" + GPU: {"time": {"hypothesis": {
               "function": {"$type": "SingleParameterFunction", "constant_coefficient": 1.0,
                            "compound_terms": []}}}}}}]}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("experiment.json", json.dumps(doc))
    path.write_bytes(buf.getvalue())
    return path


def test_tags_are_read_apart_from_the_call_path_names(tmp_path):
    e = load(_tagged_profile(tmp_path / "gpu.extra-p"))
    assert e.regions == ("main", "main->kernel", "main->copy")
    assert [s.tags for s in e.series] == [{}, {"gpu": True}, {"gpu": True}]
    assert ("main->kernel", "time") in saved_model_sets(tmp_path / "gpu.extra-p")["Default"]


def test_an_unusable_series_is_skipped_by_name_and_the_others_fitted(tmp_path):
    path = _tagged_profile(tmp_path / "gpu.extra-p")
    out, page, saved = tmp_path / "models.json", tmp_path / "fit.html", tmp_path / "again.extra-p"
    result = CliRunner().invoke(app, ["fit", str(path), "--json", str(out), "--html", str(page),
                                      "--save-experiment", str(saved)])
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert ("not fitted (1 series): main->copy/time: measured at too few points: x takes 2 distinct values; "
            "a model needs at least 3") in text
    assert "\x03" not in result.output
    records = {r["region"]: r for r in json.loads(out.read_text())}
    assert records["main->copy"]["model"] is None and "too few points" in records["main->copy"]["skipped"]
    assert records["main->kernel"]["model"] is not None and set(records) == {"main", "main->kernel", "main->copy"}
    html = page.read_text()
    assert "series not fitted" in html and "main-&gt;copy/time" in html and "\x03" not in html
    back = load(saved)   # the tags are written back as Extra-P lists them, apart from the names
    assert back.regions == ("main", "main->kernel", "main->copy") and back.series[1].tags == {"gpu": True}
    # a component read from the records takes a fitted series; the skipped one is no model
    assert from_file("k", out, region="main->kernel").source
    assert from_file("m", out, region="main").source


def test_no_usable_series_is_one_located_error(tmp_path):
    path = tmp_path / "two.txt"
    path.write_text("PARAMETER x\nPOINTS 4 8\nREGION a\nDATA 1\nDATA 2\n")
    result = CliRunner().invoke(app, ["fit", str(path)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"{path}: no series can be fitted" in " ".join(result.output.split())
