"""Every prediction names the core count it assumes, and a program that starts more threads than
the machine has cores is flagged: in ``predict`` (text, JSON, page) and ``compose --at``; ``demo``'s
(text and page) are checked in its run in test_cli.py."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.compose import oversubscription

ROOT = Path(__file__).resolve().parents[2]
P = ["-c", "nop=5422.97", "-c", "inc=536.185*x", "-c", "qsort=1034.17*x*log2(x)", "--unit", "ns"]


def run(*args: Any):
    return CliRunner(env={"COLUMNS": "250"}).invoke(app, [str(a) for a in args])


@pytest.fixture
def two_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(oversubscription, "machine_cores", lambda: 2)


def test_predict_names_the_cores_in_text_json_and_page(two_cores, tmp_path):
    out, page = tmp_path / "p.json", tmp_path / "p.html"
    r = run("predict", ROOT / "examples/designs/pipeline.toml", "--json", out, "--html", page)
    assert r.exit_code == 0, r.output
    assert "the program starts 6 workers" in r.output and "this machine has 2 cores" in r.output
    assert "sharing this machine's 2 cores" in r.output
    cores = json.loads(out.read_text())["cores"]
    assert cores["machine"] == 2 and cores["workers"] == 6
    assert "this machine has 2 cores" in page.read_text()


def test_compose_at_says_which_model_its_value_is_of(two_cores):
    r = run("compose", "pipe(tpool_4(qsort), inc)", *P, "--at", "x=65536")
    assert r.exit_code == 0, r.output
    assert "sharing this machine's 2 cores" in r.output
    assert "at x=65536 (the workers sharing 2 cores):" in r.output
    r = run("compose", "pipe(qsort, inc)", *P, "--at", "x=65536")
    assert r.exit_code == 0 and "at x=65536: " in r.output and "sharing" not in r.output
