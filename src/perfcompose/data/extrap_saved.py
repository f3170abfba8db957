"""Extra-P's saved experiments (``.extra-p``, from its GUI and ``extrap --save-experiment``).

A zip archive holding ``experiment.json``: ``{"parameters": [...], "measurements": {callpath:
{metric: [{"coordinate": [...], "median": m, "mean": a, "minimum": ..., "maximum": ..., "std": s,
"repetitions": n, "values": [chunk, index] or null}, ...]}}, "modelers": [...]}``. Kept
repetitions are the ``index``-th NumPy array of ``values/<chunk>.vals`` (offsets in
``values/<chunk>.indx``); otherwise the point holds the saved statistics as its summary and its
mean (else median) as its value. Call-path names may end in Extra-P's tags (``\x03{"gpu": true}``,
or the newer ``callpaths`` map), kept as :attr:`~perfcompose.data.experiment.Series.tags`.
:func:`dumps` writes the same archive (repetitions kept, model sets given by the caller), which
Extra-P 4.2 opens."""
from __future__ import annotations

import contextlib
import io
import json
import struct
import zipfile
import zlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from perfcompose.data.experiment import Experiment, Point, Series, check_negatives, check_point
from perfcompose.errors import DataFormatError
from perfcompose.finite import is_finite_number
from perfcompose.limits import check_memory

ZIP_MAGIC = b"PK\x03\x04"
MEMBER = "experiment.json"


def sniff(head: bytes) -> bool:
    """Whether a file starting with ``head`` is a zip archive (the saved experiment is one)."""
    return head.startswith(ZIP_MAGIC)


VALUES_MAGIC = b"Extra-P VALUES\0\0"
INDEX_MAGIC = b"Extra-P INDEX\0\0\0"
FORMAT_VERSION = "4.2.5"  # the Extra-P release whose reader the written archives are checked against
_ARCHIVE_ERRORS = (zipfile.BadZipFile, UnicodeDecodeError, EOFError, ValueError, OSError, NotImplementedError,
                   RuntimeError, zlib.error, KeyError)


class _ValueStore:
    """The repetitions an archive keeps outside ``experiment.json``, read chunk by chunk on demand."""

    def __init__(self, archive: zipfile.ZipFile, path: Path):
        self.archive, self.path = archive, path
        self.chunks: dict[int, tuple[io.BytesIO, int, tuple[int, ...]]] = {}
        self.members = set(archive.namelist())
        self.has_values = any(n.startswith("values/") for n in self.members)

    def _chunk(self, chunk: int) -> tuple[io.BytesIO, int, tuple[int, ...]]:
        if chunk not in self.chunks:
            name = f"values/{chunk}"
            if f"{name}.vals" not in self.members or f"{name}.indx" not in self.members:
                raise DataFormatError(f"a point's repetitions are in {name}.vals, which the archive lacks",
                                      path=self.path, hint="save the experiment again with Extra-P")
            check_memory(2.0 * self.archive.getinfo(f"{name}.vals").file_size, f"reading {name}.vals")
            vals, index = self.archive.read(f"{name}.vals"), self.archive.read(f"{name}.indx")
            if not vals.startswith(VALUES_MAGIC) or not index.startswith(INDEX_MAGIC) or len(index) < 24:
                raise DataFormatError(f"{name}.vals or .indx is not an Extra-P value file", path=self.path)
            count = struct.unpack_from("<Q", index, 16)[0]
            if len(index) < 24 + 8 * count:
                raise DataFormatError(f"{name}.indx is cut short: {count} offsets announced", path=self.path)
            self.chunks[chunk] = io.BytesIO(vals), len(vals), struct.unpack_from(f"<{count}Q", index, 24)
        return self.chunks[chunk]

    def read(self, chunk: int, index: int, where: str) -> tuple[float, ...]:
        stream, size, offsets = self._chunk(chunk)
        if not 0 <= index < len(offsets) or not 0 <= offsets[index] < size:
            raise DataFormatError(f"{where}: repetitions {index} of values/{chunk} do not exist", path=self.path)
        try:
            stream.seek(offsets[index])
            array = np.lib.format.read_array(stream, allow_pickle=False)
        except (ValueError, EOFError, OSError) as exc:
            raise DataFormatError(f"{where}: repetitions {index} of values/{chunk} are damaged ({exc})",
                                  path=self.path) from None
        flat = np.asarray(array, dtype=float).ravel() if array.dtype.kind in "iuf" else np.array([np.nan])
        if not len(flat) or not np.all(np.isfinite(flat)):
            raise DataFormatError(f"{where}: a repetition is not a finite number", path=self.path)
        return tuple(flat.tolist())


