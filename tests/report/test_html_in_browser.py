"""Every kind of HTML report opened in headless Chromium: the page loads with no console error
and no request beyond its own file, and the numbers that matter are in its DOM."""
from __future__ import annotations

import math
import re
from importlib import import_module
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.report.numbers import sig

ROOT = Path(__file__).resolve().parents[2]
def open_page(open_static_page: Any, path: Path) -> Any:
    """Load ``path`` as ``open_static_page`` does; the page has its figures inline."""
    page = open_static_page(path)
    assert page.locator("svg").count() >= 1, "a figure is inline"
    return page


def cells(page: Any) -> list[str]:
    return [t.strip() for t in page.locator("td").all_inner_texts()]


def nanoseconds(text: str) -> float:
    """A time as the pages and tables show it (``28.48 ms``) in nanoseconds."""
    value, unit = text.split()
    return float(value) * {"s": 1e9, "ms": 1e6, "µs": 1e3, "ns": 1.0}[unit]


def run(*args: str) -> str:
    r = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    return r.output


def test_design_report_shows_tree_components_predictions_and_bottleneck(open_static_page: Any, tmp_path: Path) -> None:
    out = tmp_path / "design.html"
    printed = run("predict", str(ROOT / "examples/designs/pipeline.toml"), "--html", str(out))
    page = open_page(open_static_page, out)
    # the tree: pipe of tpool_4(qsort), inc and nop, the bottleneck path marked
    labels = [t.strip() for t in page.locator("ul.tree .node b").all_inner_texts()]
    assert labels == ["pipe", "tpool_4", "qsort", "inc", "nop"]
    assert [t.strip() for t in page.locator("ul.tree .node.hot b").all_inner_texts()] == ["pipe", "tpool_4", "qsort"]
    # the predictions: what the command printed for each size, and at least the pool's share of qsort
    rows = dict(re.findall(r"^│\s*(\d+)\s*│\s*([0-9.e+]+ [mµn]?s)\s*│", printed, flags=re.MULTILINE))
    texts = cells(page)
    assert sorted(int(x) for x in rows) == [1024, 4096, 16384, 65536, 262144]
    for x, value in rows.items():
        assert nanoseconds(value) >= 0.999 * 1034.17 * int(x) * math.log2(int(x)) / 4
        assert x in texts and value in texts
    # components with source and unit; no interval column for exact models
    assert "1034*x*log2(x)" in texts
    headers = page.locator("th").all_inner_texts()
    assert "predicted" in headers and not any("interval" in h for h in headers if h != "interval")
    assert "perfcompose predict" in page.locator("#commands pre").inner_text()


def test_design_report_sets_measurements_against_the_prediction(open_static_page: Any, tmp_path: Path) -> None:
    out = tmp_path / "measured.html"
    printed = run("predict", str(ROOT / "examples/designs/measured.toml"), "--param", "n=1",
        "--measured", f"{ROOT / 'examples/tasks.csv'}:qsort", "--html", str(out))
    page = open_page(open_static_page, out)
    assert any("measured" in h and "against predicted" in h for h in page.locator("h3").all_inner_texts())
    # n = 1: the pipe's bottleneck is qsort, whose model was fitted to exactly these measurements
    errors = [float(t) for t in page.locator("table").nth(2).locator("td:nth-child(4)").all_inner_texts()]
    assert errors and max(abs(e) for e in errors) < 25
    # an interval column where the prediction has an interval (as the command prints), none where not
    headers = page.locator("table").nth(1).locator("th").all_inner_texts()
    has_interval = "interval" in printed
    assert ("90 % interval low" in headers) == has_interval
    if has_interval:
        row = page.locator("table").nth(1).locator("tr", has_text="262144").locator("td").all_inner_texts()
        value, low, high = (nanoseconds(t) for t in row[1:4])
        assert low <= value <= high


