"""Extra-P 3's binary experiment files (``extrap --extra-p-3``), read only.

After a byte-order mark, ``EXTRAP_EXPERIMENT`` and a version, a stream of objects (strings a
32-bit length and UTF-8, ids and counts 64-bit, values doubles), each led by its type's name:
``Parameter``, ``Metric``, ``Region``, ``Callpath``, ``Coordinate`` and ``ExperimentPoint`` hold
the measurements, models and generators are read past (newer generators add point-selection
strategies, and every model an error). A point holds its statistics as its summary and its mean
(else median) as its value."""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from pathlib import Path

from perfcompose.data.experiment import Experiment, Point, Series
from perfcompose.errors import DataFormatError

MAGIC = b"EXTRAP_EXPERIMENT"
_SINGLE_STRATEGIES = {"FIRST_POINTS_FOUND", "MAX_NUMBER_POINTS", "CHEAPEST_POINTS"}
_MULTI_STRATEGIES = {"INCREASING_COST", "DECREASING_COST"}


def sniff(head: bytes) -> bool:
    """Whether a file starting with ``head`` is an Extra-P 3 experiment."""
    return len(head) >= 6 + len(MAGIC) and head[6:6 + len(MAGIC)] == MAGIC


class _Stream:
    def __init__(self, data: bytes, path: Path):
        self.data, self.pos, self.path = data, 0, path
        self.order = "<" if data[:2] == b"\x01\x00" else ">"

    def fail(self, what: str) -> DataFormatError:
        return DataFormatError(f"Extra-P 3 experiment: {what} (at byte {self.pos})", path=self.path,
                               hint="the file may be truncated or written by another program")

    def unpack(self, pattern: str) -> tuple:
        s = struct.Struct(self.order + pattern)
        if self.pos + s.size > len(self.data):
            raise self.fail("the file ends inside a record")
        out = s.unpack_from(self.data, self.pos)
        self.pos += s.size
        return out

    def integer(self) -> int:
        return int(self.unpack("q")[0])

    def value(self) -> float:
        return float(self.unpack("d")[0])

    def string(self) -> str:
        if self.pos == len(self.data):
            return ""
        (size,) = self.unpack("I")
        if self.pos + size > len(self.data):
            raise self.fail("the file ends inside a string")
        raw = self.data[self.pos:self.pos + size]
        self.pos += size
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise self.fail("a string is not UTF-8") from None

    def mark(self) -> str:
        """The string after the byte-order mark."""
        self.pos = 2
        return self.string()

    def skip(self, kinds: str) -> None:
        """Read past values of the kinds named in turn: ``i`` an integer, ``s`` a string, ``d`` a double."""
        for kind in kinds:
            {"i": self.integer, "s": self.string, "d": self.value}[kind]()

    def count(self) -> int:
        n = self.integer()
        if n < 0 or n > len(self.data):
            raise self.fail(f"a count of {n}")
        return n


@dataclass
class _State:
    parameters: list[str] = field(default_factory=list)
    metrics: list[str] = field(default_factory=list)
    regions: dict[int, str] = field(default_factory=dict)
    region_names: dict[str, int] = field(default_factory=dict)
    callpaths: dict[int, str] = field(default_factory=dict)
    coordinates: dict[int, tuple[float, ...]] = field(default_factory=dict)
    points: dict[tuple[str, str], list[Point]] = field(default_factory=dict)
    sparse: bool = False


def read(path: Path) -> Experiment:
    data = path.read_bytes()
    s = _Stream(data, path)
    if len(data) < 2 or s.mark() != "EXTRAP_EXPERIMENT":
        raise s.fail("no EXTRAP_EXPERIMENT mark")
    s.string()  # version
    st = _State()
    prefix = s.string()
    while prefix:
        handler = _HANDLERS.get(prefix)
        if handler is None:
            raise s.fail(f"unknown object {prefix!r}")
        handler(s, st)
        prefix = s.string()
    if not st.parameters or not st.points:
        raise s.fail("no parameters or no measured points")
    series = tuple(Series(metric, tuple(points), region) for (region, metric), points in st.points.items())
    return Experiment(tuple(st.parameters), series, source=str(path))


def _parameter(s: _Stream, st: _State) -> None:
    s.integer()
    st.parameters.append(s.string())


def _metric(s: _Stream, st: _State) -> None:
    s.integer()
    st.metrics.append(s.string())
    s.string()  # unit


def _region(s: _Stream, st: _State) -> None:
    rid, name = s.integer(), s.string()
    s.skip("si")  # its source file and first line
    if rid not in st.regions and name in st.region_names:
        st.region_names[name] += 1
        name = f"{name} #{st.region_names[name]}"
    else:
        st.region_names[name] = 0
    st.regions[rid] = name


