"""Score-P CUBE4 profiles (``extrap --cube``): a directory of experiment folders, one run each.

Each folder holds one or more ``.cubex`` profiles and is named by its parameter values (see
:mod:`perfcompose.data.cube_folders`); folders with the same values, and profiles in one folder,
are repetitions. One metric is read (``time`` unless another is chosen), per call path, as
exclusive values by default. The values of all locations (processes, threads) of a run are
combined the way Extra-P does: ``weak`` scaling keeps each location's value as a repetition,
``weak-threaded`` drops the locations that measured zero, ``strong`` sums them.
The files are read with ``pycubexr``.
"""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from perfcompose.choices import SCALINGS, Scaling
from perfcompose.data import cube_folders
from perfcompose.data.experiment import Experiment, Point, Series
from perfcompose.errors import DataFormatError

PATTERN = "*/[!.]*.cubex"
_UNITS = {"sec": "s"}


def profiles(directory: Path) -> list[Path]:
    """The profiles of a CUBE experiment directory: ``*.cubex`` files one folder down."""
    return sorted(directory.glob(PATTERN))


def read(directory: Path, metric: str = "time", *, scaling: Scaling = "weak",
         inclusive: bool = False) -> Experiment:
    """One series per call path of ``metric`` over the experiment folders in ``directory``."""
    if scaling not in SCALINGS:
        raise DataFormatError(f"unknown scaling {scaling!r}", path=directory,
                              hint="choose one of " + ", ".join(SCALINGS))
    files = profiles(directory)
    if not files:
        raise DataFormatError("no CUBE profiles (*.cubex) in the folders of this directory", path=directory,
                              hint="give the directory whose sub-folders (one per run) hold profile.cubex")
    params, coordinates = cube_folders.parameters([f.parent for f in files])
    groups: dict[str, dict[tuple[float, ...], list[float]]] = {}
    unit = ""
    for path, coordinate in zip(files, coordinates):
        unit, per_callpath = _profile_values(path, metric, inclusive)
        for callpath, values in per_callpath:
            groups.setdefault(callpath, {}).setdefault(coordinate, []).extend(_combine(values, scaling))
    series = tuple(Series(metric, tuple(Point(c, tuple(v)) for c, v in sorted(points.items())), callpath,
                          _UNITS.get(unit, unit))
                   for callpath, points in groups.items())
    return Experiment(params, series, source=str(directory))


def _combine(values: np.ndarray, scaling: str) -> list[float]:
    """The repetitions one run contributes from its per-location values."""
    values = np.asarray(values, dtype=float)
    if scaling == "strong":
        return [float(values.sum())]
    if scaling == "weak-threaded" and values.any():
        values = values[values != 0]
    return values.tolist()


def _profile_values(path: Path, metric: str, inclusive: bool) -> tuple[str, list[tuple[str, np.ndarray]]]:
    """The unit of ``metric`` and ``(call path, per-location values)`` of each call path with data."""
    from pycubexr import CubexParser
    from pycubexr.utils.exceptions import MissingMetricError

    try:
        with CubexParser(str(path)) as profile:
            chosen = _metric(profile, metric, path)
            try:
                values = profile.get_metric_values(chosen, cache=False)
            except MissingMetricError:
                raise DataFormatError(f"the profile has no data for metric {metric!r}", path=path) from None
            out = []
            for cnode, callpath in _callpaths(profile.get_root_cnodes()):
                if cnode.id in values.cnode_indices:
                    out.append((callpath, values.cnode_values(cnode, convert_to_exclusive=not inclusive,
                                                              convert_to_inclusive=inclusive)))
    except DataFormatError:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure of the parser means a file it cannot read
        raise DataFormatError(f"not a readable CUBE profile ({type(exc).__name__}: {exc})",
                              path=path) from None
    return str(chosen.units or ""), out


def _metric(profile: Any, name: str, path: Path) -> Any:
    try:
        return profile.get_metric_by_name(name)
    except KeyError:
        have = ", ".join(m.name for m in profile.all_metrics())
        raise DataFormatError(f"no metric {name!r} in this profile", path=path,
                              hint=f"it has: {have}") from None


def _callpaths(roots: list[Any]) -> Iterator[tuple[Any, str]]:
    """Every call-tree node with its call path, ``main->solve->mpi_send`` as Extra-P names them."""
    stack = [(root, root.region.name) for root in reversed(roots)]
    while stack:
        cnode, name = stack.pop()
        yield cnode, name
        stack.extend((child, f"{name}->{child.region.name}") for child in reversed(cnode.get_children()))