def _document(path: Path, archive: zipfile.ZipFile) -> Any:
    if MEMBER not in archive.namelist():
        raise DataFormatError(f"a zip archive without {MEMBER}: not an Extra-P saved experiment", path=path,
                              hint="give the .extra-p file Extra-P saved, or export its data as text")
    check_memory(archive.getinfo(MEMBER).file_size * 10.0, f"reading {MEMBER} in {path.name}")
    text = archive.read(MEMBER).decode("utf-8")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataFormatError(f"{MEMBER} in the archive: invalid JSON: {exc.msg}", path=path, line=exc.lineno,
                              column=exc.colno) from None


#: the statistics Extra-P saves for a point, by the name of the aggregate each stands for
_STATISTICS = {"mean": "mean", "median": "median", "minimum": "min", "maximum": "max", "std": "std",
               "repetitions": "repetitions"}
#: what Extra-P appends to a call path's name before its tags (JSON), in files that keep them there
TAG_SEPARATOR = "\x03"


def split_tags(name: str) -> tuple[str, dict[str, Any]]:
    """A call path's name without the tags Extra-P may append to it (``name\x03{"gpu": true}``),
    and the tags (empty where there are none, or where they are not a JSON object)."""
    bare, sep, text = name.partition(TAG_SEPARATOR)
    tags = None
    with contextlib.suppress(ValueError):
        tags = json.loads(text) if sep else None
    return bare, tags if isinstance(tags, dict) else {}


def _point(coordinate: tuple[float, ...], entry: Any, where: str, store: _ValueStore) -> Point:
    """The point of a saved entry: its kept repetitions, else its saved statistics."""
    if not isinstance(entry, dict):
        raise DataFormatError(f"{where}: a point is not an object", path=store.path)
    values = entry.get("values")
    if isinstance(values, list) and values:
        if len(values) == 2 and all(type(v) is int for v in values) and store.has_values:
            return Point(coordinate, store.read(values[0], values[1], where))
        if not all(is_finite_number(v) for v in values):
            raise DataFormatError(f"{where}: a repetition is not a finite number", path=store.path)
        return Point(coordinate, tuple(float(v) for v in values))
    summary = {name: float(entry[key]) for key, name in _STATISTICS.items() if is_finite_number(entry.get(key))}
    for key in ("mean", "median"):
        if key in summary:
            return Point(coordinate, (summary[key],), summary)
    raise DataFormatError(f"{where}: a point has neither values nor a finite mean or median", path=store.path)


def _in_archive(path: Path, use: Callable[[zipfile.ZipFile], Any]) -> Any:
    data = path.read_bytes()
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return use(archive)
    except _ARCHIVE_ERRORS as exc:
        raise DataFormatError(f"a damaged Extra-P saved experiment ({exc})", path=path) from None


def document(path: Path) -> Any:
    """The parsed ``experiment.json`` of a saved experiment (its model sets are under ``modelers``)."""
    return _in_archive(path, lambda archive: _document(path, archive))


def read(path: Path) -> Experiment:
    return _in_archive(path, lambda archive: _experiment(path, _document(path, archive),
                                                               _ValueStore(archive, path)))


