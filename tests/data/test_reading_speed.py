"""Reading is linear in the file size: large files of every text format load in well under a second.

A reader that rescans the text per point (to find its line for error messages) takes minutes on
these sizes; each bound here is far above the linear time and far below the quadratic one.
"""
from __future__ import annotations

import json
import time

import pytest

from perfcompose.data import load

N = 20_000  # measurements: 4,000 points x 5 repetitions


def _coordinates() -> list[tuple[int, int]]:
    return [(x, y) for x in range(1, 81) for y in range(1, 51)]


def _extrap_legacy() -> str:
    coords = _coordinates()
    doc = {"parameters": [{"id": 1, "name": "x"}, {"id": 2, "name": "y"}],
           "callpaths": [{"id": 1, "name": "main"}], "metrics": [{"id": 1, "name": "time"}],
           "coordinates": [{"id": k + 1, "parameter_value_pairs": [{"parameter_id": 1, "parameter_value": x},
                                                                   {"parameter_id": 2, "parameter_value": y}]}
                           for k, (x, y) in enumerate(coords)],
           "measurements": [{"coordinate_id": k + 1, "callpath_id": 1, "metric_id": 1, "value": 1.0 + r}
                            for k in range(len(coords)) for r in range(5)]}
    return json.dumps(doc, indent=1)


def _extrap_json() -> str:
    points = [{"point": [x, y], "values": [1.0, 1.1, 1.2, 1.3, 1.4]} for x, y in _coordinates()]
    return json.dumps({"parameters": ["x", "y"], "measurements": {"main": {"time": points}}}, indent=1)


def _perfcompose_json() -> str:
    points = [{"coordinate": {"x": x, "y": y}, "values": [1.0, 1.1, 1.2, 1.3, 1.4]}
              for x, y in _coordinates()]
    return json.dumps({"parameters": ["x", "y"], "metric": "time", "points": points}, indent=1)


def _jsonl() -> str:
    return "".join(json.dumps({"params": {"x": x, "y": y}, "metric": "time", "value": 1.0 + r}) + "\n"
                   for x, y in _coordinates() for r in range(5))


def _talpas() -> str:
    lines = _jsonl().replace('"params"', '"parameters"').replace(", ", "; ")
    return lines.replace('"metric"', '"callpath": "main"; "metric"')


def _csv() -> str:
    return "x,y,value\n" + "".join(f"{x},{y},{1.0 + r}\n" for x, y in _coordinates() for r in range(5))


def _text() -> str:
    coords = _coordinates()
    return ("PARAMETER x\nPARAMETER y\nPOINTS " + " ".join(f"( {x} {y} )" for x, y in coords)
            + "\nREGION main\nMETRIC time\n" + "".join("DATA 1.0 1.1 1.2 1.3 1.4\n" for _ in coords))


@pytest.mark.parametrize("name, make", [("legacy.json", _extrap_legacy), ("extrap.json", _extrap_json),
                                        ("pc.json", _perfcompose_json), ("m.jsonl", _jsonl),
                                        ("t.txt", _talpas), ("m.csv", _csv), ("e.txt", _text)])
def test_twenty_thousand_measurements_load_in_linear_time(name, make, write_file):
    path = write_file(name, make())
    # CPU time: other work on a shared machine stretches the wall clock, not the reading
    start = time.process_time()
    experiment = load(path)
    elapsed = time.process_time() - start
    (series,) = experiment.series
    assert len(series.points) == 4000 and sum(len(p.values) for p in series.points) == N
    assert elapsed < 5.0, f"{name}: {elapsed:.2f} CPU s"
