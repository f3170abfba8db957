"""Call-tree profiles read through LLNL's Hatchet and Thicket (the ``profiles`` extra): a folder of
runs, one profile per configuration (:data:`READERS`), or a Thicket read in Python.

One series per metric and call path (``main->solve->MPI_Allreduce``), one point per run. A run's
coordinate comes from its metadata (``p=mpi.world.size``) or its file name (``n=file``: the
number after ``n``, or the only number: ``64_cores.cali`` is ``p=64``). Runs at one coordinate
are repetitions; ranks and threads combine as CUBE4's do (``scaling``, :mod:`perfcompose.data.cube`);
a node found twice on one call path counts once, its values summed."""
from __future__ import annotations

import json
import math
import re
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from perfcompose.choices import Scaling
from perfcompose.data import cube
from perfcompose.data.experiment import Experiment
from perfcompose.errors import DataFormatError
from perfcompose.extras import require

#: the parameter a folder of runs gets where none is named: the MPI rank count Caliper records
DEFAULT_PARAMETERS: dict[str, str] = {"p": "mpi.world.size"}
#: the source of a parameter that is read from each run's file name
FILE = "file"
#: the extensions of profile files, left out of the name a parameter is read from
_EXTENSIONS = (".cali", ".json", ".pstats", ".prof")
#: the extensions of files that are a run of a folder of runs and nothing else
RUN_FILES = (".cali", ".pstats", ".prof")
_UNITS = {"sec": "s", "seconds": "s", "usec": "us", "msec": "ms", "nsec": "ns"}
_HINT = ("name each parameter and where its value is: --param p=mpi.world.size (a metadata key of every "
         "run) or --param n=file (the number in each run's file name)")


@dataclass(frozen=True)
class Reader:
    """A format Hatchet reads: which paths hold it and how a run's frame is read."""

    name: str
    matches: Callable[[Path], bool]
    read: Callable[[Any, Path], Any]
    #: the unit of each metric where the format states it
    units: Callable[[Path], dict[str, str]] = lambda path: {}


def _json_keys(path: Path) -> set[str]:
    if path.suffix.lower() != ".json" or not path.is_file():
        return set()
    try:
        doc = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return set()
    return set(doc) if isinstance(doc, dict) else set()


def _cali_units(path: Path) -> dict[str, str]:
    """Each metric's unit as the Caliper file states it (``attribute.unit``), by Hatchet's column name."""
    import caliperreader

    reader = caliperreader.CaliperReader()
    reader.read(str(path))
    out = {}
    for name in reader.attributes():
        meta = reader.attribute(name).metadata()
        if "attribute.unit" in meta:
            out[meta.get("attribute.alias", name)] = _UNITS.get(meta["attribute.unit"], meta["attribute.unit"])
    return out


def _hpctoolkit_units(path: Path) -> dict[str, str]:
    """HPCToolkit names a time metric ``CPUTIME (usec)``; Hatchet names it ``time``."""
    text = (path / "experiment.xml").read_text(errors="replace")
    found = re.search(r'<Metric [^>]*n="[A-Z_]*TIME \((\w+)\)', text)
    unit = _UNITS.get(found.group(1), "") if found else ""
    return {"time": unit, "time (inc)": unit} if unit else {}


#: the formats a folder of runs may hold, in the order they are tried
READERS: tuple[Reader, ...] = (
    Reader("caliper", lambda p: p.suffix == ".cali", lambda ht, p: ht.GraphFrame.from_caliperreader(str(p)),
           _cali_units),
    Reader("caliper-json", lambda p: {"data", "columns", "nodes"} <= _json_keys(p),
           lambda ht, p: ht.GraphFrame.from_caliper(str(p), node_ordering=False)),
    Reader("hpctoolkit", lambda p: (p / "experiment.xml").is_file(),
           lambda ht, p: ht.GraphFrame.from_hpctoolkit(str(p)), _hpctoolkit_units),
    Reader("hpctoolkit-latest", lambda p: (p / "meta.db").is_file(),
           lambda ht, p: ht.GraphFrame.from_hpctoolkit_latest(str(p)), lambda p: {"time": "s", "time (inc)": "s"}),
    Reader("tau", lambda p: p.is_dir() and any(p.glob("profile.*.*.*")), lambda ht, p: ht.GraphFrame.from_tau(str(p)),
           lambda p: {"time": "us", "time (inc)": "us"}),
    Reader("cprofile", lambda p: p.suffix in (".pstats", ".prof"), lambda ht, p: ht.GraphFrame.from_cprofile(str(p)),
           lambda p: {"time": "s", "time (inc)": "s"}),
    Reader("pyinstrument", lambda p: "root_frame" in _json_keys(p),
           lambda ht, p: ht.GraphFrame.from_pyinstrument(str(p)), lambda p: {"time": "s", "time (inc)": "s"}),
)


