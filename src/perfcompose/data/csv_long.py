"""CSV in long form: a row per repetition, a column per parameter, a ``value`` column, and optional
``region``, ``metric``, ``unit`` (and ``repetition``, ignored) naming the series."""
from __future__ import annotations

import csv
import io
import math
from pathlib import Path

from perfcompose.data.experiment import Experiment, Line, Point, Series, check_negative_lines
from perfcompose.data.perfcompose_json import plain_text
from perfcompose.errors import DataFormatError

RESERVED = ("region", "callpath", "metric", "unit", "value", "repetition")


def read(path: Path, text: str) -> Experiment:
    reader = csv.reader(io.StringIO(text))
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise DataFormatError("empty CSV file", path=path, line=1,
                              hint="the first line names the columns, e.g. x,value") from None
    if "value" not in header:
        raise DataFormatError("missing column 'value'", path=path, line=1, source_line=",".join(header),
                              hint="long form: one row per repetition, e.g. 'x,value'")
    if len(set(header)) != len(header):
        raise DataFormatError("a column name repeats", path=path, line=1, source_line=",".join(header))
    params = [h for h in header if h not in RESERVED]
    if not params:
        raise DataFormatError("no parameter columns", path=path, line=1, source_line=",".join(header),
                              hint="every column other than region, metric, unit, value, repetition "
                                   "is a parameter")
    col = {h: k for k, h in enumerate(header)}
    region_col = col.get("region", col.get("callpath"))
    groups: dict[tuple[str, str], dict[tuple[float, ...], list[float]]] = {}
    units: dict[tuple[str, str], str] = {}
    negative: dict[tuple[str, str], list[tuple[Line, list[float]]]] = {}  # rows with a value below 0
    param_cols, value_col = [col[p] for p in params], col["value"]

    def at(row: list[str], line: int) -> Line:
        return Line(path, line, ",".join(row))

    def number(name: str, row: list[str], line: int) -> float:
        cell = row[col[name]].strip()
        try:
            v = float(cell)
        except ValueError:
            raise at(row, line).error(f"column {name}: {cell!r} is not a number") from None
        if not math.isfinite(v):
            raise at(row, line).error(f"column {name}: {cell!r} is not finite")
        return v

    for row in reader:
        line = reader.line_num
        if not row or (not row[0].strip() and all(not c.strip() for c in row)):
            continue
        if len(row) != len(header):
            raise at(row, line).error(f"{len(row)} fields where the header has {len(header)}")
        try:  # a row of finite numbers and positive parameters, read at once (float() strips blanks)
            coord, value = tuple([float(row[k]) for k in param_cols]), float(row[value_col])
            valid = math.isfinite(value) and all(map(math.isfinite, coord)) and min(coord) > 0
        except ValueError:
            valid = False
        if not valid:  # the first bad cell, located
            coord, value = tuple(number(p, row, line) for p in params), number("value", row, line)
            for p, c in zip(params, coord):
                if c <= 0:
                    raise at(row, line).error(f"parameter {p} = {c!r} is not positive")
        key = (row[region_col].strip() if region_col is not None else "",
               row[col["metric"]].strip() if "metric" in col else "time")
        units.setdefault(key, row[col["unit"]].strip() if "unit" in col else "")
        groups.setdefault(key, {}).setdefault(coord, []).append(value)
        if value < 0:
            negative.setdefault(key, []).append((at(row, line), [value]))
    if not groups:
        raise DataFormatError("no data rows", path=path, line=2)
    check_negative_lines(negative, lambda key: groups[key].values())
    series = tuple(Series(metric, tuple(Point(c, tuple(v)) for c, v in pts.items()), region, units[(region, metric)])
                   for (region, metric), pts in groups.items())
    return Experiment(tuple(params), series, source=str(path))


def dumps(experiment: Experiment) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    named = len(experiment.series) > 1 or any(s.region for s in experiment.series)
    w.writerow((["region"] if named else []) + ["metric", "unit", *experiment.parameters, "repetition", "value"])
    for s in experiment.series:
        for p in s.points:
            for k, v in enumerate(p.values):
                w.writerow(([s.region] if named else []) + [s.metric, s.unit, *map(plain_text, p.coordinate),
                                                             k + 1, repr(float(v))])
    return out.getvalue()
