"""The text of ``perfcompose analyze`` for a large profile is a summary: the run, the ranking
and the disagreeing callers, without a line per call path; the call tree comes on request."""
from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from perfcompose.analyze import analyze
from perfcompose.report.analysis_text import TREE_LIMIT, analysis_text, node_label

XS = (4, 8, 16, 32, 64, 128)


def _printed(renderable: object) -> str:
    console = Console(width=300, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def test_a_large_profile_prints_a_summary_and_its_tree_on_request(tmp_path: Path) -> None:
    regions = TREE_LIMIT + 10
    lines = ["PARAMETER p", "POINTS " + " ".join(map(str, XS)), "METRIC time"]
    for r in range(regions):
        lines += [f"REGION main->k{r}", *(f"DATA {1 + r + 0.5 * x:.6g} {1.01 * (1 + r + 0.5 * x):.6g}" for x in XS)]
    profile = tmp_path / "wide.txt"
    profile.write_text("\n".join(lines) + "\n")
    analysis = analyze(profile, {"p": 1024})
    time = analysis.metrics[0]
    summary = _printed(analysis_text(analysis, top=5))
    whole = _printed(analysis_text(analysis, top=5, tree=True))
    labels = [node_label(n, time.unit, analysis.level) for n in time.walk()]
    assert len(labels) == regions + 1
    assert f"{regions + 1} call paths; the run: {labels[0]}" in summary
    assert sum(label in summary for label in labels[1:]) == 0
    assert all(label in whole for label in labels)
    assert summary.count("│ main->k") == 5  # the first five ranked
    assert len(summary.splitlines()) < len(whole.splitlines()) - regions
