"""Score-P CUBE4 profiles (``extrap --cube``): a directory of experiment folders, one run each;
folders with the same values and profiles in one folder are repetitions. One metric is read per
call path (exclusive by default) with ``pycubexr`` (the ``cube`` extra, imported only once it is
known to be installed), and a run's locations combine as Extra-P's do: ``weak`` keeps each as a
repetition, ``weak-threaded`` drops those that measured zero, ``strong`` sums them.

A folder's name holds its parameter values, as Extra-P reads them: ``mm.x25y10z1.r2`` is x=25,
y=10, z=1 (a prefix before the first ``.``, ``.r<k>`` the repetition, then names and numbers; a
comma may be the decimal mark). Parameters with one value in every folder are dropped: nothing
can be fitted in them."""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from perfcompose.choices import SCALINGS, Scaling
from perfcompose.data.experiment import Experiment, Point, Series
from perfcompose.errors import DataFormatError
from perfcompose.extras import require

PATTERN = "*/[!.]*.cubex"
_UNITS = {"sec": "s"}
_REPETITION = re.compile(r"\.r\d+$")
_NUMBER = re.compile(r"([0-9.,]+)")
_HINT = "name each folder PREFIX.NAME1VALUE1NAME2VALUE2[.rK], e.g. mm.x25y10.r1"


def profiles(directory: Path) -> list[Path]:
    """The profiles of a CUBE experiment directory: ``*.cubex`` files one folder down."""
    return sorted(directory.glob(PATTERN))


def read(directory: Path, metric: str = "time", *, scaling: Scaling = "weak",
         inclusive: bool = False) -> Experiment:
    """One series per call path of ``metric`` over the experiment folders in ``directory``."""
    files = profiles(directory)
    if not files:
        raise DataFormatError("no CUBE profiles (*.cubex) in the folders of this directory", path=directory,
                              hint="give the directory whose sub-folders (one per run) hold profile.cubex")
    require("cube", "reading CUBE4 profiles")
    params, coordinates = parameters([f.parent for f in files])
    values: list[tuple[str, str, tuple[float, ...], np.ndarray]] = []
    units: dict[str, str] = {}
    for path, coordinate in zip(files, coordinates):
        unit, per_callpath = _profile_values(path, metric, inclusive)
        units[metric] = _UNITS.get(unit, unit)
        values += [(metric, callpath, coordinate, v) for callpath, v in per_callpath]
    return located_runs(params, values, units, scaling, str(directory))


def located_runs(parameters: tuple[str, ...], values: Iterable[tuple[str, str, tuple[float, ...], np.ndarray]],
                 units: Mapping[str, str], scaling: Scaling, source: str) -> Experiment:
    """The experiment of runs' per-location values ``(metric, call path, coordinate, values)``:
    one series per metric and call path, a run's locations combined by ``scaling``."""
    if scaling not in SCALINGS:
        raise DataFormatError(f"unknown scaling {scaling!r}", path=source, hint="choose one of " + ", ".join(SCALINGS))
    groups: dict[tuple[str, str], dict[tuple[float, ...], list[float]]] = {}
    for metric, path, point, vals in values:
        groups.setdefault((metric, path), {}).setdefault(point, []).extend(combine_locations(vals, scaling))
    series = tuple(Series(metric, tuple(Point(c, tuple(v)) for c, v in sorted(points.items())), path,
                          units.get(metric, ""))
                   for (metric, path), points in groups.items())
    if not series:
        raise DataFormatError("the profiles hold no numeric metric", path=source)
    return Experiment(parameters, series, source=source)


def combine_locations(values: np.ndarray, scaling: str) -> list[float]:
    """The repetitions one run contributes from its per-location (process, thread) values."""
    values = np.asarray(values, dtype=float)
    if scaling == "strong":
        return [float(values.sum())]
    if scaling == "weak-threaded" and values.any():
        values = values[values != 0]
    return values.tolist()


def metrics(directory: Path) -> tuple[str, ...]:
    """The metrics of a CUBE4 experiment directory that add up over the call tree (not minima or
    maxima) and hold data (a metric may be declared and never measured), read from its first profile."""
    CubexParser, MissingMetricError = _pycubexr()
    path = profiles(directory)[0]
    try:
        with CubexParser(str(path)) as profile:
            names = []
            for m in profile.get_metrics():
                if str(m.data_type).upper().startswith(("MIN", "MAX")):
                    continue
                try:
                    profile.get_metric_values(m, cache=False)
                except MissingMetricError:
                    continue
                names.append(m.name)
            return tuple(names)
    except Exception as exc:  # noqa: BLE001 - any failure of the parser means a file it cannot read
        raise _unreadable(path, exc) from None