def test_demo_report(open_static_page: Any, part_rows: list[Any], tmp_path: Path) -> None:
    from perfcompose.report.demo import demo_report
    from perfcompose.report.html import write
    from perfcompose.validate.paper import table2

    results = table2({r.task: r.model for r in part_rows})
    page = open_page(open_static_page, write(demo_report(part_rows, results, commands=("perfcompose demo",)),
                                    tmp_path / "demo.html"))
    texts = cells(page)
    assert {"nop", "inc", "qsort"} <= set(texts)
    tpool4 = next(r for r in results if r.configuration == "tpool_4(qsort)")
    assert sig(float(tpool4.modular(x=2.0 ** 18)) / 1e6, 4) in texts
    assert page.locator("div.treebox").count() == len(results)


def test_validation_report_shows_intervals_where_the_study_has_them(open_static_page: Any, study: Any,
                                                                    tmp_path: Path) -> None:
    from perfcompose.report.html import write
    from perfcompose.report.study import study_report

    page = open_page(open_static_page, write(study_report(study, "modular vs measured"), tmp_path / "study.html"))
    texts = cells(page)
    first = study.comparisons[0]
    for k in range(len(first.x)):
        assert sig(first.measured[k] * 1e9, 5) in texts and sig(first.low[k]) in texts
    assert "4.8" in texts  # both programs are 5 % over: |p - m| / m = 4.76 %
    assert "3 of 3" in texts  # measured inside the interval of the first program
    assert "interval low [ns]" in page.locator("th").all_inner_texts()


def test_fit_report(open_static_page: Any, tmp_path: Path) -> None:
    out = tmp_path / "fit.html"
    run("fit", str(ROOT / "examples/tasks.csv"), "--html", str(out))
    page = open_page(open_static_page, out)
    texts = cells(page)
    assert {"nop", "inc", "qsort"} <= set(texts)
    assert "x=262144" in texts


def test_skeleton_forecast_report(open_static_page: Any, tmp_path: Path) -> None:
    out = tmp_path / "forecast.html"
    run("skeleton", "forecast", str(ROOT / "examples/skeleton/checksum.csv"), "--at", "n=65536,p=4",
        "--method", "lm", "--no-plot", "--html", str(out))
    page = open_page(open_static_page, out)
    assert "Ā(n, p)" in cells(page)
    assert "T(65536, 4)" in page.locator("dl.summary").inner_text()


def test_loggp_gauss_report(open_static_page: Any, tmp_path: Path) -> None:
    out = tmp_path / "gauss.html"
    run("loggp", "gauss", "--n", "120", "--p", "4", "--blocks", "10,20", "--reps", "1", "--html", str(out))
    page = open_page(open_static_page, out)
    texts = cells(page)
    assert {"10", "20"} <= set(texts)
    assert "best choice (standard)" in page.locator("dl.summary").inner_text()


def test_paper_table1_report(open_static_page: Any, part_rows: list[Any], tmp_path: Path,
                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(import_module("perfcompose.commands.paper_tables"), "table1", lambda **kw: part_rows)
    out = tmp_path / "table1.html"
    run("paper", "table1", "--quick", "--task", "nop", "--task", "inc", "--task", "qsort", "--html", str(out))
    page = open_page(open_static_page, out)
    texts = cells(page)
    assert {"nop", "inc", "qsort"} <= set(texts)
    assert "model [ns]" in page.locator("th").all_inner_texts()


def test_paper_lobachev_report(open_static_page: Any, tmp_path: Path) -> None:
    from perfcompose.validate.lobachev import reproduce

    out = tmp_path / "lobachev.html"
    run("paper", "lobachev", "--html", str(out))
    page = open_static_page(out)
    rows = reproduce()
    checked = [r for r in rows if r.reproduced is not None]
    assert f"{sum(bool(r.reproduced) for r in checked)} of {len(checked)}" in page.locator("dl.summary").inner_text()
    texts = cells(page)
    assert all(r.paper in texts for r in rows if r.paper)