def _experiment(path: Path, doc: Any, store: _ValueStore) -> Experiment:
    params = doc.get("parameters") if isinstance(doc, dict) else None
    if not isinstance(params, list) or not params or not all(isinstance(p, str) for p in params):
        raise DataFormatError(f"{MEMBER}: missing or invalid 'parameters' (a list of names)", path=path)
    meas = doc.get("measurements")
    if not isinstance(meas, dict) or not meas or not all(isinstance(m, dict) for m in meas.values()):
        raise DataFormatError(f"{MEMBER}: missing or empty 'measurements' (callpath -> metric -> points)", path=path)
    # the tags of the call paths that newer files list apart ("callpaths": {name: {"tags": ...}})
    listed = doc.get("callpaths") if isinstance(doc.get("callpaths"), dict) else {}
    listed_tags = {str(name): dict(entry["tags"]) for name, entry in listed.items()
                   if isinstance(entry, dict) and isinstance(entry.get("tags"), dict)}
    series = []
    for callpath, metrics in meas.items():
        name, tags = split_tags(str(callpath))
        tags = {**listed_tags.get(name, {}), **tags}
        for metric, entries in metrics.items():
            where = f"{MEMBER}: {name}/{metric}"
            if not isinstance(entries, list):
                raise DataFormatError(f"{where}: expected a list of points", path=path)
            points: list[Point] = []
            seen: dict[tuple[float, ...], int] = {}
            for entry in entries:
                coordinate = entry.get("coordinate") if isinstance(entry, dict) else None
                if (not isinstance(coordinate, list) or len(coordinate) != len(params)
                        or not all(is_finite_number(c) for c in coordinate)):
                    raise DataFormatError(f"{where}: a coordinate is not {len(params)} finite numbers", path=path)
                point = _point(tuple(float(c) for c in coordinate), entry, where, store)
                check_point(params, point, seen, where, path, None)
                points.append(point)
            check_negatives(points, f"{where}, point {{}}".format, path)
            if points:
                series.append(Series(str(metric), tuple(points), name, tags=tags))
    if not series:
        raise DataFormatError(f"{MEMBER}: no measured points", path=path)
    return Experiment(tuple(params), tuple(series), source=str(path))


def _point_entry(point: Point, reference: list[int] | None) -> dict[str, Any]:
    """A measured point as Extra-P stores it: its statistics (population standard deviation, as
    Extra-P computes it) and a reference to its repetitions; a point read as saved statistics
    keeps them, without repetitions."""
    v = np.asarray(point.values, dtype=float)
    entry: dict[str, Any] = {"coordinate": [float(c) for c in point.coordinate], "median": float(np.median(v)),
                             "mean": float(v.mean()), "minimum": float(v.min()), "maximum": float(v.max()),
                             "std": float(v.std()), "repetitions": len(v), "values": reference}
    if point.summary is not None:
        for key, name in _STATISTICS.items():
            if name in point.summary:
                entry[key] = int(point.summary[name]) if key == "repetitions" else point.summary[name]
        entry["values"] = None
    return entry


def dumps(experiment: Experiment, model_sets: Sequence[Mapping[str, Any]] = ()) -> bytes:
    """The experiment as an Extra-P saved experiment (a zip archive), every point with its
    repetitions, and ``model_sets`` as its ``modelers`` (see
    :func:`perfcompose.fit.extrap_models.model_set`); call paths are the series' regions
    (``main`` where a series has none)."""
    measurements: dict[str, dict[str, list[dict[str, Any]]]] = {}
    arrays: list[np.ndarray] = []
    callpaths: dict[str, dict[str, Any]] = {}
    for s in experiment.series:
        entries = measurements.setdefault(s.region or "main", {}).setdefault(s.metric, [])
        if s.tags:
            callpaths[s.region or "main"] = {"tags": dict(s.tags)}
        for p in s.points:  # a point read as saved statistics keeps no repetitions
            entries.append(_point_entry(p, None if p.summary is not None else [0, len(arrays)]))
            if p.summary is None:
                arrays.append(np.asarray(p.values, dtype=float))
    doc = {"Extra-P": FORMAT_VERSION, "parameters": list(experiment.parameters),
           **({"callpaths": callpaths} if callpaths else {}), "measurements": measurements,
           "modelers": [dict(m) for m in model_sets]}
    vals, offsets = io.BytesIO(), []   # values/0.vals: the arrays one after the other; .indx: their offsets
    vals.write(VALUES_MAGIC)
    for array in arrays:
        offsets.append(vals.tell())
        np.lib.format.write_array(vals, array, allow_pickle=False)
    index = INDEX_MAGIC + struct.pack(f"<Q{len(offsets)}Q", len(offsets), *offsets)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        archive.writestr(zipfile.ZipInfo("values/0.vals"), vals.getvalue(), compress_type=zipfile.ZIP_STORED)
        archive.writestr(zipfile.ZipInfo("values/0.indx"), index, compress_type=zipfile.ZIP_STORED)
        archive.writestr(MEMBER, json.dumps(doc))
    return buf.getvalue()


def write(experiment: Experiment, path: Path, model_sets: Sequence[Mapping[str, Any]] = ()) -> None:
    path.write_bytes(dumps(experiment, model_sets))