def _pycubexr() -> tuple[Any, type[Exception]]:
    """pycubexr's parser and its error for a metric without data (the ``cube`` extra)."""
    require("cube", "reading CUBE4 profiles")
    from pycubexr import CubexParser
    from pycubexr.utils.exceptions import MissingMetricError

    return CubexParser, MissingMetricError


def _unreadable(path: Path, exc: Exception) -> DataFormatError:
    return DataFormatError(f"not a readable CUBE profile ({type(exc).__name__}: {exc})", path=path)


def _profile_values(path: Path, metric: str, inclusive: bool) -> tuple[str, list[tuple[str, np.ndarray]]]:
    """The unit of ``metric`` and ``(call path, per-location values)`` of each call path with data."""
    CubexParser, MissingMetricError = _pycubexr()
    try:
        with CubexParser(str(path)) as profile:
            try:
                chosen = profile.get_metric_by_name(metric)
            except KeyError:
                raise DataFormatError(f"no metric {metric!r} in this profile", path=path,
                                      hint=f"it has: {', '.join(m.name for m in profile.all_metrics())}") from None
            try:
                values = profile.get_metric_values(chosen, cache=False)
            except MissingMetricError:
                raise DataFormatError(f"the profile has no data for metric {metric!r}", path=path) from None
            out = [(callpath, values.cnode_values(cnode, convert_to_exclusive=not inclusive,
                                                  convert_to_inclusive=inclusive))
                   for cnode, callpath in call_paths(profile.get_root_cnodes(), lambda n: n.region.name,
                                                      lambda n: n.get_children()).items()
                   if cnode.id in values.cnode_indices]
    except DataFormatError:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure of the parser means a file it cannot read
        raise _unreadable(path, exc) from None
    return str(chosen.units or ""), out


def call_paths(roots: Iterable[Any], name: Callable[[Any], str], children: Callable[[Any], Iterable[Any]]
               ) -> dict[Any, str]:
    """Each node of a call tree and its call path, the names from its root down (``main->solve->mpi_send``
    as Extra-P names them), walked from the roots through the children; a node reached on several
    paths (a call graph, not a tree) keeps the first."""
    out: dict[Any, str] = {}
    stack = [(root, name(root)) for root in reversed(list(roots))]
    while stack:
        node, path = stack.pop()
        if node not in out:
            out[node] = path
            stack.extend((c, f"{path}->{name(c)}") for c in reversed(list(children(node))))
    return out


def folder_parameters(folder: Path) -> list[tuple[str, float]]:
    """The ``(name, value)`` pairs a folder's name encodes, in order."""
    name = _REPETITION.sub("", folder.name)
    body = name.split(".", 1)[1] if "." in name else name
    parts = [p for p in _NUMBER.split(body) if p]  # only the ends can be empty: a number's run is maximal
    if len(parts) < 2 or len(parts) % 2:
        raise DataFormatError(f"cannot read parameter values from the folder name {folder.name!r}",
                              path=folder, hint=_HINT)
    pairs = []
    for label, number in zip(parts[0::2], parts[1::2]):
        try:
            value = float(number.replace(",", ".").rstrip("."))
        except ValueError:
            raise DataFormatError(f"{number!r} in the folder name {folder.name!r} is not a number",
                                  path=folder, hint=_HINT) from None
        if not label.isidentifier() or label.startswith("_"):
            raise DataFormatError(f"{label!r} in the folder name {folder.name!r} is not a parameter name",
                                  path=folder, hint=_HINT)
        pairs.append((label, value))
    return pairs


def parameters(folders: Sequence[Path]) -> tuple[tuple[str, ...], list[tuple[float, ...]]]:
    """The varying parameters of a set of folders and each folder's coordinate in them."""
    pairs = [folder_parameters(f) for f in folders]
    names = [n for n, _ in pairs[0]]
    for folder, found in zip(folders[1:], pairs[1:]):
        if [n for n, _ in found] != names:
            raise DataFormatError(f"the folder names parameters {[n for n, _ in found]}, but "
                                  f"{folders[0].name} names {names}", path=folder,
                                  hint="every folder must name the same parameters in the same order")
    varying = [k for k in range(len(names)) if len({p[k][1] for p in pairs}) > 1]
    if not varying:
        raise DataFormatError(f"no parameter varies between the {len(folders)} experiment folder(s) "
                              f"({', '.join(sorted(f.name for f in folders))})", path=folders[0].parent,
                              hint=_HINT)
    return tuple(names[k] for k in varying), [tuple(p[k][1] for k in varying) for p in pairs]
