"""A skeleton forecast as a Model: equal to the CLI's forecast at every point, cached, and a JSON record."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.errors import InputError, ModelError
from perfcompose.model import Model
from perfcompose.skeleton import SKELETON_MODEL_FORMAT, RuntimeTable, Skeleton, SkeletonSource, read_table

CASES = Path(__file__).resolve().parents[2] / "src" / "perfcompose" / "skeleton" / "cases"


def synthetic_csv() -> str:
    """T(n) = n^2/100 s and a penalty of 0.01·n + 0.05·p s, as a long-form table."""
    lines = ["n,p,time"]
    for n in (10, 20, 30, 40, 50, 60):
        for p in (1, 2, 4, 8):
            t = n * n / 100 if p == 1 else n * n / 100 / p + 0.01 * n + 0.05 * p
            lines.append(f"{n},{p},{t!r}")
    return "\n".join(lines) + "\n"


def cli_forecast(table: Path, n: float, p: int, method: str, out: Path) -> dict:
    result = CliRunner().invoke(app, ["skeleton", "forecast", str(table), "--at", f"n={n:g},p={p}",
                                      "--method", method, "--no-plot", "--json", str(out)])
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text())


@pytest.mark.parametrize("case, points", [
    ("gauss", [(110, 7), (140, 7), (110, 8), (120, 7)]),      # (120, 7) is measured: left out of its fit
    ("synthetic", [(70, 8), (80, 4), (75, 2)]),
])
@pytest.mark.parametrize("method", ["auto", "lm-poly"])
def test_model_equals_the_cli_forecast_at_every_point(tmp_path, write_file, case, points, method):
    table = CASES / "gauss.csv" if case == "gauss" else write_file("synthetic.csv", synthetic_csv())
    source = SkeletonSource.from_file(table, method_t=method, method_a=method)
    model = source.model()
    assert model.params == ("n", "p") and model.unit == "s" and model.is_numeric
    for n, p in points:
        doc = cli_forecast(table, n, p, method, tmp_path / "f.json")
        assert model(n=n, p=p) == doc["forecast"]          # exactly, not approximately
        assert SkeletonSource.from_record(doc).model()(n=n, p=p) == doc["forecast"]
    values = model(n=np.array([n for n, _ in points]), p=np.array([p for _, p in points]))
    assert values.shape == (len(points),) and source.evaluations == len(points)


def test_the_cli_json_keeps_the_forecast_and_adds_the_record(tmp_path):
    doc = cli_forecast(CASES / "gauss.csv", 110, 7, "lm-poly", tmp_path / "f.json")
    assert {"n", "p", "absolute", "forecast", "share", "measured", "error", "parts"} <= set(doc)
    assert doc["format"] == SKELETON_MODEL_FORMAT and doc["name"] == "T_gauss"
    assert doc["skeleton"] == {"kind": "general", "r": 2, "d": 1, "k": 1, "name": "general"}
    assert doc["options"] == {"method_t": "lm-poly", "method_a": "lm-poly", "direction": "auto",
                              "epsilon": 0.05, "poly_degree": 3, "strategy": "known", "training": 1,
                              "train": None}
    assert doc["table"]["reference"] == "relative" and len(doc["table"]["rows"]) == 27
    assert SkeletonSource.read_record(tmp_path / "f.json").model()(n=110, p=7) == doc["forecast"]


def test_forecast_record_is_read_back_as_the_source_that_forecasts_it():
    source = SkeletonSource.from_file(CASES / "gauss.csv", method_t="lm-poly", method_a="lm-poly")
    doc = json.loads(json.dumps(source.forecast_record(source.estimate(110, 7))))
    assert (doc["n"], doc["p"]) == (110, 7) and [q["what"][0] for q in doc["parts"]] == ["T", "Ā"]
    assert SkeletonSource.from_record(doc).model()(n=110, p=7) == doc["forecast"]


def test_record_file_that_is_not_json_is_an_input_error(write_file):
    path = write_file("bad.json", "{\"format\": ")
    with pytest.raises(InputError, match="not JSON") as err:
        SkeletonSource.read_record(path)
    assert str(path) in str(err.value)


def test_record_round_trips_to_the_same_table_and_values(write_file):
    text = "n,seq,1,4\n10,0.95,1.0,0.30\n20,3.9,4.0,1.10\n30,8.8,9.0,2.40\n40,15.7,16.0,4.20\n"
    source = SkeletonSource.from_file(write_file("abs.csv", text), Skeleton("farm"), method_t="lm-poly",
                                      method_a="lm", name="T_farm")
    record = json.loads(json.dumps(source.to_record()))
    again = SkeletonSource.from_record(record, "abs.json")
    assert again.table.times == source.table.times and again.table.texts == source.table.texts
    assert again.table.absolute and record["table"]["reference"] == "absolute"
    assert again.skeleton == Skeleton("farm") and again.options == source.options and again.name == "T_farm"
    assert again.to_record() == record
    n, p = np.array([50.0, 60.0, 40.0]), np.array([4, 4, 8])
    assert np.array_equal(again.model()(n=n, p=p), source.model()(n=n, p=p))


def test_repeated_points_are_estimated_once():
    table = read_table(CASES / "gauss.csv")
    source = SkeletonSource(table, method_t="lm-poly", method_a="lm-poly")
    model = source.model()
    values = model(n=np.array([[130.0, 130.0, 140.0], [130.0, 140.0, 140.0]]), p=7)
    assert values.shape == (2, 3) and values[0, 0] == values[1, 0] and source.evaluations == 2
    model(n=130, p=7)
    model.subs(p=7)(n=[140, 150])
    assert source.evaluations == 3                         # only (150, 7) was new
    assert source.model() is model


def test_model_composes_with_other_models():
    source = SkeletonSource(read_table(CASES / "gauss.csv"), method_t="lm-poly", method_a="lm-poly")
    design = source.model() + Model.parse("0.5 * p", unit="s")
    assert design(n=130, p=7) == pytest.approx(source.estimate(130, 7).value + 3.5)


@pytest.mark.parametrize("p", [2.5, 0, -3, float("nan")])
def test_p_that_is_not_a_pe_count_is_refused(p):
    model = SkeletonSource(read_table(CASES / "gauss.csv"), method_t="lm-poly", method_a="lm-poly").model()
    with pytest.raises(ModelError, match="p counts processing elements"):
        model(n=np.array([130.0, 140.0]), p=np.array([7, p]))


def test_record_without_table_names_the_key_and_file():
    record = SkeletonSource(read_table(CASES / "gauss.csv")).to_record()
    del record["table"]
    with pytest.raises(InputError, match="missing 'table'") as err:
        SkeletonSource.from_record(record, "model.json")
    assert "model.json" in str(err.value)


@pytest.mark.parametrize("change, message", [
    (lambda r: r.update(format="perfcompose-model/1"), "'format'"),
    (lambda r: r["table"]["rows"][3].pop("time"), "missing 'table.rows[3].time'"),
    (lambda r: r["table"]["rows"][0].update(p=1.5), "'table.rows[0].p'"),
    (lambda r: r["table"].update(reference="absolute"), "'table.reference'"),
    (lambda r: r["skeleton"].update(kind="pipeline"), "'skeleton.kind'"),
    (lambda r: r["options"].update(method_a="cubic"), "'options.method_a'"),
    (lambda r: r.update(options=[]), "'options' must be a JSON object"),
])
def test_malformed_record_is_an_input_error_naming_the_key(change, message):
    record = SkeletonSource(read_table(CASES / "gauss.csv")).to_record()
    change(record)
    with pytest.raises(InputError, match=message.replace("[", r"\[").replace("]", r"\]")):
        SkeletonSource.from_record(record, "model.json")


def test_unit_is_seconds_unless_the_record_says_otherwise():
    table = RuntimeTable.from_rows([(n, p, n * n / p + p) for n in (10, 20, 30, 40) for p in (1, 2, 4)])
    record = SkeletonSource(table, method_t="lm-poly", method_a="lm").to_record()
    assert SkeletonSource.from_record(record).model().unit == "s"
    record["table"]["unit"] = "ms"
    model = SkeletonSource.from_record(record).model()
    assert model.unit == "ms" and model.source == "skeleton general forecast of a runtime table"


@pytest.mark.parametrize("methods", [("lm-poly", "lm"), ("auto", "auto"), ("mean", "lm-poly")])
def test_the_model_s_value_is_the_full_estimate_s_without_the_report_s_hold_out_errors(methods):
    table = read_table(CASES / "gauss.csv")
    quick = SkeletonSource(table, method_t=methods[0], method_a=methods[1])
    full = SkeletonSource(table, method_t=methods[0], method_a=methods[1])
    n = np.array([130.0, 145.0, 160.0, 200.0])
    values = quick.model()(n=n, p=7)
    assert values.tolist() == [full.estimate(v, 7).value for v in n]
    assert quick.evaluations == len(n)
    quick.estimate(145.0, 7)                                # the report's estimate, made once more
    assert quick.evaluations == len(n)
