"""perfcompose.data.experiment: Point, Series, Experiment and the validation every reader relies on."""
from __future__ import annotations

import math

import numpy as np
import pytest

from perfcompose.data import AGGREGATES, Experiment, Point, Series
from perfcompose.data.experiment import describe
from perfcompose.errors import DataFormatError


def _exp(*series: Series, params=("x",), source="") -> Experiment:
    return Experiment(params, series, source=source)


def _series(points, metric="time", region="", unit="s") -> Series:
    return Series(metric, tuple(Point(tuple(c), tuple(v)) for c, v in points), region, unit)


# ---------------------------------------------------------------------------------------------
# Point and Series

def test_point_median_and_cv():
    pt = Point((4.0,), (1.0, 2.0, 6.0))
    assert pt.median == 2.0
    assert pt.cv == pytest.approx(np.std([1, 2, 6], ddof=1) / 3.0)


def test_point_cv_is_zero_for_one_repetition_and_for_zero_mean():
    assert Point((4.0,), (5.0,)).cv == 0.0
    assert Point((4.0,), (0.0, 0.0)).cv == 0.0


def test_series_aggregates_each_point():
    s = _series([((1,), (1.0, 2.0, 9.0)), ((2,), (4.0, 4.0, 7.0))])
    np.testing.assert_allclose(s.aggregated(), [2.0, 4.0])
    np.testing.assert_allclose(s.aggregated("median"), [2.0, 4.0])
    np.testing.assert_allclose(s.aggregated("mean"), [4.0, 5.0])
    np.testing.assert_allclose(s.aggregated("min"), [1.0, 4.0])
    np.testing.assert_allclose(s.aggregated("max"), [9.0, 7.0])
    assert set(AGGREGATES) == {"median", "mean", "min", "max"}


def test_unknown_aggregation_raises_and_lists_choices():
    s = _series([((1,), (1.0,))])
    with pytest.raises(DataFormatError, match="unknown aggregation 'mode'") as info:
        s.aggregated("mode")
    assert "median" in info.value.hint


def test_series_coordinates_array_has_one_row_per_point():
    s = _series([((4, 10), (1.0,)), ((8, 20), (2.0,)), ((16, 40), (3.0,))])
    coords = s.coordinates()
    assert coords.shape == (3, 2)
    np.testing.assert_array_equal(coords[:, 1], [10, 20, 40])


def test_series_label():
    assert _series([((1,), (1.0,))], region="main->solve").label == "main->solve/time"
    assert _series([((1,), (1.0,))]).label == "time"


# ---------------------------------------------------------------------------------------------
# Experiment

def test_single_builds_one_series_of_floats():
    e = Experiment.single(["x"], [((4,), (1, 1.1)), ((8,), (2.0, 2.1))], metric="time", unit="ns", region="r")
    (s,) = e.series
    assert (s.metric, s.unit, s.region) == ("time", "ns", "r")
    assert s.points[0] == Point((4.0,), (1.0, 1.1))
    assert all(isinstance(v, float) for pt in s.points for v in pt.coordinate + pt.values)
    np.testing.assert_allclose(s.aggregated("mean"), [1.05, 2.05])


def test_experiment_equality_ignores_source():
    a = Experiment.single(["x"], [((4,), (1.0,))], source="a.json")
    b = Experiment.single(["x"], [((4,), (1.0,))], source="b.csv")
    assert a == b
    assert a != Experiment.single(["x"], [((4,), (1.5,))])


def test_metrics_and_regions_in_first_seen_order():
    e = _exp(_series([((1,), (1.0,))], "time", "b"), _series([((1,), (1.0,))], "bytes", "a"),
             _series([((1,), (1.0,))], "time", "a"))
    assert e.metrics == ("time", "bytes")
    assert e.regions == ("b", "a")


def test_get_finds_the_one_matching_series():
    e = _exp(_series([((1,), (1.0,))], "time", "a"), _series([((1,), (2.0,))], "bytes", "a"),
             _series([((1,), (3.0,))], "time", "b"))
    assert e.get("bytes").points[0].values == (2.0,)
    assert e.get("time", "b").points[0].values == (3.0,)


