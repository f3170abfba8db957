"""A series no model can be fitted to is skipped with the reason, and the others are fitted."""
from __future__ import annotations

from perfcompose.data import Experiment, Point, Series
from perfcompose.fit import PMNFFitter
from perfcompose.fit.usable import fit_usable, unusable


def _series(region: str, xs: tuple[float, ...], law=lambda x: 3.0 + 2.0 * x) -> Series:
    return Series("time", tuple(Point((x,), (law(x),)) for x in xs), region)


def _fit(part: Experiment) -> list:
    return list(PMNFFitter().fit(part).results_)


def test_a_series_at_two_sizes_is_skipped_and_the_others_fitted():
    e = Experiment(("x",), (_series("a", (4.0, 8.0, 16.0, 32.0)), _series("b", (4.0, 8.0)),
                            _series("c", (4.0, 8.0, 16.0, 32.0), lambda x: 5.0)))
    assert unusable(e.parameters, e.series[0]) is None
    results, skipped = fit_usable(e, _fit)
    assert [r.region for r in results] == ["a", "c"]
    assert [r.model.to_extrap(digits=4) for r in results] == ["3 + 2 * x^(1)", "5"]
    assert [(s.label, s.reason) for s in skipped] == [
        ("b/time", "measured at too few points: x takes 2 distinct values; a model needs at least 3")]


def test_a_series_whose_fit_fails_is_skipped_with_the_fitters_reason():
    # two parameters with 3 values each, but only on a scattered set: no line along either
    scattered = Series("time", tuple(Point(c, (1.0 + c[0] * c[1],)) for c in
                                     ((1.0, 2.0), (2.0, 3.0), (3.0, 1.0), (1.0, 3.0), (2.0, 1.0), (3.0, 2.0))), "s")
    line = Series("time", tuple(Point((x, y), (x + 2 * y,)) for x in (1.0, 2.0, 4.0, 8.0) for y in (1.0, 2.0, 4.0)),
                  "l")
    results, skipped = fit_usable(Experiment(("x", "y"), (scattered, line)), _fit)
    assert [r.region for r in results] == ["l"]
    assert [s.label for s in skipped] == ["s/time"] and "no line of at least 3 points" in skipped[0].reason


def test_all_series_unusable_leaves_no_results():
    results, skipped = fit_usable(Experiment(("x",), (_series("b", (4.0, 8.0)),)), _fit)
    assert results == [] and len(skipped) == 1