def runs(directory: Path) -> list[tuple[Path, Reader]]:
    """The runs of a folder: its entries in a format Hatchet reads, by name."""
    found = [(p, next((r for r in READERS if r.matches(p)), None))
             for p in sorted(directory.iterdir()) if not p.name.startswith(".")]
    return [(p, r) for p, r in found if r is not None]


def parse_parameters(items: Iterable[str]) -> dict[str, str]:
    """``["p=mpi.world.size", "n=file"]`` -> ``{"p": "mpi.world.size", "n": "file"}``.

    >>> parse_parameters(["p=mpi.world.size", "n=file"])
    {'p': 'mpi.world.size', 'n': 'file'}
    """
    out: dict[str, str] = {}
    for item in items:
        name, sep, source = (s.strip() for s in item.partition("="))
        if not sep or not name.isidentifier() or not source:
            raise DataFormatError(f"--param {item!r} is not NAME=SOURCE", hint=_HINT)
        if name in out:
            raise DataFormatError(f"--param names {name!r} twice", hint=_HINT)
        out[name] = source
    return out


def file_value(name: str, path: Path) -> float | None:
    """The value of parameter ``name`` in a run's file name: the number right after ``name``
    (``lulesh.n30.p64.cali``), else the name's only number (``64_cores.cali``); None if neither.

    >>> [file_value("p", Path(name)) for name in ("lulesh.n30.p64.cali", "64_cores.cali", "cpi.p8")]
    [64.0, 64.0, 8.0]
    """
    stem = path.name.removesuffix(path.suffix) if path.suffix in _EXTENSIONS else path.name
    after = re.search(rf"(?<![A-Za-z]){re.escape(name)}[=_]?(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)", stem)
    if after:
        return float(after.group(1))
    numbers = re.findall(r"\d+(?:\.\d+)?", stem)
    return float(numbers[0]) if len(numbers) == 1 else None


def coordinate(parameters: Mapping[str, str], metadata: Mapping[str, Any], path: Path) -> tuple[float, ...]:
    """A run's value of each parameter, from its metadata or its file name (see the module)."""
    out = []
    for name, source in parameters.items():
        value: Any = file_value(name, path) if source == FILE else metadata.get(source)
        where = "its file name" if source == FILE else f"its metadata key {source!r}"
        if value is None:
            numeric = ", ".join(sorted(k for k, v in metadata.items() if _number(v) is not None))
            raise DataFormatError(f"no value of parameter {name!r} in {where}", path=path,
                                  hint=_HINT + (f"; its numeric metadata keys: {numeric}" if numeric else ""))
        number = _number(value)
        if number is None or number <= 0:
            raise DataFormatError(f"parameter {name!r} is {value!r} in {where}; a parameter value is a number above 0",
                                  path=path, hint=_HINT)
        out.append(number)
    return tuple(out)


