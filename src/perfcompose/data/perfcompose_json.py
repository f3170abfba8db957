"""perfcompose's own experiment file: JSON ``{"parameters": [...], "metric": ..., "unit": ...,
"points": [{"coordinate": {...}, "values": [...]}, ...]}`` (optionally ``"region"``), or these
keys per series in a ``"series"`` list."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from perfcompose.data.experiment import Experiment, Line, Point, Series, check_negatives, check_point
from perfcompose.data.json_text import KeyLines
from perfcompose.errors import DataFormatError
from perfcompose.finite import is_finite_number, is_number

FORMAT = "perfcompose-experiment/1"


def _number(value: Any, what: str, at: Line) -> float:
    if not is_number(value):
        raise at.error(f"{what} must be a number, got {json.dumps(value)}")
    if not is_finite_number(value):
        raise at.error(f"{what} is not finite")
    return float(value)


def read(path: Path, text: str) -> Experiment:
    try:
        doc = json.loads(text, parse_constant=lambda c: float(c))
    except json.JSONDecodeError as exc:
        text_lines = text.splitlines()
        src = text_lines[exc.lineno - 1] if 0 < exc.lineno <= len(text_lines) else None
        raise DataFormatError(f"invalid JSON: {exc.msg}", path=path, line=exc.lineno, column=exc.colno,
                              source_line=src) from None
    if not isinstance(doc, dict):
        raise DataFormatError("an experiment file must hold one JSON object", path=path, line=1)
    lines = KeyLines(text)
    params = doc.get("parameters")
    if not isinstance(params, list) or not params or not all(isinstance(p, str) for p in params):
        raise DataFormatError("missing or invalid field 'parameters' (a list of names)", path=path,
                              line=lines.line("parameters", 0), hint='e.g. "parameters": ["x"]')
    raw_series = doc.get("series", [doc])
    if not isinstance(raw_series, list):
        raise DataFormatError("field 'series' must be a list", path=path, line=lines.line("series", 0))
    series = []
    point_index = 0
    for sk, raw in enumerate(raw_series):
        if not isinstance(raw, dict):
            raise DataFormatError(f"series {sk + 1} must be an object", path=path)
        for key in ("metric", "points"):
            if key not in raw:
                raise DataFormatError(f"missing field '{key}'" + (f" in series {sk + 1}" if len(raw_series) > 1
                                                                  else ""), path=path,
                                      hint='an experiment needs "metric", "unit" and "points"')
        if not isinstance(raw["points"], list):
            raise DataFormatError("field 'points' must be a list", path=path, line=lines.line("points", sk))
        points = []
        point_lines: list[int | None] = []
        seen: dict[tuple[float, ...], int] = {}
        for pk, rp in enumerate(raw["points"]):
            has_coord = isinstance(rp, dict) and "coordinate" in rp
            line = lines.line("coordinate", point_index) if has_coord else None
            point_index += has_coord
            where, at = f"point {pk + 1}", Line(path, line)
            if not has_coord or "values" not in rp:
                raise at.error(f"{where}: needs 'coordinate' and 'values'")
            coord, values = rp["coordinate"], rp["values"]
            if not isinstance(coord, dict):
                raise at.error(f"{where}: 'coordinate' must map parameter names to values")
            if set(coord) != set(params):
                raise at.error(f"{where}: coordinate names {sorted(coord)} differ from the parameters {params}",
                               hint="every point needs a value for each parameter and no others")
            if not isinstance(values, list):
                raise at.error(f"{where}: 'values' must be a list of repetitions")
            points.append(Point(tuple(_number(coord[p], f"{where}: parameter {p}", at) for p in params),
                                tuple(_number(v, f"{where}: value {k + 1}", at) for k, v in enumerate(values))))
            check_point(params, points[-1], seen, where, path, line)
            point_lines.append(line)
        check_negatives(points, "point {}".format, path, point_lines)
        series.append(Series(str(raw["metric"]), tuple(points), str(raw.get("region", "")),
                             str(raw.get("unit", doc.get("unit", "s")))))
    return Experiment(tuple(params), tuple(series), source=str(path))


def _series_json(s: Series, params: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {"region": s.region} if s.region else {}
    out.update(metric=s.metric, unit=s.unit,
               points=[{"coordinate": {p: plain(c) for p, c in zip(params, pt.coordinate)},
                        "values": list(pt.values)} for pt in s.points])
    return out


def plain(v: float) -> int | float:
    """A whole number as an int (written without ``.0``), any other as it is."""
    return int(v) if float(v).is_integer() and abs(v) < 2 ** 53 else v


def plain_text(v: float) -> str:
    """``v`` as :func:`plain` writes it (``4``, ``2.5``)."""
    return str(plain(float(v)))


def dumps(experiment: Experiment) -> str:
    params = experiment.parameters
    doc = {"format": FORMAT, "parameters": list(params),
           **(_series_json(experiment.series[0], params) if len(experiment.series) == 1
              else {"series": [_series_json(s, params) for s in experiment.series]})}
    # indented JSON with each point on one line, so files stay readable and diffable
    return re.sub(r'\{\s+"coordinate": \{([^}]*)\},\s+"values": \[([^\]]*)\]\s+\}',
                  lambda m: '{"coordinate": {' + " ".join(m.group(1).split()) + '}, "values": ['
                  + " ".join(m.group(2).split()) + ']}', json.dumps(doc, indent=2)) + "\n"
