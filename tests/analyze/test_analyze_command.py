"""``perfcompose analyze``: the text, the page and the JSON of one run show the same analysis, and
bad input ends with one message and exit status 2."""
from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from perfcompose.analyze import Analysis
from perfcompose.cli import app
from perfcompose.report.analysis_cells import composition_row, node_cell, ranking_row
from perfcompose.report.analysis_text import node_label


def run(*args: str, code: int = 0) -> Any:
    result = CliRunner().invoke(app, ["analyze", *args], env={"COLUMNS": "400"})
    assert result.exit_code == code, result.output
    return result


class _Page(HTMLParser):
    """The call-tree nodes (label, detail), the table rows and the number of <details> of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.nodes: list[list[str]] = []
        self.rows: list[list[str]] = []
        self.details = 0
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = (dict(attrs).get("class") or "").split()
        if tag == "details":
            self.details += 1
        elif tag == "div" and "node" in classes:
            self.nodes.append([])
        elif tag in ("b", "span") and self.nodes and len(self.nodes[-1]) < 2 and self._in is None:
            self._in = tag
            self.nodes[-1].append("")
        elif tag == "tr":
            self.rows.append([])
        elif tag == "td":
            self._in = "td"
            self.rows[-1].append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == self._in:
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in in ("b", "span"):
            self.nodes[-1][-1] += data
        elif self._in == "td":
            self.rows[-1][-1] += data


def _table_rows(text: str) -> list[list[str]]:
    return [[c.strip() for c in line.split("│")[1:-1]] for line in text.splitlines() if line.startswith("│")]


def test_text_page_and_json_show_the_same_analysis(cube_profile: Path, tmp_path: Path) -> None:
    page, record = tmp_path / "analysis.html", tmp_path / "analysis.json"
    printed = run(str(cube_profile), "--at", "p=1024", "--html", str(page), "--json", str(record)).stdout
    analysis = Analysis.from_json(json.loads(record.read_text()))
    time = analysis.metrics[0]
    nodes = list(time.root.walk())
    parsed = _Page()
    parsed.feed(page.read_text())
    # every call path: the same line in the text and beside its region on the page
    for node in nodes:
        assert node_label(node, time.unit, analysis.level) in printed
    assert parsed.nodes == [[n.region, node_cell(n, time.unit, analysis.level)] for n in nodes]
    assert parsed.details == sum(1 for n in nodes if n.children)
    # the ranking and the compositions: the same rows in the text tables, on the page and in the JSON
    ranking = [list(ranking_row(k, r)) for k, r in enumerate(time.ranking, 1)]
    compositions = [list(composition_row(n, n.composition)) for n in nodes if n.composition is not None]
    text_rows = _table_rows(printed)
    # the text prints each composition's reason under its table, the page in the row
    assert text_rows == ranking + [row[:-1] for row in compositions]
    for node in nodes:
        if node.composition is not None:
            assert f"{node.path}: {node.composition.kept} kept, {node.composition.reason}" in printed
    assert [r for r in parsed.rows if r] == ranking + compositions
    assert [r.path for r in time.ranking][0] == "main->solve"


def test_json_on_standard_output_is_the_only_output(exclusive_text: Path) -> None:
    result = run(str(exclusive_text), "--at", "p=512", "--json", "-")
    analysis = Analysis.from_json(json.loads(result.stdout))
    assert analysis.target == (("p", 512.0),)
    assert "values read as exclusive" in analysis.metrics[0].note


def test_the_composition_and_its_disagreement_are_printed(inclusive_text: Path) -> None:
    printed = run(str(inclusive_text), "--at", "p=1024").stdout
    rows = {r[0]: r for r in _table_rows(printed) if len(r) == 8}
    assert rows["main (disagree)"][1] == "seq(own, a, b, c)"
    assert rows["main (disagree)"][7] == "composed"
    assert "1 of 1 disagree by more than 10 %" in printed


def test_a_parameter_without_a_target_value_is_named(cube_profile: Path) -> None:
    result = run(str(cube_profile), "--at", "n=4", code=2)
    assert "no value for p" in result.output and "n is no parameter" in result.output
    assert "Traceback" not in result.output
    result = run(str(cube_profile), "--at", "p=-1", code=2)
    assert "positive" in result.output