def _number(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def call_paths(graph: Any) -> dict[Any, str]:
    """Each node of a Hatchet graph and its call path (:func:`~perfcompose.data.cube.call_paths`; some
    of Hatchet's readers link no parents)."""
    return cube.call_paths(graph.roots, lambda node: str(node.frame.get("name")), lambda node: node.children)


def _run_values(frames: Any, run: str) -> Iterable[tuple[str, str, Any, np.ndarray]]:
    """(metric, call path, run, values over the run's locations) of a GraphFrame or a Thicket, its
    dataframe indexed by node and locations (rank, thread), ``run`` naming the level that tells
    runs apart (if any). Its metrics: the exclusive ones, and an inclusive one only where it has no
    exclusive twin (``time (inc)`` beside ``time``: analyze derives the other kind)."""
    frame, exclusive = frames.dataframe, frames.exc_metrics
    names = list(exclusive) + [m for m in frames.inc_metrics if m.removesuffix(" (inc)") not in exclusive]
    metrics = [m for m in dict.fromkeys(names) if m in frame.columns and frame[m].dtype.kind in "fiu"]
    table = frame.reset_index()
    table["_path"] = table["node"].map(call_paths(frames.graph))
    locations = [c for c in frame.index.names if c not in ("node", run)]
    keys = [run] if run in table.columns else []
    grouped = table.groupby(["_path", *keys, *locations], sort=False)[list(metrics)].sum(min_count=1)
    for key, group in grouped.groupby(level=[0, 1] if keys else 0, sort=False):
        path, which = key if keys else (key, None)
        for metric in metrics:
            values = group[metric].to_numpy(dtype=float)
            values = values[~np.isnan(values)]
            if len(values):
                yield metric, path, which, values


def read(directory: Path, parameters: Mapping[str, str] | None = None, *, scaling: Scaling = "weak") -> Experiment:
    """The runs of ``directory`` as one experiment (see the module); ``parameters`` maps each
    parameter to its source (default :data:`DEFAULT_PARAMETERS`)."""
    found = runs(directory)
    if not found:
        raise DataFormatError("no profile that Hatchet reads in this folder", path=directory,
                              hint="formats: " + ", ".join(r.name for r in READERS))
    require("profiles", "reading Caliper, HPCToolkit and other profiles through Hatchet")
    import hatchet

    chosen = dict(parameters or DEFAULT_PARAMETERS)
    values: list[tuple[str, str, tuple[float, ...], np.ndarray]] = []
    units: dict[str, str] = {}
    coordinates: set[tuple[float, ...]] = set()
    for path, reader in found:
        try:
            with warnings.catch_warnings():  # pandas' notices of its future to Hatchet, not to the user
                warnings.simplefilter("ignore", FutureWarning)
                frame = reader.read(hatchet, path)
            units.update(reader.units(path))
        except Exception as exc:  # noqa: BLE001 - any failure of Hatchet's readers means a file it cannot read
            raise DataFormatError(f"Hatchet cannot read this {reader.name} profile ({type(exc).__name__}: {exc})",
                                  path=path) from None
        point = coordinate(chosen, frame.metadata, path)
        coordinates.add(point)
        values.extend((m, p, point, v) for m, p, _, v in _run_values(frame, ""))
    _check_varies(chosen, coordinates, len(found), directory)
    return cube.located_runs(tuple(chosen), values, units, scaling, str(directory))


def _check_varies(parameters: Mapping[str, str], coordinates: set[tuple[float, ...]], count: int,
                  where: str | Path) -> None:
    for k, name in enumerate(parameters):
        if len({c[k] for c in coordinates}) < 2:
            raise DataFormatError(f"parameter {name!r} ({parameters[name]}) has one value in all {count} run(s)",
                                  path=where, hint=_HINT)


def from_thicket(thicket: Any, parameters: Mapping[str, str] | None = None, *, units: Mapping[str, str] | None = None,
                 scaling: Scaling = "weak") -> Experiment:
    """A Thicket's profiles as one experiment: each profile a run, its coordinate from the
    Thicket's metadata (``parameters`` maps a parameter to a metadata column, default
    :data:`DEFAULT_PARAMETERS`), ``units`` the unit of each metric where known.

    >>> experiment = from_thicket(tk, {"p": "mpi.world.size"}, units={"Avg time/rank": "s"})  # doctest: +SKIP
    """
    chosen = dict(parameters or DEFAULT_PARAMETERS)
    meta = thicket.metadata
    missing = [s for s in chosen.values() if s not in meta.columns]
    if missing:
        raise DataFormatError(f"the Thicket's metadata has no column {', '.join(map(repr, missing))}",
                              hint="its columns: " + ", ".join(map(str, meta.columns)))
    points = {profile: coordinate(chosen, row, Path(str(profile))) for profile, row in
              ((p, meta.loc[p].to_dict()) for p in meta.index)}
    _check_varies(chosen, set(points.values()), len(points), "the Thicket")
    values = ((m, p, points[run], v) for m, p, run, v in _run_values(thicket, "profile"))
    return cube.located_runs(tuple(chosen), values, dict(units or {}), scaling, "Thicket")
