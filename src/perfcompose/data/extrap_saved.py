"""Extra-P's saved experiments (``.extra-p``, written by its GUI and ``extrap --save-experiment``), read only.

A zip archive holding ``experiment.json``: ``{"parameters": [...], "measurements": {callpath:
{metric: [{"coordinate": [...], "median": m, "mean": a, "minimum": ..., "maximum": ..., "std": s,
"repetitions": n, "values": [...] or null}, ...]}}, "modelers": [...]}``. A point's repetitions
are its ``values`` where they were kept; otherwise the point is its median (its mean where no
median was saved), one value, as Extra-P itself models such a file. The modelers' models are
not read: perfcompose fits its own.
"""
from __future__ import annotations

import io
import json
import zipfile
import zlib
from pathlib import Path
from typing import Any

from perfcompose.data.experiment import Experiment, Point, Series, check_point
from perfcompose.errors import DataFormatError
from perfcompose.finite import is_finite_number
from perfcompose.limits import check_memory

ZIP_MAGIC = b"PK\x03\x04"
MEMBER = "experiment.json"


def sniff(head: bytes) -> bool:
    """Whether a file starting with ``head`` is a zip archive (the saved experiment is one)."""
    return head.startswith(ZIP_MAGIC)


def _document(path: Path, data: bytes) -> Any:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            if MEMBER not in archive.namelist():
                raise DataFormatError(f"a zip archive without {MEMBER}: not an Extra-P saved experiment", path=path,
                                      hint="give the .extra-p file Extra-P saved, or export its data as text")
            check_memory(archive.getinfo(MEMBER).file_size * 10.0, f"reading {MEMBER} in {path.name}")
            text = archive.read(MEMBER).decode("utf-8")
    except (zipfile.BadZipFile, UnicodeDecodeError, EOFError, ValueError, OSError, NotImplementedError, RuntimeError,
            zlib.error) as exc:
        raise DataFormatError(f"a damaged Extra-P saved experiment ({exc})", path=path) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataFormatError(f"{MEMBER} in the archive: invalid JSON: {exc.msg}", path=path, line=exc.lineno,
                              column=exc.colno) from None


def _values(entry: Any, where: str, path: Path) -> tuple[float, ...]:
    if not isinstance(entry, dict):
        raise DataFormatError(f"{where}: a point is not an object", path=path)
    values = entry.get("values")
    if isinstance(values, list) and values:
        if not all(is_finite_number(v) for v in values):
            raise DataFormatError(f"{where}: a repetition is not a finite number", path=path)
        return tuple(float(v) for v in values)
    for key in ("median", "mean"):
        if is_finite_number(entry.get(key)):
            return (float(entry[key]),)
    raise DataFormatError(f"{where}: a point has neither values nor a finite median or mean", path=path)


def read(path: Path, data: bytes | None = None) -> Experiment:
    data = path.read_bytes() if data is None else data
    doc = _document(path, data)
    params = doc.get("parameters") if isinstance(doc, dict) else None
    if not isinstance(params, list) or not params or not all(isinstance(p, str) for p in params):
        raise DataFormatError(f"{MEMBER}: missing or invalid 'parameters' (a list of names)", path=path)
    meas = doc.get("measurements")
    if not isinstance(meas, dict) or not meas or not all(isinstance(m, dict) for m in meas.values()):
        raise DataFormatError(f"{MEMBER}: missing or empty 'measurements' (callpath -> metric -> points)", path=path)
    series = []
    for callpath, metrics in meas.items():
        for metric, entries in metrics.items():
            where = f"{MEMBER}: {callpath}/{metric}"
            if not isinstance(entries, list):
                raise DataFormatError(f"{where}: expected a list of points", path=path)
            points: list[Point] = []
            seen: dict[tuple[float, ...], int] = {}
            for entry in entries:
                coordinate = entry.get("coordinate") if isinstance(entry, dict) else None
                if (not isinstance(coordinate, list) or len(coordinate) != len(params)
                        or not all(is_finite_number(c) for c in coordinate)):
                    raise DataFormatError(f"{where}: a coordinate is not {len(params)} finite numbers", path=path)
                point = Point(tuple(float(c) for c in coordinate), _values(entry, where, path))
                check_point(params, point, seen, where, path, None)
                points.append(point)
            if points:
                series.append(Series(str(metric), tuple(points), str(callpath)))
    if not series:
        raise DataFormatError(f"{MEMBER}: no measured points", path=path)
    return Experiment(tuple(params), tuple(series), source=str(path))
