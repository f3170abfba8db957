"""A flat profile stays flat: its regions name no callers, so their nesting is unknown, and
nothing is summed into an invented root; shares are of the largest region. A flat profile of
many regions is analysed, and a recursion that runs too deep in perfcompose's own structures is
not reported as a fault of the input."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.errors import InputError, from_exception

XS = (4, 8, 16, 32, 64, 128)


def flat_profile(path: Path, regions: int) -> Path:
    """An Extra-P text profile of ``regions`` regions side by side, one parameter, 6 points."""
    lines = ["PARAMETER p", "POINTS " + " ".join(map(str, XS)), ""]
    for r in range(regions):
        a = 1 + r % 7
        data = [f"DATA {a + 0.5 * x:.6g} {1.01 * (a + 0.5 * x):.6g}" for x in XS]
        lines += [f"REGION r{r}", "METRIC time", *data, ""]
    path.write_text("\n".join(lines))
    return path


@pytest.fixture
def low_recursion_limit():
    """Python's limit lowered, so that a profile of 250 regions nests a left-deep chain beyond
    it as one of 1,000 regions does under the default limit (1,000 frames)."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(300)
    yield
    sys.setrecursionlimit(old)


def test_a_flat_profile_of_more_regions_than_the_recursion_limit_allows_is_analysed(tmp_path, low_recursion_limit):
    profile = flat_profile(tmp_path / "flat.txt", 250)
    out = tmp_path / "a.json"
    r = CliRunner(env={"COLUMNS": "200"}).invoke(app, ["analyze", str(profile), "--at", "p=1024", "--json", str(out)])
    assert r.exit_code == 0, r.output
    assert "nested too deeply" not in r.output
    text = out.read_text()
    assert "r249" in text and json.loads(text)


def test_a_flat_profile_has_no_invented_root_and_sums_nothing(tmp_path):
    """Timers as RELeARN writes them: main() holds the loop, which holds the exchange; a sum of
    the three would count the exchange three times."""
    xs = (4, 8, 16, 32, 64)
    laws = {"main()": lambda x: 12 + 2.0 * x, "loop": lambda x: 10 + 2.0 * x, "exchange": lambda x: 2.0 * x}
    lines = ["PARAMETER p", "POINTS " + " ".join(map(str, xs)), "METRIC time"]
    for name, law in laws.items():
        lines += [f"REGION {name}", *(f"DATA {law(x):.6g} {1.001 * law(x):.6g}" for x in xs)]
    profile = tmp_path / "timers.txt"
    profile.write_text("\n".join(lines) + "\n")
    from perfcompose.analyze import analyze

    analysis = analyze(profile, {"p": 1024})
    time = analysis.metrics[0]
    assert [r.path for r in time.roots] == ["main()", "loop", "exchange"]
    assert all(not r.children and r.composition is None for r in time.roots)
    assert time.run == "main()" and "(program)" not in json.dumps(time.roots[0].path)
    assert "nesting of its regions is unknown" in time.note
    shares = {r.path: r.share_of_root for r in time.roots}
    assert shares["main()"] == pytest.approx(1.0)
    assert shares["exchange"] == pytest.approx(2048 / 2060.0, rel=0.01)
    assert time.roots[0].share_of_parent is None
    # the page lists the regions in a table, without a tree that would nest them under anything
    from perfcompose.report.analysis_page import analysis_report
    from perfcompose.report.html import render

    page = render(analysis_report(analysis))
    assert "(program)" not in page and "<details" not in page and "regions of time, largest at the target" in page


def _recurse(n: int) -> int:
    return _recurse(n + 1)


def test_a_recursion_of_perfcompose_itself_is_not_blamed_on_the_input():
    try:
        _recurse(0)
    except RecursionError as exc:
        error = from_exception(exc)
    assert error is not None and not isinstance(error, InputError)
    assert "a limit of perfcompose, not a fault of the input" in str(error)
    try:
        json.loads("[" * 100_000 + "]" * 100_000)
    except RecursionError as exc:
        error = from_exception(exc, path="deep.json")
    assert isinstance(error, InputError) and "the input is nested too deeply" in str(error)


def test_a_sum_of_a_thousand_terms_evaluates():
    """The root of a flat profile of 1,000 regions, with intervals: a sum of 1,000 functions known
    numerically (the stacked members of each region), five times more than the 200 levels of
    nesting that are read."""
    import sympy as sp
    from sympy.utilities.lambdify import implemented_function

    from perfcompose.model import Model, symbol

    p = symbol("p")
    parts = [implemented_function(f"f{k}", lambda v, k=k: k + 0 * v)(p) for k in range(1000)]
    model = Model(sp.Add(*parts), params=("p",))
    assert float(model(p=2.0)) == pytest.approx(sum(range(1000)))
    assert model(p=[1.0, 2.0]).tolist() == [sum(range(1000))] * 2
