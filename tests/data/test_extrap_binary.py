"""Extra-P's binary inputs, detected by content: its saved experiments (.extra-p, a zip archive)
and Extra-P 3 experiment files, written here the way Extra-P writes them; and saved experiments
written by perfcompose."""
from __future__ import annotations

import io
import json
import struct
import zipfile
from pathlib import Path

import numpy as np
import pytest

from perfcompose.data import Experiment, Point, Series, extrap_saved, load, save
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
    # a point is its stored statistics: its value the mean, each aggregate its own statistic
    assert [p.values for p in linear.points] == [((2 + 0.5 * x) * 1.01,) for x in X]
    assert linear.aggregated("median").tolist() == [2 + 0.5 * x for x in X]
    assert linear.aggregated("max").tolist() == [(2 + 0.5 * x) * 1.02 for x in X]
    assert [p.repetitions for p in linear.points] == [5] * len(X)
    assert PMNFFitter(aggregate="median").fit(e).results_[1].model.to_extrap(digits=4) == "2 + 0.5 * p^(1)"
    assert PMNFFitter(aggregate="mean").fit(e).results_[1].model.to_extrap(digits=4) == "2.02 + 0.505 * p^(1)"


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
    if stats:   # one value per point, the saved mean: exact data
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


# ---------------------------------------------------------------------------------------------
# Saved experiments written by perfcompose, and repetitions kept outside experiment.json

def _measured() -> Experiment:
    reps = lambda v: tuple(v * f for f in (0.98, 1.0, 1.03))  # noqa: E731
    return Experiment(("x",), (
        Series("time", tuple(Point((float(x),), reps(2.0 + 0.5 * x)) for x in X), "main->solve"),
        Series("visits", tuple(Point((float(x),), (float(x),)) for x in X), "main->solve"),
        Series("time", tuple(Point((float(x),), reps(7.0)) for x in X), "")))


def test_saved_experiment_written_reads_back_with_every_repetition(tmp_path: Path):
    path = tmp_path / "out.extra-p"
    assert save(_measured(), path) == "extrap-saved"
    back = load(path)
    assert [s.label for s in back.series] == ["main->solve/time", "main->solve/visits", "main/time"]
    for ours, theirs in zip(_measured().series, back.series):
        assert [p.values for p in ours.points] == [p.values for p in theirs.points]
    with zipfile.ZipFile(path) as z:   # the layout Extra-P 4.2 keeps repetitions in
        assert sorted(z.namelist()) == ["experiment.json", "values/0.indx", "values/0.vals"]
        entry = json.loads(z.read("experiment.json"))["measurements"]["main->solve"]["time"][1]
    assert entry["values"] == [0, 1] and entry["repetitions"] == 3
    assert entry["std"] == pytest.approx(float(np.std(_measured().series[0].points[1].values)))


def test_kept_values_are_read_from_the_value_files_not_taken_for_repetitions(tmp_path: Path):
    # ``extrap --keep-values`` stores [chunk, index]; read as numbers they would be two repetitions 0 and k
    path = tmp_path / "kept.extra-p"
    path.write_bytes(extrap_saved.dumps(_measured()))
    first = load(path).series[0].points
    assert first[4].values == _measured().series[0].points[4].values and len(first[4].values) == 3


def _rewritten(data: bytes, change) -> bytes:
    """The archive with experiment.json and the value files passed through ``change``."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        members = {n: z.read(n) for n in z.namelist()}
    change(members)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, content in members.items():
            z.writestr(name, content)
    return buf.getvalue()


def _point_to(reference: list[int]):
    def change(members: dict[str, bytes]) -> None:
        doc = json.loads(members["experiment.json"])
        doc["measurements"]["main->solve"]["time"][0]["values"] = reference
        members["experiment.json"] = json.dumps(doc).encode()
    return change


@pytest.mark.parametrize("change, message", [
    (_point_to([3, 0]), "values/3.vals, which the archive lacks"),
    (_point_to([0, 999]), "repetitions 999 of values/0 do not exist"),
    (lambda m: m.update({"values/0.indx": m["values/0.indx"][:30]}), "values/0.indx is cut short"),
    (lambda m: m.update({"values/0.vals": b"not values" + m["values/0.vals"]}), "not an Extra-P value file"),
])
def test_damaged_value_files_are_located_errors(tmp_path: Path, change, message):
    path = tmp_path / "damaged.extra-p"
    path.write_bytes(_rewritten(extrap_saved.dumps(_measured()), change))
    with pytest.raises(DataFormatError, match=message) as info:
        load(path)
    assert str(info.value).startswith(str(path))


def test_convert_command_writes_a_saved_experiment(tmp_path: Path):
    from typer.testing import CliRunner

    from perfcompose.cli import app

    source = tmp_path / "m.txt"
    save(_measured().select(metric="time"), source)
    target = tmp_path / "m.extra-p"
    result = CliRunner().invoke(app, ["convert", str(source), str(target)])
    assert result.exit_code == 0, result.output
    assert "(extrap-saved)" in result.output
    assert [p.values for p in load(target).series[0].points] == [p.values for p in load(source).series[0].points]