def test_get_ambiguous_or_missing_series_lists_what_exists():
    e = _exp(_series([((1,), (1.0,))], "time", "a"), _series([((1,), (3.0,))], "time", "b"),
             source="tasks.csv")
    with pytest.raises(DataFormatError, match="2 series match metric 'time'") as info:
        e.get("time")
    assert "a/time, b/time" in info.value.hint
    with pytest.raises(DataFormatError, match="no series with metric 'bytes'") as info:
        e.get("bytes")
    assert str(info.value).startswith("tasks.csv: ")


def test_select_restricts_series_and_keeps_parameters():
    e = _exp(_series([((1,), (1.0,))], "time", "a"), _series([((1,), (3.0,))], "time", "b"),
             _series([((1,), (5.0,))], "bytes", "b"))
    chosen = e.select(region="b")
    assert [s.label for s in chosen.series] == ["b/time", "b/bytes"]
    assert chosen.parameters == ("x",)
    with pytest.raises(DataFormatError, match="no series with region 'c'"):
        e.select(region="c")


# ---------------------------------------------------------------------------------------------
# Validation

BAD = [
    ("no parameters", dict(params=()), "no parameters"),
    ("repeated parameter", dict(params=("x", "x"), points=[((1, 1), (1.0,))]), "parameter names repeat"),
    ("not an identifier", dict(params=("my x",)), "is not an identifier"),
    ("leading underscore", dict(params=("_x",)), "is not an identifier"),
    ("empty name", dict(params=("",)), "is not an identifier"),
    ("too few coordinates", dict(params=("p", "n"), points=[((1,), (1.0,))]), "has 1 coordinates for 2"),
    ("zero coordinate", dict(points=[((0,), (1.0,))]), "parameter x = 0 is not a positive"),
    ("negative coordinate", dict(points=[((-2,), (1.0,))]), "is not a positive finite number"),
    ("nan coordinate", dict(points=[((math.nan,), (1.0,))]), "is not a positive finite number"),
    ("no repetitions", dict(points=[((1,), (1.0,)), ((2,), ())]), "point 2 (x=2): no repetitions"),
    ("nan value", dict(points=[((1,), (math.nan,))]), "value nan is not finite"),
    ("infinite value", dict(points=[((1,), (1.0, math.inf))]), "value inf is not finite"),
    ("negative value", dict(points=[((1,), (1.0, -0.5))]), "negative value -0.5"),
    ("duplicate coordinate", dict(points=[((1,), (1.0,)), ((2,), (1.0,)), ((1,), (2.0,))]),
     "point 3 (x=1): duplicate coordinate, also point 1"),
]


@pytest.mark.parametrize("case, spec, message", BAD, ids=[b[0] for b in BAD])
def test_validation_rejects(case, spec, message):
    params = spec.get("params", ("x",))
    points = spec.get("points", [((1,) * max(1, len(params)), (1.0,))])
    with pytest.raises(DataFormatError) as info:
        Experiment(params, (_series(points),), source="m.json")
    assert message in str(info.value)
    assert str(info.value).startswith("m.json: ")


def test_validation_rejects_no_series_and_empty_series():
    with pytest.raises(DataFormatError, match="no measurements"):
        Experiment(("x",), ())
    with pytest.raises(DataFormatError, match="series r/time has no points"):
        Experiment(("x",), (Series("time", (), "r"),))


def test_validation_rejects_the_same_series_twice():
    s = _series([((1,), (1.0,))], region="r")
    with pytest.raises(DataFormatError, match="series r/time appears twice"):
        _exp(s, s)


def test_same_metric_in_different_regions_is_fine():
    e = _exp(_series([((1,), (1.0,))], region="a"), _series([((2,), (1.0,))], region="b"))
    assert len(e.series) == 2


def test_zero_values_are_allowed():
    assert Experiment.single(["x"], [((1,), (0.0,))]).series[0].points[0].values == (0.0,)


def test_describe():
    assert describe(("x", "n"), (1024.0, 2.5)) == "x=1024, n=2.5"
