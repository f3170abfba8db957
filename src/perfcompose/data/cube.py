"""Score-P CUBE4 profiles (``extrap --cube``): a directory of experiment folders, one run each,
named by its parameter values (:mod:`perfcompose.data.cube_folders`); folders with the same values
and profiles in one folder are repetitions. One metric is read per call path (exclusive by
default) with ``pycubexr`` (the ``cube`` extra), and a run's locations combine as Extra-P's do:
``weak`` keeps each as a repetition, ``weak-threaded`` drops those that measured zero, ``strong``
sums them."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

from perfcompose.choices import SCALINGS, Scaling
from perfcompose.data import cube_folders
from perfcompose.data.experiment import Experiment, Point, Series
from perfcompose.errors import DataFormatError
from perfcompose.extras import require

PATTERN = "*/[!.]*.cubex"
_UNITS = {"sec": "s"}


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
    from perfcompose.data.cubex import profile_values  # the one place that loads pycubexr

    params, coordinates = cube_folders.parameters([f.parent for f in files])
    values: list[tuple[str, str, tuple[float, ...], np.ndarray]] = []
    units: dict[str, str] = {}
    for path, coordinate in zip(files, coordinates):
        unit, per_callpath = profile_values(path, metric, inclusive)
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
    require("cube", "reading CUBE4 profiles")
    from perfcompose.data.cubex import summed_metrics  # the one place that loads pycubexr

    return summed_metrics(profiles(directory)[0])
