"""Extra-P's inputs of one measurement per line: JSON Lines (``extrap --json`` on a ``.jsonl`` file)
and Talpas (``extrap --talpas``, JSON once each ``;`` is read as ``,``).

Each non-blank line is a JSON object with the parameter values, optionally a call path and a
metric (Talpas: both required), and a value (or a list of values). Lines of the same call path,
metric and coordinate are repetitions of one point, in file order. The first line fixes the
parameters and their order.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfcompose.data.experiment import Experiment, Line, Point, Series, check_negative_lines
from perfcompose.errors import DataFormatError


@dataclass(frozen=True)
class Layout:
    """How one format spells a measurement line."""

    name: str  # the format's name in messages
    params_key: str  # the object of parameter values
    required: tuple[str, ...]  # keys every line must have besides params_key and "value"
    decode: Callable[[str], str]  # the line as standard JSON, character positions kept
    example: str  # one well-formed line, for hints
    looks: Callable[[dict[str, Any]], bool]  # whether a first line's object is in this format

    def sniff(self, line: str) -> bool:
        """Whether a file whose first non-blank line is ``line`` (a JSON object) is in this format."""
        try:
            record = json.loads(self.decode(line))
        except ValueError:
            return False
        return isinstance(record, dict) and self.looks(record)

    def read(self, path: Path, text: str) -> Experiment:
        """Read every line into repetitions per (call path, metric, coordinate); linear in the file size."""
        params: tuple[str, ...] | None = None
        groups: dict[tuple[str, str], dict[tuple[float, ...], list[float]]] = {}
        negative: dict[tuple[str, str], list[tuple[Line, list[float]]]] = {}  # lines with a value below 0
        for lineno, raw in enumerate(text.splitlines(), start=1):
            if not raw.strip():
                continue
            where = Line(path, lineno, raw)
            record = _record(raw, self, where)
            if params is None:
                params = _parameters(record[self.params_key], self, where)
            coordinate = _coordinate(record[self.params_key], params, self, where)
            key = (_name(record, "callpath", where), _name(record, "metric", where) or "time")
            values = _values(record["value"], where)
            groups.setdefault(key, {}).setdefault(coordinate, []).extend(values)
            if min(values) < 0:
                negative.setdefault(key, []).append((where, values))
        if params is None:
            raise DataFormatError("no measurement lines", path=path,
                                  hint=f"one object per line, e.g. {self.example}")
        check_negative_lines(negative, lambda key: groups[key].values())
        series = tuple(Series(metric, tuple(Point(c, tuple(v)) for c, v in points.items()), region)
                       for (region, metric), points in groups.items())
        return Experiment(params, series, source=str(path))


JSON_LINES = Layout(
    name="JSON Lines", params_key="params", required=(), decode=lambda line: line,
    example='{"params": {"x": 4}, "callpath": "main", "metric": "time", "value": 1.5}',
    looks=lambda record: "params" in record)
TALPAS = Layout(
    name="Talpas", params_key="parameters", required=("callpath", "metric"),
    decode=lambda line: line.replace(";", ","),
    example='{"parameters": {"x": 20}; "metric": "time"; "callpath": "compute"; "value": 82.0}',
    looks=lambda record: (isinstance(record.get("parameters"), dict) and "value" in record
                          and ("callpath" in record or "metric" in record)))


def _record(raw: str, layout: Layout, where: Line) -> dict[str, Any]:
    try:
        record = json.loads(layout.decode(raw), parse_constant=float)
    except json.JSONDecodeError as exc:
        raise where.error(f"invalid {layout.name} line: {exc.msg}", column=exc.colno,
                          hint=f"one object per line, e.g. {layout.example}") from None
    if not isinstance(record, dict):
        raise where.error(f"a {layout.name} line holds one object, not {type(record).__name__}",
                          hint=f"e.g. {layout.example}")
    for key in (layout.params_key, *layout.required, "value"):
        if key not in record:
            raise where.error(f"missing property '{key}'", hint=f"e.g. {layout.example}")
    return record


def _parameters(values: Any, layout: Layout, where: Line) -> tuple[str, ...]:
    if not isinstance(values, dict) or not values:
        raise where.error(f"'{layout.params_key}' must map parameter names to values",
                          hint=f"e.g. {layout.example}")
    for name in values:
        if not name.isidentifier() or name.startswith("_"):
            raise where.error(f"parameter name {name!r} is not an identifier",
                              hint="use names like x, n, p, size")
    return tuple(values)


def _coordinate(values: Any, params: tuple[str, ...], layout: Layout, where: Line) -> tuple[float, ...]:
    if not isinstance(values, dict) or set(values) != set(params):
        got = sorted(values) if isinstance(values, dict) else values
        raise where.error(f"'{layout.params_key}' names {got}, the first line {list(params)}",
                          hint="every line needs a value for each parameter and no others")
    coordinate = tuple(where.number(values[p], f"parameter {p}") for p in params)
    for name, c in zip(params, coordinate):
        if c <= 0:
            raise where.error(f"parameter {name} = {c!r} is not positive",
                              hint="parameters are positive reals")
    return coordinate


def _name(record: dict[str, Any], key: str, where: Line) -> str:
    value = record.get(key, "")
    if not isinstance(value, str):
        raise where.error(f"'{key}' must be a string, got {json.dumps(value)}")
    return value


def _values(value: Any, where: Line) -> list[float]:
    values = value if isinstance(value, list) else [value]
    if not values:
        raise where.error("'value' is an empty list", hint="give at least one measured value")
    return [where.number(v, "value") for v in values]
