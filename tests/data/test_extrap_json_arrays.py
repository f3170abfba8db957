"""Extra-P JSON profiles are read into arrays, with the checks and located errors of the
entry-by-entry reading."""
from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

from perfcompose.data import Experiment, Point, Series, load
from perfcompose.data.experiment import PointArrays
from perfcompose.errors import DataFormatError

GRID = [[p, n] for p in (4, 8, 16) for n in (10, 20.5, 40)]


def _doc(values=lambda k, r: [1.0 + k + 0.1 * r, 2.0 + k, 3 + k]) -> dict:
    meas = {f"main/f{c}": {m: [{"point": pt, "values": values(k, r)} for k, pt in enumerate(GRID)]
                           for r, m in enumerate(("time", "visits"))} for c in range(3)}
    return {"parameters": ["p", "n"], "measurements": meas}


def _write(tmp_path, doc, indent=None):
    path = tmp_path / "profile.extrap.json"
    path.write_text(json.dumps(doc, indent=indent))
    return path


def test_profile_is_read_as_arrays_equal_to_its_points(tmp_path):
    doc = _doc()
    e = load(_write(tmp_path, doc))
    expected = Experiment(("p", "n"), tuple(
        Series(m, tuple(Point(tuple(float(c) for c in entry["point"]), tuple(float(v) for v in entry["values"]))
                        for entry in entries), cp)
        for cp, metrics in doc["measurements"].items() for m, entries in metrics.items()))
    assert all(isinstance(s.points, PointArrays) for s in e.series)
    assert e == expected
    assert [hash(s) for s in e.series] == [hash(s) for s in expected.series]
    s = e.get("visits", "main/f1")
    assert s.coordinates().tolist() == [[float(p), float(n)] for p, n in GRID]
    assert s.repetitions()[2].tolist() == [3.1, 4.0, 5.0]
    assert s.points[2] == Point((4.0, 40.0), (3.1, 4.0, 5.0))


def test_arrays_pickle_without_their_points(tmp_path):
    s = load(_write(tmp_path, _doc())).series[4]
    list(s.points)   # builds the Point objects
    back = pickle.loads(pickle.dumps(s))
    assert back == s and back.points._points is None
    assert len(pickle.dumps(s)) < 2000


def test_boolean_among_numbers_is_refused_with_its_line(tmp_path):
    doc = _doc()
    doc["measurements"]["main/f2"]["time"][4]["values"][1] = True
    with pytest.raises(DataFormatError, match=r"main/f2/time, point 5: value: true is not a finite number") as exc:
        load(_write(tmp_path, doc, indent=1))
    assert exc.value.line is not None and exc.value.line > 1


def test_negative_value_is_refused_with_its_line(tmp_path):
    doc = _doc(values=lambda k, r: [1.0, -2.0 if (k, r) == (7, 1) else 2.0])
    text = json.dumps(doc, indent=1)
    with pytest.raises(DataFormatError, match=r"main/f0/visits, point 8: negative value -2.0") as exc:
        load(_write(tmp_path, doc, indent=1))
    first = text.splitlines().index(next(ln for ln in text.splitlines() if "-2.0" in ln)) + 1
    assert first - 6 <= exc.value.line <= first


def test_uneven_repetitions_and_scalar_points_are_read_too(tmp_path):
    doc = _doc(values=lambda k, r: [1.0 + k] * (1 + k % 3))
    assert [len(p.values) for p in load(_write(tmp_path, doc)).series[0].points][:3] == [1, 2, 3]
    one = {"parameters": ["x"], "measurements": {"main": {"time": [{"point": x, "values": [x * 2.0]}
                                                                   for x in (2, 4, 8, 16)]}}}
    s = load(_write(tmp_path, one)).series[0]
    assert isinstance(s.points, PointArrays)
    assert s.coordinates().tolist() == [[2.0], [4.0], [8.0], [16.0]]


def test_duplicate_coordinate_is_refused(tmp_path):
    doc = _doc()
    doc["measurements"]["main/f1"]["time"][3]["point"] = GRID[0]
    with pytest.raises(DataFormatError, match=r"main/f1/time, point 4: duplicate coordinate \(p=4, n=10\)"):
        load(_write(tmp_path, doc, indent=1))


def test_point_arrays_validate_like_points():
    bad = PointArrays(np.array([[1.0], [2.0]]), np.array([[1.0], [np.nan]]))
    with pytest.raises(DataFormatError, match=r"s/t, point 2 \(x=2\): value nan is not finite"):
        Experiment(("x",), (Series("t", bad, "s"),))
