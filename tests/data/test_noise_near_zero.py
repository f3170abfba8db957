"""Values within floating-point noise below zero (an exclusive time computed as the difference of
two inclusive ones: -2.8e-14) are read as 0 by every reader, and the experiment notes how many and
where; a negative value beyond the noise is still refused, located."""
from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.data import Experiment, Point, Series, load
from perfcompose.data.experiment import PointArrays
from perfcompose.errors import DataFormatError

X = (4, 8, 16, 32, 64)
NOISE = -2.8e-14


def _values(low: float) -> list[list[float]]:
    """Two repetitions per point of a series of scale 10, the first point's first one ``low``."""
    rows = [[0.1 * x, 0.1 * x + 0.01] for x in X]
    rows[0][0] = low
    return rows


def _text(low: float) -> str:
    data = "\n".join("DATA " + " ".join(map(repr, r)) for r in _values(low))
    return f"PARAMETER x\nPOINTS {' '.join(map(str, X))}\n\nREGION kernel\nMETRIC time\n{data}\n"


def _extrap_json(low: float) -> str:
    points = [{"point": [x], "values": r} for x, r in zip(X, _values(low))]
    return json.dumps({"parameters": ["x"], "measurements": {"kernel": {"time": points}}}, indent=1)


def _jsonl(low: float) -> str:
    return "".join(json.dumps({"params": {"x": x}, "callpath": "kernel", "metric": "time", "value": v}) + "\n"
                   for x, r in zip(X, _values(low)) for v in r)


def _csv(low: float) -> str:
    return "region,metric,x,value\n" + "".join(f"kernel,time,{x},{v!r}\n" for x, r in zip(X, _values(low))
                                               for v in r)


def _perfcompose_json(low: float) -> str:
    points = [{"coordinate": {"x": x}, "values": r} for x, r in zip(X, _values(low))]
    return json.dumps({"parameters": ["x"], "region": "kernel", "metric": "time", "points": points}, indent=1)


def _saved(low: float) -> bytes:
    """An Extra-P saved experiment without kept values: each point its statistics."""
    points = [{"coordinate": [float(x)], "median": sum(r) / 2, "mean": sum(r) / 2, "minimum": min(r),
               "maximum": max(r), "std": 0.005, "repetitions": 2, "values": None} for x, r in zip(X, _values(0.0))]
    points[0].update(mean=low, median=low, minimum=low)
    doc = {"Extra-P": "4.2.5", "parameters": ["x"], "measurements": {"kernel": {"time": points}}}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("experiment.json", json.dumps(doc))
    return buf.getvalue()


# (file name, content maker, the line of the first point where the format has lines, values noted)
FORMATS = {
    "text": ("k.txt", _text, 6, 1),
    "extrap-json": ("k.json", _extrap_json, 9, 1),
    "jsonl": ("k.jsonl", _jsonl, 1, 1),
    "csv": ("k.csv", _csv, 2, 1),
    "perfcompose-json": ("k.pc.json", _perfcompose_json, 9, 1),
    "extrap-saved": ("k.extra-p", _saved, None, 3),   # the saved mean, median and minimum
}


@pytest.mark.parametrize("kind", FORMATS)
def test_values_within_noise_below_zero_are_read_as_zero_and_noted(write_file, kind):
    name, make, _line, count = FORMATS[kind]
    e = load(write_file(name, make(NOISE)))
    series = e.get("time", "kernel")
    assert series.aggregated("min")[0] == 0.0 and min(series.aggregated("min")) == 0.0
    assert len(e.clipped) == 1 and e.clipped[0].count == count and e.clipped[0].lowest == NOISE
    assert e.notes == (f"kernel/time: {count} value{'s' if count > 1 else ''} within floating-point noise "
                       "below zero (down to -2.8e-14) read as 0",)


@pytest.mark.parametrize("kind", FORMATS)
def test_a_negative_value_beyond_the_noise_is_refused_where_it_is(write_file, kind):
    name, make, line, _count = FORMATS[kind]
    path = write_file(name, make(-0.5))
    with pytest.raises(DataFormatError, match=r"negative value -0\.5") as info:
        load(path)
    message = str(info.value)
    assert message.startswith(f"{path}, line {line}:" if line else f"{path}:"), message
    assert "floating-point noise" in message   # the hint says what is read as 0


def _series(values: list[float]) -> Series:
    return Series("time", tuple(Point((float(x),), (v,)) for x, v in zip(X, values)), "k")


@pytest.mark.parametrize("values, low, clipped", [
    ([1e-6, 2e-6, 3e-6, 4e-6, -5e-13], -5e-13, True),    # within the absolute bound 1e-12
    ([1e-6, 2e-6, 3e-6, 4e-6, -1e-10], -1e-10, False),   # beyond it, and beyond 1e-9 of 4e-6
    ([1e6, 2e6, 3e6, 4e6, -1e-4], -1e-4, True),          # within 1e-9 of the largest value, 4e6
    ([1e6, 2e6, 3e6, 4e6, -0.01], -0.01, False),
])
def test_the_noise_is_judged_against_the_series_scale_or_an_absolute_bound(values, low, clipped):
    if clipped:
        e = Experiment(("x",), (_series(values),))
        assert e.series[0].points[-1].values == (0.0,) and e.clipped[0].lowest == low
    else:
        with pytest.raises(DataFormatError, match=f"k/time, point 5 .*negative value {low!r}"):
            Experiment(("x",), (_series(values),))


def test_profiles_read_as_arrays_are_clipped_as_arrays(write_file):
    e = load(write_file("k.json", _extrap_json(NOISE)))
    points = e.series[0].points
    assert isinstance(points, PointArrays) and points.values.min() == 0.0
    assert e.clipped[0].count == 1


def test_selecting_series_keeps_their_notes_only():
    clean = Series("time", tuple(Point((float(x),), (1.0,)) for x in X), "other")
    e = Experiment(("x",), (_series([1.0, 2.0, 3.0, 4.0, NOISE]), clean))
    assert len(e.select(region="k").notes) == 1 and e.select(region="other").notes == ()


def test_show_and_fit_print_the_note_and_succeed(write_file):
    path = write_file("k.txt", _text(NOISE))
    for command in ("show", "fit"):
        result = CliRunner().invoke(app, [command, str(path)])
        assert result.exit_code == 0, result.output
        assert "note: kernel/time: 1 value within floating-point noise below zero" in result.output


def test_fit_json_records_carry_the_note(tmp_path: Path, write_file):
    out = tmp_path / "models.json"
    result = CliRunner().invoke(app, ["fit", str(write_file("k.txt", _text(NOISE))), "--json", str(out)])
    assert result.exit_code == 0, result.output
    (record,) = json.loads(out.read_text())
    assert record["notes"] == ["kernel/time: 1 value within floating-point noise below zero (down to -2.8e-14) "
                               "read as 0"]
