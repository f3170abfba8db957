"""Inclusive and exclusive values: which kind a file holds, and the other kind derived from it."""
from __future__ import annotations

from pathlib import Path

import pytest

from perfcompose.analyze.values import read_values
from perfcompose.errors import InputError


def _medians(series: object) -> list[float]:
    return [p.median for p in series.points]  # type: ignore[attr-defined]


def test_exclusive_values_are_recognised_and_summed_over_each_subtree(exclusive_text: Path) -> None:
    params, (time,) = read_values(exclusive_text)
    assert params == ("p",) and "values read as exclusive" in time.note
    x, y, main = (_medians(time.exclusive[k]) for k in ("main->x", "main->y", "main"))
    assert _medians(time.inclusive["main"]) == pytest.approx([a + b + c for a, b, c in zip(main, x, y)])
    assert time.inclusive["main->x"] == time.exclusive["main->x"]


def test_inclusive_values_are_recognised_and_callees_subtracted(inclusive_text: Path) -> None:
    _, (time,) = read_values(inclusive_text)
    assert "values read as inclusive" in time.note
    assert _medians(time.exclusive["main"]) == pytest.approx([2.0] * 6, rel=1e-9)


def test_the_kind_can_be_named_and_a_missing_metric_is_an_error(inclusive_text: Path) -> None:
    _, (time,) = read_values(inclusive_text, values="exclusive")
    assert "values read as exclusive (--values exclusive)" in time.note
    with pytest.raises(InputError, match="no metric 'bytes'"):
        read_values(inclusive_text, ["bytes"])


def test_a_cube_profile_gives_both_kinds(cube_profile: Path) -> None:
    params, (time,) = read_values(cube_profile)
    assert params == ("p",) and "both read from the profile" in time.note
    own = _medians(time.exclusive["main->solve"])
    assert own == pytest.approx([1.0] * 6)
    assert time.tree.root == "main" and time.unit == "s"
