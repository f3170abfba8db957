"""The page of ``perfcompose analyze`` opened in headless Chromium: it loads nothing but itself,
logs no error, every caller opens and closes, and the numbers of the JSON are on it."""
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
