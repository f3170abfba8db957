"""The page of ``perfcompose analyze`` opened in headless Chromium: it loads nothing but itself,
logs no error, every caller opens and closes, the numbers of the JSON are on it, and each
first-ranked call path's scaling is drawn out to the target."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from perfcompose.analyze import Analysis
from perfcompose.cli import app
from perfcompose.report.analysis_cells import node_cell, ranking_row


def test_the_call_tree_folds_and_shows_the_analysis(open_static_page: Any, inclusive_text: Path,
                                                    tmp_path: Path) -> None:
    page_path, record = tmp_path / "analysis.html", tmp_path / "analysis.json"
    result = CliRunner().invoke(app, ["analyze", str(inclusive_text), "--at", "p=1024", "--html", str(page_path),
                                      "--json", str(record)])
    assert result.exit_code == 0, result.output
    analysis = Analysis.from_json(json.loads(record.read_text()))
    time = analysis.metrics[0]
    page = open_static_page(page_path)
    assert page.locator("script").count() == 0
    # the tree: main opens and closes; its callees are visible only while it is open
    details = page.locator("ul.tree details")
    assert details.count() == 1 and details.first.get_attribute("open") is not None
    callee = page.locator("ul.tree li li .node").first
    assert callee.is_visible()
    page.locator("ul.tree summary").first.click()
    assert details.first.get_attribute("open") is None and not callee.is_visible()
    page.locator("ul.tree summary").first.click()
    assert callee.is_visible()
    shown = [t.strip() for t in page.locator("ul.tree .node span").all_inner_texts()]
    assert shown == [node_cell(n, time.unit, analysis.level) for n in time.root.walk()]
    # the ranking's rows and the composition's disagreement as the JSON has them
    cells = [t.strip() for t in page.locator("td").all_inner_texts()]
    for k, r in enumerate(time.ranking, 1):
        row = ranking_row(k, r)
        assert all(c in cells for c in row)
    assert "main (disagree)" in cells and "seq(own, a, b, c)" in cells


def test_each_top_call_path_is_drawn_with_its_interval_out_to_the_target(open_static_page: Any, cube_profile: Path,
                                                                       tmp_path: Path) -> None:
    page_path, record = tmp_path / "analysis.html", tmp_path / "analysis.json"
    result = CliRunner().invoke(app, ["analyze", str(cube_profile), "--at", "p=1024", "--html", str(page_path),
                                      "--json", str(record)])
    assert result.exit_code == 0, result.output
    time = Analysis.from_json(json.loads(record.read_text())).metrics[0]
    page = open_static_page(page_path)
    figures = page.locator("figure")
    assert figures.count() == len(time.pictures) == len(time.ranking)
    for k, picture in enumerate(time.pictures):
        svg = figures.nth(k).locator("svg.scaling")
        assert svg.is_visible() and svg.bounding_box()["width"] > 300
        assert f"{k + 1}. {picture.path}" in figures.nth(k).locator("figcaption").inner_text()
        # every measured median a marker; the kept model and its band reach the target, the rightmost point drawn
        assert svg.locator("circle.measured").count() == len(picture.measured_x) > 0
        kept = [tuple(map(float, p.split(","))) for p in svg.locator("polyline.kept").get_attribute("points").split()]
        assert len(kept) == len(picture.grid) and picture.grid[-1] == 1024
        band = svg.locator("polygon.interval")
        assert band.count() == (1 if picture.low else 0)
        target = svg.locator("circle.target")
        assert abs(float(target.get_attribute("cx")) - max(x for x, _ in kept)) < 0.1
    # solve (a caller) shows the other of its fitted and composed models beside the one it keeps; comm (a leaf) none
    nodes = {n.path: n for n in time.walk()}
    solve = next(k for k, p in enumerate(time.pictures) if p.path == "main->solve")
    other = "fitted model" if nodes["main->solve"].source == "composed" else "composed model"
    assert figures.nth(solve).locator("polyline.other").count() == 1 and other in figures.nth(solve).inner_text()
    comm = next(k for k, p in enumerate(time.pictures) if p.path == "main->solve->comm")
    assert figures.nth(comm).locator("polyline.other").count() == 0
