"""Extra-P's text input format (``extrap --text``): PARAMETER, POINTS, REGION, METRIC, DATA, ``#``
comments; the k-th DATA line after a REGION or METRIC holds the repetitions at the k-th of the
shared POINTS. Extra-P cannot write it; perfcompose can."""
from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Callable
from pathlib import Path

from perfcompose.data.experiment import Experiment, Line, Point, Series, check_negative_lines
from perfcompose.data.extrap_json import one_point_set
from perfcompose.data.perfcompose_json import plain_text
from perfcompose.errors import DataFormatError

KEYWORDS = ("PARAMETER", "POINTS", "REGION", "METRIC", "DATA")


def _floats(text: str, what: str, at: Callable[[], Line]) -> list[float]:
    out = []
    for tok in text.split():
        v: float | None = None
        with contextlib.suppress(ValueError):
            v = float(tok)
        if v is None or not math.isfinite(v):
            where = at()
            raise where.error(f"{what}: {tok!r} is not {'a number' if v is None else 'finite'}",
                              column=(where.source or "").find(tok) + 1 or None)
        out.append(v)
    return out


def _points(value: str, nparams: int, at: Callable[[], Line]) -> list[tuple[float, ...]]:
    if "(" in value:
        groups = re.findall(r"\(([^()]*)\)", value)
        rest = re.sub(r"\([^()]*\)", "", value).strip()
        if rest:
            raise at().error(f"unexpected text {rest!r} between point groups",
                             hint="write points as ( 4 10 ) ( 8 10 ) ...")
        coords = [tuple(_floats(g, "POINTS", at)) for g in groups]
    else:
        if nparams != 1:
            raise at().error(f"with {nparams} parameters, points must be grouped in parentheses",
                             hint="POINTS ( 4 10 ) ( 8 10 ) ...")
        coords = [(v,) for v in _floats(value, "POINTS", at)]
    for c in coords:
        if len(c) != nparams:
            raise at().error(f"point {c} has {len(c)} values for {nparams} parameters")
    return coords


def read(path: Path, text: str) -> Experiment:
    params: list[str] = []
    coords: list[tuple[float, ...]] = []
    points_line: dict[tuple[float, ...], int] = {}
    data: dict[tuple[str, str], list[tuple[int, list[float]]]] = {}
    negative: dict[tuple[str, str], list[tuple[Line, list[float]]]] = {}  # lines with a value below 0
    region: str | None = None
    metric = "time"
    lineno, src = 0, ""

    def at() -> Line:  # the line being read, for its errors
        return Line(path, lineno, src)

    for lineno, raw in enumerate(text.splitlines(), start=1):
        src = raw.rstrip("\r\n")
        stripped = src.strip()
        if not stripped or stripped.startswith("#"):
            continue
        keyword, _, value = " ".join(stripped.split()).partition(" ")  # value: its words one space apart
        if keyword not in KEYWORDS:
            raise at().error(f"unknown keyword {keyword!r}", column=src.find(keyword) + 1,
                             hint="Extra-P text files use " + ", ".join(KEYWORDS))
        if keyword == "PARAMETER":
            if coords:
                raise at().error("PARAMETER after POINTS", hint="name all parameters before the points")
            if not value.split():
                raise at().error("PARAMETER without a name")
            params.extend(value.split())
        elif keyword == "POINTS":
            if not params:
                raise at().error("POINTS before any PARAMETER")
            for c in _points(value, len(params), at):
                if c in points_line:
                    raise at().error(f"duplicate point {c}, first given on line {points_line[c]}")
                points_line[c] = lineno
                coords.append(c)
        elif keyword in ("REGION", "METRIC"):
            if not value:
                raise at().error(f"{keyword} without a name")
            if keyword == "REGION":
                region = value
            else:
                metric = value
        else:  # DATA
            if not coords:
                raise at().error("DATA before POINTS")
            values = _floats(value, "DATA", at)
            if not values:
                raise at().error("DATA line without values", hint="give the repetitions measured at this point")
            key = (region if region is not None else "", metric)
            rows = data.setdefault(key, [])
            if len(rows) >= len(coords):
                raise at().error(f"more DATA lines than the {len(coords)} points for "
                                 f"{key[0] or '(no region)'}/{metric}", hint="one DATA line per point, in POINTS "
                                 "order; a second block of the same region and metric is not allowed")
            rows.append((lineno, values))
            if min(values) < 0:
                negative.setdefault(key, []).append((at(), values))
    if not params:
        raise DataFormatError("no PARAMETER line", path=path, hint="start with e.g. 'PARAMETER x'")
    if not coords:
        raise DataFormatError("no POINTS line", path=path, hint="e.g. 'POINTS 4 8 16 32 64'")
    if not data:
        raise DataFormatError("no DATA lines", path=path)
    check_negative_lines(negative, lambda key: (values for _, values in data[key]))
    series = []
    for (reg, met), rows in data.items():
        if len(rows) != len(coords):
            raise DataFormatError(f"{reg or '(no region)'}/{met} has {len(rows)} DATA lines for {len(coords)} "
                                  "points", path=path, line=rows[-1][0],
                                  hint="every region and metric needs one DATA line per point")
        series.append(Series(met, tuple(Point(c, tuple(v)) for c, (_, v) in zip(coords, rows)), reg))
    return Experiment(tuple(params), tuple(series), source=str(path))


def dumps(experiment: Experiment) -> str:
    """The experiment as Extra-P text; every series must have the same points (Extra-P's rule)."""
    params = experiment.parameters
    if len(params) > 4:
        raise DataFormatError(f"Extra-P's text format allows at most 4 parameters, this has {len(params)}",
                              hint="write perfcompose JSON or Extra-P JSON instead")
    one_point_set(experiment, "Extra-P's text format")
    coords = [p.coordinate for p in experiment.series[0].points]
    lines = [f"PARAMETER {p}" for p in params]
    if len(params) == 1:
        lines.append("POINTS " + " ".join(plain_text(c[0]) for c in coords))
    else:
        lines.append("POINTS " + " ".join("( " + " ".join(map(plain_text, c)) + " )" for c in coords))
    for s in experiment.series:
        by_coord = {p.coordinate: p.values for p in s.points}
        lines += ["", f"REGION {s.region or 'main'}", f"METRIC {s.metric}"]
        lines.extend("DATA " + " ".join(repr(float(v)) for v in by_coord[c]) for c in coords)
    return "\n".join(lines) + "\n"
