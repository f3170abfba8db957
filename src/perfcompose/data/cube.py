"""Score-P CUBE4 profiles (``extrap --cube``): a directory of experiment folders, one run each,
named by its parameter values (:mod:`perfcompose.data.cube_folders`); folders with the same values
and profiles in one folder are repetitions. One metric is read per call path (exclusive by
default) with ``pycubexr`` (the ``cube`` extra), and a run's locations combine as Extra-P's do:
``weak`` keeps each as a repetition, ``weak-threaded`` drops those that measured zero, ``strong``
sums them."""
from __future__ import annotations

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
    if scaling not in SCALINGS:
        raise DataFormatError(f"unknown scaling {scaling!r}", path=directory,
                              hint="choose one of " + ", ".join(SCALINGS))
    files = profiles(directory)
    if not files:
        raise DataFormatError("no CUBE profiles (*.cubex) in the folders of this directory", path=directory,
                              hint="give the directory whose sub-folders (one per run) hold profile.cubex")
    require("cube", "reading CUBE4 profiles")
    from perfcompose.data.cubex import profile_values  # the one place that loads pycubexr

    params, coordinates = cube_folders.parameters([f.parent for f in files])
    groups: dict[str, dict[tuple[float, ...], list[float]]] = {}
    unit = ""
    for path, coordinate in zip(files, coordinates):
        unit, per_callpath = profile_values(path, metric, inclusive)
        for callpath, values in per_callpath:
            groups.setdefault(callpath, {}).setdefault(coordinate, []).extend(combine_locations(values, scaling))
    series = tuple(Series(metric, tuple(Point(c, tuple(v)) for c, v in sorted(points.items())), callpath,
                          _UNITS.get(unit, unit))
                   for callpath, points in groups.items())
    return Experiment(params, series, source=str(directory))


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
