"""compose --at and predict print predictions with their interval and warn about oversubscription."""
from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from perfcompose.cli import app

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _run(*args: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def test_compose_at_prints_the_interval_of_a_fitted_part():
    r = _run("compose", "seq(qsort, inc)", "-c", f"qsort={EXAMPLES / 'qsort.json'}", "-c", "inc=536*x",
             "--unit", "ns", "--at", "x=65536")
    assert r.exit_code == 0, r.output
    m = re.search(r"at x=65536: (\S+) \[(\S+), (\S+)\] ns \(90 % interval\)", r.output)
    assert m, r.output
    value, low, high = map(float, m.groups())
    assert low < value < high and (high - low) / value < 0.2


def test_compose_at_says_exact_without_measured_parts():
    r = _run("compose", "seq(qsort, inc)", "-c", "qsort=1034*x*log2(x)", "-c", "inc=536*x", "--unit", "ns",
             "--at", "x=1024")
    assert r.exit_code == 0, r.output
    assert "exact" in r.output


def test_compose_at_a_bad_point_exits_2():
    r = _run("compose", "inc", "-c", "inc=536*x", "--at", "x")
    assert r.exit_code == 2 and "is not a parameter assignment" in r.output


def test_compose_at_warns_about_more_workers_than_cores(monkeypatch):
    import perfcompose.compose.oversubscription as over

    monkeypatch.setattr(over, "machine_cores", lambda: 2)
    r = _run("compose", "pipe(tpool_2(a), b)", "-c", "a=100*x", "-c", "b=50*x", "--unit", "ns", "--at", "x=10")
    assert r.exit_code == 0, r.output
    assert "3 workers on 2 cores" in r.output
    # max(100x/2, 50x) = 500 by the operators; 150x over 2 cores = 750
    assert "at x=10 (the workers sharing 2 cores): 750 ns" in r.output
