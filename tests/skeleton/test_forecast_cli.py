"""``perfcompose skeleton forecast`` with a training window and the real-life strategies: the
paper's LBM and Rabin-Miller figures from the command line."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.validate.lobachev import lbm

CASES = Path(__file__).resolve().parents[2] / "src" / "perfcompose" / "skeleton" / "cases"


def forecast(*args: str):
    return CliRunner().invoke(app, ["skeleton", "forecast", *args, "--no-plot"])


def test_lbm_from_fewer_pes_matches_the_case_study(tmp_path):
    """001 section 4.2: Ā(n, p) by lm(poly, 3) w.r.t. p from p <= 196608 gives T̂(n, 262144) = 5.196 s,
    -1.47 %; the window is what the defaults lacked (they learnt from p = 294912 too)."""
    out = tmp_path / "lbm.json"
    r = forecast(str(CASES / "lbm.csv"), "--at", "n=1,p=262144", "--train", "p<=196608", "--method-a", "lm-poly",
                 "--json", str(out))
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    case = next(row for row in lbm() if row.quantity == "T(n, 262144)")
    assert doc["forecast"] == pytest.approx(case.ours, rel=1e-9)
    assert case.low - 0.0005 <= 5.196 <= case.high + 0.0005        # the paper's figure within input rounding
    assert doc["error"] == pytest.approx(case.error, rel=1e-9) and abs(doc["error"]) < 0.0147 + 0.005
    penalty = next(p for p in doc["parts"] if p["what"] == "Ā(n, p)")
    assert 294912 not in penalty["points"][0]
    everything = forecast(str(CASES / "lbm.csv"), "--at", "n=1,p=262144", "--method-a", "lm-poly")
    assert "relative error -1.1 %" in r.output and "relative error -1.1 %" not in everything.output


@pytest.mark.parametrize("strategy, rule", [("best-two", "mean of the two best in training"),
                                            ("best-three", "three best in training")])
def test_real_life_strategies_forecast_rabin_miller(tmp_path, strategy, rule):
    out = tmp_path / "rm.json"
    r = forecast(str(CASES / "rabin_miller.csv"), "--at", "n=11213,p=8", "--train", "n<=9689",
                 "--strategy", strategy, "--training", "2", "--json", str(out))
    assert r.exit_code == 0, r.output
    assert "learnt from n<=9689 only" in " ".join(r.output.split())
    doc = json.loads(out.read_text())
    assert doc["measured"] == 21.78
    for part in doc["parts"]:
        assert part["rule"].startswith(rule) and max(part["points"][0]) <= 9689


def test_unknown_strategy_and_bad_window_exit_2():
    r = forecast(str(CASES / "lbm.csv"), "--at", "n=1,p=262144", "--strategy", "best-four")
    assert r.exit_code == 2 and "best-four" in r.output
    r = forecast(str(CASES / "lbm.csv"), "--at", "n=1,p=262144", "--train", "x<3")
    assert r.exit_code == 2 and "cannot read" in r.output


def test_the_json_record_recomputes_the_windowed_real_life_forecast(tmp_path):
    from perfcompose.skeleton import SkeletonSource

    out = tmp_path / "rm.json"
    r = forecast(str(CASES / "rabin_miller.csv"), "--at", "n=11213,p=8", "--train", "n<=9689",
                 "--strategy", "best-three", "--training", "2", "--json", str(out))
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    assert doc["options"]["train"] == "n<=9689" and doc["options"]["strategy"] == "best-three"
    again = SkeletonSource.from_record(doc)
    assert again.estimate(11213, 8).value == pytest.approx(doc["forecast"], rel=1e-12)
    doc["options"]["train"] = "q<1"
    with pytest.raises(Exception, match="cannot read"):
        SkeletonSource.from_record(doc)


def test_a_design_component_takes_the_window_and_strategy(tmp_path):
    from perfcompose.compose.components import from_table
    from perfcompose.skeleton import SkeletonSource

    spec = {"skeleton": str(CASES / "lbm.csv"), "method_a": "lm-poly", "train": "p<=196608",
            "bind": {"n": 1, "p": "x"}}
    model = from_table("lbm", spec, base=tmp_path)
    direct = SkeletonSource.from_file(CASES / "lbm.csv", method_a="lm-poly", train="p<=196608")
    assert model(x=262144) == pytest.approx(direct.estimate(1, 262144).value, rel=1e-12)
    assert direct.estimate(1, 262144).error == pytest.approx(-0.011, abs=0.0005)


def test_forecast_prints_a_jackknife_interval_around_the_value():
    r = forecast(str(CASES / "gauss.csv"), "--at", "n=150,p=7", "--no-plot")
    assert r.exit_code == 0, r.output
    first = r.output.splitlines()[0]
    value = float(first.split("=")[1].split()[0])
    lo, hi = (float(v) for v in first.split("[")[1].split("]")[0].split(","))
    assert lo < value < hi and "90 % jackknife+ interval" in first


def test_forecast_json_records_the_interval(tmp_path):
    out = tmp_path / "gauss.json"
    r = forecast(str(CASES / "gauss.csv"), "--at", "n=150,p=7", "--json", str(out))
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    lo, hi = doc["interval"]
    assert lo < doc["forecast"] < hi


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "skeleton" / "checksum.csv"


def test_an_interval_where_the_methods_disagree_is_not_below_zero_holds_the_value_and_says_so(tmp_path):
    out = tmp_path / "f.json"
    r = CliRunner(env={"COLUMNS": "300"}).invoke(
        app, ["skeleton", "forecast", str(EXAMPLE), "--at", "n=524288,p=4", "--strategy", "best-two", "--no-plot",
              "--json", str(out)])
    assert r.exit_code == 0, r.output
    first = r.output.splitlines()[0]
    value = float(first.split("=")[1].split()[0])
    lo, hi = (float(v) for v in first.split("[")[1].split("]")[0].split(","))
    assert 0 <= lo <= value <= hi
    assert "not to be trusted" in first and "zero or negative" in first
    doc = json.loads(out.read_text())
    assert 0 <= doc["interval"][0] <= doc["forecast"] <= doc["interval"][1]
    assert doc["interval_trusted"] is False and "zero or negative" in doc["interval_doubt"]


def test_a_trusted_interval_says_nothing_more(tmp_path):
    out = tmp_path / "f.json"
    r = forecast(str(EXAMPLE), "--at", "n=65536,p=4", "--method", "lm", "--json", str(out))
    assert r.exit_code == 0, r.output
    assert "not to be trusted" not in r.output
    doc = json.loads(out.read_text())
    assert doc["interval_trusted"] is True and doc["interval_doubt"] is None
    assert 0 < doc["interval"][0] <= doc["forecast"] <= doc["interval"][1]
