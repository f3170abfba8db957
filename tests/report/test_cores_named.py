"""Every prediction names the core count it assumes, and a program that starts more threads than
the machine has cores is flagged: in ``demo`` (text and page), ``predict`` (text, JSON, page) and
``compose --at``."""
from __future__ import annotations

import json
from importlib import import_module
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


def test_demo_names_the_cores_and_flags_the_pools_wider_than_the_machine(two_cores, monkeypatch, part_rows,
                                                                          tmp_path):
    monkeypatch.setattr(import_module("perfcompose.commands.demo"), "table1", lambda **kw: part_rows)
    page = tmp_path / "demo.html"
    r = run("demo", "--plot", tmp_path / "demo.png", "--html", page)
    assert r.exit_code == 0, r.output
    assert "a core per thread (this machine has 2)" in r.output
    flagged = [line for line in r.output.splitlines() if line.startswith("│") and " !" in line]
    assert any("tpool_24(qsort)" in line for line in flagged) and any("tpool_4(qsort)" in line for line in flagged)
    assert not any(line.split("│")[1].strip() in ("qsort", "seq(qsort, inc)") for line in flagged)
    assert "more threads than this machine's 2 cores" in r.output and "tpool_24(qsort)" in r.output
    html = page.read_text()
    assert "this machine has 2 cores" in html and "24 (&gt; 2 cores)" in html


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
