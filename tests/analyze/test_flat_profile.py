"""A flat profile of many regions is analysed: the root's composition seq(r0, r1, ...) is built
as a balanced tree, not a left-deep chain as deep as there are regions, and a recursion that runs
too deep in perfcompose's own structures is not reported as a fault of the input."""
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


def test_the_root_of_a_flat_profile_composes_as_a_balanced_seq():
    from perfcompose.analyze.analysis import balanced_seq
    from perfcompose.compose.operators import Composer
    from perfcompose.compose.terms import Seq
    from perfcompose.model import Model

    names = [f"c{k}" for k in range(1100)]  # beyond the 1,000 frames of Python's default limit
    term = balanced_seq(names)

    def depth(t):
        return 1 + max(depth(t.first), depth(t.second)) if isinstance(t, Seq) else 0

    assert depth(term) == 11  # ceil(log2(1100))
    composer = Composer({n: Model.parse(f"{k + 1}*p") for k, n in enumerate(names)}, target_unit=None)
    assert float(composer(term)(p=2)) == pytest.approx(2 * sum(range(1, 1101)))


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


def test_a_sum_of_thousands_of_terms_evaluates():
    """The root of a flat profile of 3,000 regions, with intervals: a sum of 3,000 functions known
    numerically (the stacked members of each region)."""
    import sympy as sp
    from sympy.utilities.lambdify import implemented_function

    from perfcompose.model import Model, symbol

    p = symbol("p")
    parts = [implemented_function(f"f{k}", lambda v, k=k: k + 0 * v)(p) for k in range(3000)]
    model = Model(sp.Add(*parts), params=("p",))
    assert float(model(p=2.0)) == pytest.approx(sum(range(3000)))
    assert model(p=[1.0, 2.0]).tolist() == [sum(range(3000))] * 2
