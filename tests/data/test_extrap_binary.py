"""Extra-P's binary inputs, detected by content: its saved experiments (.extra-p, a zip archive)
and Extra-P 3 experiment files, written here the way Extra-P writes them."""
from __future__ import annotations

import io
import json
import struct
import zipfile
from pathlib import Path

import pytest

from perfcompose.data import load
from perfcompose.errors import DataFormatError
from perfcompose.fit import PMNFFitter

X = [20.0, 30.0, 40.0, 50.0, 60.0]


class Extrap3Writer:
    """Extra-P 3's object stream, little-endian."""

    def __init__(self) -> None:
        self.out = bytearray(struct.pack("<h", 1))
        self.string("EXTRAP_EXPERIMENT")
        self.string("3.0")

    def string(self, s: str) -> Extrap3Writer:
        raw = s.encode()
        self.out += struct.pack("<I", len(raw)) + raw
        return self

    def ints(self, *v: int) -> Extrap3Writer:
        self.out += struct.pack(f"<{len(v)}q", *v)
        return self

    def values(self, *v: float) -> Extrap3Writer:
        self.out += struct.pack(f"<{len(v)}d", *v)
        return self

    def single_function(self, constant: float, terms: list[tuple[float, str, float]]) -> Extrap3Writer:
        self.string("SingleParameterFunction").values(constant).ints(len(terms))
        for coefficient, kind, exponent in terms:
            self.string("CompoundTerm").values(coefficient).ints(1).string("SimpleTerm").string(kind).values(exponent)
        return self


def extrap3_experiment(sparse: bool = True, with_model: bool = True) -> bytes:
    w = Extrap3Writer()
    w.string("Parameter").ints(0).string("p")
    w.string("Metric").ints(0).string("time").string("seconds")
    w.string("Region").ints(0).string("main").string("main.c").ints(1)
    w.string("Region").ints(1).string("compute").string("a.c").ints(10)
    w.string("Region").ints(2).string("compute").string("b.c").ints(20)   # the same name: "compute #1"
    w.string("Callpath").ints(0, 0, -1)
    w.string("Callpath").ints(1, 1, 0)
    w.string("Callpath").ints(2, 2, 0)
    for k, x in enumerate(X):
        w.string("Coordinate").ints(k, 1).string("p").values(x)
    for callpath, law in ((0, lambda x: 5.0), (1, lambda x: 2 + 0.5 * x), (2, lambda x: 1 + 0.01 * x * x)):
        for k, x in enumerate(X):
            y = law(x)
            w.string("ExperimentPoint").ints(k, 5).values(y * 1.01, y * 0.99, y * 1.03, 0.01, y, y * 0.99, y * 1.01,
                                                          y * 0.98, y * 1.02).ints(0, callpath)
    w.string("ModelComment").ints(0).string("a comment")
    w.string("SingleParameterSimpleModelGenerator").string("Default").string("CROSSVALIDATION_NONE").values(0.05)
    w.string("GENERATE_MODEL_MEAN")
    if sparse:
        w.ints(5).string("FIRST_POINTS_FOUND").ints(0, 0).string("INCREASING_COST")
    w.ints(1).string("CompoundTerm").values(1.0).ints(1).string("SimpleTerm").string("polynomial").values(1.0)
    w.ints(2)   # most terms
    if with_model:
        w.string("Model").ints(0, 1, 0).single_function(2.0, [(0.5, "polynomial", 1.0)])
        for _ in range(6):
            w.string("Function")
        w.values(0.0, 1.0, 0.0, *((0.0,) if sparse else ()))
        w.ints(1, 0)                                  # one comment, its id
        w.ints(1).string("p").ints(1).values(20.0, 60.0)
    return bytes(w.out)


@pytest.mark.parametrize("sparse", [True, False])
def test_extrap3_experiment_is_detected_and_read(tmp_path: Path, sparse: bool):
    path = tmp_path / "experiment_3"          # Extra-P 3 files have no extension
    path.write_bytes(extrap3_experiment(sparse))
    e = load(path)
    assert e.parameters == ("p",)
    assert [s.label for s in e.series] == ["main/time", "main->compute/time", "main->compute #1/time"]
    linear = e.series[1]
    assert [p.coordinate for p in linear.points] == [(x,) for x in X]
    assert [p.values for p in linear.points] == [(2 + 0.5 * x,) for x in X]   # the median of each point
    assert PMNFFitter().fit(e).results_[1].model.to_extrap(digits=4) == "2 + 0.5 * p^(1)"


def test_extrap3_experiment_damaged_is_a_located_error(tmp_path: Path):
    data = extrap3_experiment()
    path = tmp_path / "cut"
    path.write_bytes(data[:len(data) // 2])
    with pytest.raises(DataFormatError, match=r"Extra-P 3 experiment: .*at byte") as info:
        load(path)
    assert str(path) in str(info.value)
    path.write_bytes(data + struct.pack("<I", 7) + b"Unknown")
    with pytest.raises(DataFormatError, match="unknown object 'Unknown'"):
        load(path)


def saved_experiment(points: list[dict]) -> bytes:
    doc = {"Extra-P": "4.2.0", "parameters": ["x", "y"], "measurements": {"merge": {"time": points}},
           "modelers": [{"name": "Default Model", "models": {}}]}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("experiment.json", json.dumps(doc))
    return buf.getvalue()


def _grid(stats: bool) -> list[dict]:
    points = []
    for x in X:
        for y in (1.0, 2.0, 3.0, 4.0, 5.0):
            v = 1 + 0.5 * x + 2 * y
            reps = [v * f for f in (0.99, 1.0, 1.01)]
            entry = {"coordinate": [x, y], "median": v, "mean": v, "minimum": min(reps), "maximum": max(reps),
                     "std": 0.01 * v}
            points.append({**entry, "repetitions": 3, "values": None if stats else reps})
    return points


@pytest.mark.parametrize("stats", [True, False])
def test_saved_experiment_is_detected_and_read(tmp_path: Path, stats: bool):
    path = tmp_path / "two_parameter.txt.extra-p"
    path.write_bytes(saved_experiment(_grid(stats)))
    e = load(path)
    assert e.parameters == ("x", "y") and [s.label for s in e.series] == ["merge/time"]
    first = e.series[0].points[0]
    assert first.coordinate == (20.0, 1.0)
    assert len(first.values) == (1 if stats else 3)
    assert e.series[0].points[-1].coordinate == (60.0, 5.0) and len(e.series[0].points) == 25
    if stats:   # one value per point, the median: exact data
        assert PMNFFitter().fit(e).model_.to_extrap(digits=4) == "1 + 0.5 * x^(1) + 2 * y^(1)"


def test_saved_experiment_damaged_or_foreign_zip_is_a_located_error(tmp_path: Path):
    path = tmp_path / "broken.extra-p"
    path.write_bytes(saved_experiment(_grid(True))[:200])
    with pytest.raises(DataFormatError, match="damaged Extra-P saved experiment"):
        load(path)
    other = tmp_path / "other.zip"
    with zipfile.ZipFile(other, "w") as z:
        z.writestr("readme.txt", "hello")
    with pytest.raises(DataFormatError, match="without experiment.json"):
        load(other)
    bad = tmp_path / "bad.extra-p"
    points = _grid(True)
    points[3] = {"coordinate": [20.0], "median": 1.0}
    bad.write_bytes(saved_experiment(points))
    with pytest.raises(DataFormatError, match="a coordinate is not 2 finite numbers"):
        load(bad)