def _callpath(s: _Stream, st: _State) -> None:
    cid, region, parent = s.integer(), s.integer(), s.integer()
    if region not in st.regions or (parent != -1 and parent not in st.callpaths):
        raise s.fail(f"call path {cid} names an unknown region or parent")
    name = st.regions[region]
    st.callpaths[cid] = f"{st.callpaths[parent]}->{name}" if parent != -1 else name


def _coordinate(s: _Stream, st: _State) -> None:
    cid = s.integer()
    parts: list[float | None] = [None] * len(st.parameters)
    for _ in range(s.count()):
        name, v = s.string(), s.value()
        if name not in st.parameters:
            raise s.fail(f"coordinate {cid} names the unknown parameter {name!r}")
        parts[st.parameters.index(name)] = v
    if any(p is None for p in parts):
        raise s.fail(f"coordinate {cid} lacks a value for a parameter")
    st.coordinates[cid] = tuple(float(p) for p in parts if p is not None)


def _point(s: _Stream, st: _State) -> None:
    (coord, count, mean, _m0, _m1, std, median, _d0, _d1, low, high, metric, callpath) = s.unpack("qqdddddddddqq")
    if coord not in st.coordinates or not 0 <= metric < len(st.metrics) or callpath not in st.callpaths:
        raise s.fail("a point names an unknown coordinate, metric or call path")
    stored = {"mean": mean, "median": median, "min": low, "max": high, "std": std}
    summary = {k: v for k, v in stored.items() if math.isfinite(v)}
    if count > 0:
        summary["repetitions"] = float(count)
    value = summary.get("mean", summary.get("median"))
    if value is None:
        raise s.fail(f"a point of {st.callpaths[callpath]} has no finite value")
    st.points.setdefault((st.callpaths[callpath], st.metrics[metric]), []).append(
        Point(st.coordinates[coord], (value,), summary))


def _strategies(s: _Stream, st: _State) -> None:
    """The point-selection record of newer files, if it is there (else the stream is rewound)."""
    start = s.pos
    try:
        s.skip("i")
        single = s.string()
        s.skip("ii")
        multi = s.string()
    except DataFormatError:
        single = multi = ""
    if single in _SINGLE_STRATEGIES and multi in _MULTI_STRATEGIES:
        st.sparse = True
    else:
        s.pos = start


def _single_generator(s: _Stream, st: _State) -> None:
    s.skip("ssds")  # user name, cross-validation method, epsilon, mean or median
    _strategies(s, st)


def _single_simple_generator(s: _Stream, st: _State) -> None:
    _single_generator(s, st)
    for _ in range(s.count()):
        _expect(s, "CompoundTerm")
        _compound_term(s)
    s.integer()  # most terms


def _multi_generator(s: _Stream, st: _State) -> None:
    s.skip("ss")  # user name, mean or median
    _strategies(s, st)


def _expect(s: _Stream, name: str) -> None:
    got = s.string()
    if got != name:
        raise s.fail(f"expected {name}, found {got!r}")


def _compound_term(s: _Stream) -> None:
    s.value()
    for _ in range(s.count()):
        _expect(s, "SimpleTerm")
        s.skip("sd")


def _function(s: _Stream, prefix: str) -> None:
    if prefix == "SingleParameterFunction":
        s.value()
        for _ in range(s.count()):
            _expect(s, "CompoundTerm")
            _compound_term(s)
    elif prefix == "MultiParameterFunction":
        s.value()
        for _ in range(s.count()):
            s.value()
            for _ in range(s.count()):
                s.string()
                _expect(s, "CompoundTerm")
                _compound_term(s)
    elif prefix == "SimpleTerm":
        s.skip("sd")
    elif prefix == "CompoundTerm":
        _compound_term(s)
    elif prefix != "Function":
        raise s.fail(f"unknown function type {prefix!r}")


def _model(s: _Stream, st: _State) -> None:
    s.skip("iii")  # metric, call path, generator
    _function(s, s.string())
    for _ in range(3 * 2):     # confidence, error-cone and noise intervals: upper and lower functions
        _function(s, s.string())
    s.skip("dddd" if st.sparse else "ddd")  # RSS, adjusted R², SMAPE (and the relative error)
    for _ in range(s.count()):
        s.integer()
    for _ in range(s.count()):
        s.string()
        for _ in range(s.count()):
            s.skip("dd")


_HANDLERS = {
    "Parameter": _parameter, "Metric": _metric, "Region": _region, "Callpath": _callpath,
    "Coordinate": _coordinate, "ExperimentPoint": _point, "ModelComment": lambda s, st: s.skip("is"), "Model": _model,
    "SingleParameterSimpleModelGenerator": _single_simple_generator,
    "SingleParameterRefiningModelGenerator": _single_generator,
    "MultiParameterSimpleModelGenerator": _multi_generator,
    "MultiParameterSparseModelGenerator": _multi_generator,
}
