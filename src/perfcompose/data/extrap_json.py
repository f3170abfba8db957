"""Extra-P's JSON input formats (``extrap --json``): ``{"parameters": [...], "measurements":
{callpath: {metric: [{"point": [...], "values": [...]}, ...]}}}``, and the legacy one (top-level
``"callpaths"``, entries by id), which is read and written as the current one."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from perfcompose.data import json_text
from perfcompose.data.experiment import (
    Experiment,
    Line,
    Point,
    PointArrays,
    Series,
    check_negatives,
    check_point,
    point_arrays,
)
from perfcompose.data.perfcompose_json import plain
from perfcompose.errors import DataFormatError


def read(path: Path, text: str, doc: Any = None) -> Experiment:
    if doc is None:
        try:
            doc = json_text.loads(text)
        except json.JSONDecodeError as exc:
            raise DataFormatError(f"invalid JSON: {exc.msg}", path=path, line=exc.lineno, column=exc.colno) from None
    if not isinstance(doc, dict):
        raise DataFormatError("an Extra-P JSON file holds one object", path=path, line=1)
    lines = json_text.KeyLines(text)
    if "callpaths" in doc:
        return _read_legacy(path, lines, doc)
    params = doc.get("parameters")
    if not isinstance(params, list) or not params or not all(isinstance(p, str) for p in params):
        raise DataFormatError("missing or invalid 'parameters' (a list of names)", path=path,
                              line=lines.line("parameters", 0))
    meas = doc.get("measurements")
    if not isinstance(meas, dict) or not meas:
        raise DataFormatError("missing or empty 'measurements' (callpath -> metric -> points)", path=path,
                              line=lines.line("measurements", 0))
    arrays = _as_arrays(params, meas, text)
    if arrays is not None:
        return Experiment(tuple(params), arrays, source=str(path))
    series = []
    index = 0
    for callpath, metrics in meas.items():
        if not isinstance(metrics, dict):
            raise DataFormatError(f"callpath {callpath!r}: expected an object of metrics", path=path,
                                  line=lines.line(callpath, 0))
        for metric, entries in metrics.items():
            if not isinstance(entries, list):
                raise DataFormatError(f"{callpath}/{metric}: expected a list of points", path=path,
                                      line=lines.line(metric, 0))
            points = []
            point_lines: list[int | None] = []
            seen: dict[tuple[float, ...], int] = {}
            for k, entry in enumerate(entries):
                has_point = isinstance(entry, dict) and "point" in entry
                line = lines.line("point", index) if has_point else None
                index += has_point
                where, at = f"{callpath}/{metric}, point {k + 1}", Line(path, line)
                if not isinstance(entry, dict) or "point" not in entry or "values" not in entry:
                    raise at.error(f"{where}: needs 'point' and 'values'")
                coord = entry["point"] if isinstance(entry["point"], list) else [entry["point"]]
                if len(coord) != len(params):
                    raise at.error(f"{where}: {len(coord)} coordinates for {len(params)} parameters")
                if not isinstance(entry["values"], list):
                    raise at.error(f"{where}: 'values' must be a list")
                points.append(Point(tuple(at.number(c, f"{where}: coordinate") for c in coord),
                                    tuple(at.number(v, f"{where}: value") for v in entry["values"])))
                check_point(params, points[-1], seen, where, path, line)
                point_lines.append(line)
            check_negatives(points, f"{callpath}/{metric}, point {{}}".format, path, point_lines)
            series.append(Series(str(metric), tuple(points), str(callpath)))
    return Experiment(tuple(params), tuple(series), source=str(path))


def _as_arrays(params: list[str], meas: dict, text: str) -> tuple[Series, ...] | None:
    """The series as :class:`PointArrays` (all read into two arrays at once), where every value is
    a plain number and every check passes; None where anything is amiss (the entry-by-entry
    reading then finds and locates it). ``true`` and ``false`` anywhere in the text send it there
    too: NumPy would read a boolean among numbers as one."""
    if "true" in text or "false" in text:
        return None
    names: list[tuple[str, str]] = []
    counts: list[int] = []
    coords: list[Any] = []
    values: list[Any] = []
    try:
        for callpath, metrics in meas.items():
            for metric, entries in metrics.items():
                if not isinstance(entries, list):
                    return None
                names.append((str(callpath), str(metric)))
                counts.append(len(entries))
                coords.extend([e["point"] for e in entries])
                values.extend([e["values"] for e in entries])
        C, V = np.array(coords), np.array(values)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    if C.dtype.kind not in "if" or V.dtype.kind not in "if":
        return None
    if C.ndim == 1 and len(params) == 1:
        C = C[:, None]
    found = point_arrays(C, V, counts, len(params))
    if found is None:
        return None
    return tuple(Series(metric, points, callpath) for (callpath, metric), points in zip(names, found))


def _read_legacy(path: Path, lines: json_text.KeyLines, doc: dict) -> Experiment:
    try:
        by_id = {key: sorted(doc[key], key=lambda e: e["id"])
                 for key in ("parameters", "callpaths", "metrics", "coordinates")}
        params = [p["name"] for p in by_id["parameters"]]
        callpaths = [c["name"] for c in by_id["callpaths"]]
        metrics = [m["name"] for m in by_id["metrics"]]
        coords = []
        for c in by_id["coordinates"]:
            pairs = sorted(c["parameter_value_pairs"], key=lambda q: q["parameter_id"])
            coords.append(tuple(Line(path, None).number(q["parameter_value"], "coordinate") for q in pairs))
        groups: dict[tuple[int, int], dict[int, list[float]]] = {}
        for k, m in enumerate(doc["measurements"]):
            # Extra-P uses the ids as 1-based positions in the id-sorted lists
            key = (m["callpath_id"] - 1, m["metric_id"] - 1)
            groups.setdefault(key, {}).setdefault(m["coordinate_id"] - 1, []).append(
                Line(path, lines.line("coordinate_id", k)).number(m["value"], f"measurement {k + 1}"))
        series = tuple(Series(metrics[mi], tuple(Point(coords[ci], tuple(v)) for ci, v in sorted(pts.items())),
                              callpaths[cp]) for (cp, mi), pts in groups.items())
    except (KeyError, TypeError, IndexError) as exc:
        raise DataFormatError(f"malformed legacy Extra-P JSON ({type(exc).__name__}: {exc})", path=path,
                              hint="the legacy format needs parameters, callpaths, metrics, coordinates and "
                                   "measurements with consecutive ids from 1") from None
    return Experiment(tuple(params), series, source=str(path))


def _number_text(v: float) -> str:
    """A number as ``json.dumps`` writes it (a float's shortest repr)."""
    kind = type(v)
    return float.__repr__(v) if kind is float else int.__repr__(v) if kind is int else json.dumps(v)


@lru_cache(maxsize=4096)
def _point_text(coord: tuple[float, ...]) -> str:
    """The start of a point's line up to its values (the points of a profile repeat from series to series)."""
    return '{"point": [' + ", ".join(_number_text(plain(c)) for c in coord) + '], "values": ['


def _point_set(series: Series) -> Any:
    """The coordinates of a series' points, in no particular order (to compare point sets)."""
    C = series.coordinates()
    return C[np.lexsort(C.T[::-1])].tobytes() if C.ndim == 2 else sorted(p.coordinate for p in series.points)


def one_point_set(experiment: Experiment, needs: str = "Extra-P") -> None:
    """Refuse an experiment whose series are measured at different points (Extra-P's rule)."""
    coords = _point_set(experiment.series[0])
    for s in experiment.series[1:]:
        if _point_set(s) != coords:
            raise DataFormatError(f"series {s.label} is measured at other points than "
                                  f"{experiment.series[0].label}; {needs} needs one point set",
                                  hint="write perfcompose JSON instead")


def dumps(experiment: Experiment) -> str:
    """The experiment as Extra-P JSON; every series must have the same points (Extra-P's rule).
    The layout is JSON indented by two, each point on a line of its own."""
    one_point_set(experiment)
    meas: dict[str, dict[str, Series]] = {}
    for s in experiment.series:
        meas.setdefault(s.region or "main", {})[s.metric] = s
    out = ['{\n  "parameters": [\n', ",\n".join(f"    {json.dumps(p)}" for p in experiment.parameters),
           '\n  ],\n  "measurements": {']
    for k, (callpath, metrics) in enumerate(meas.items()):
        out.append(("," if k else "") + f"\n    {json.dumps(callpath)}: {{")
        for m, (metric, series) in enumerate(metrics.items()):
            # each point on one line: {"point": [4, 1024], "values": [1.5, 1.25]}
            if isinstance(series.points, PointArrays):
                coords, values = series.points.coordinates.tolist(), series.points.values.tolist()
                texts = [", ".join(map(float.__repr__, vals)) for vals in values]   # floats all
            else:
                coords, values = [p.coordinate for p in series.points], [p.values for p in series.points]
                texts = [", ".join(map(_number_text, vals)) for vals in values]
            lines = [_point_text(tuple(coord)) + text + "]}" for coord, text in zip(coords, texts)]
            body = "[\n        " + ",\n        ".join(lines) + "\n      ]" if lines else "[]"
            out.append(("," if m else "") + f"\n      {json.dumps(metric)}: {body}")
        out.append("\n    }")
    out.append("\n  }\n}\n")
    return "".join(out)
