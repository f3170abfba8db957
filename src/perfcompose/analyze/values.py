"""Each call path's inclusive and exclusive values of a metric, measured or derived.

A caller's inclusive value is its own plus its callees' inclusive values. CUBE4 profiles hold
both kinds; Extra-P's formats hold one without saying which: ``values="auto"`` calls them
inclusive where callers are at least the sum of their callees at nearly every point. The other
kind is derived point by point (by repetition where the counts agree, else from the medians), and
:attr:`MetricValues.note` says what was assumed."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import get_args

import numpy as np

from perfcompose.analyze.callpaths import PROGRAM, CallTree, beside_callers, call_tree
from perfcompose.choices import Scaling, ValueKind
from perfcompose.data import cube, load
from perfcompose.data.experiment import Experiment, Point, PointArrays, Series
from perfcompose.errors import InputError

VALUE_KINDS: tuple[str, ...] = get_args(ValueKind)

#: share of (caller, point) pairs at which a caller must hold its callees for "auto" to read inclusive values
INCLUSIVE_SHARE = 0.9
#: relative slack of that test (noise in medians)
SLACK = 0.01


@dataclass(frozen=True)
class MetricValues:
    """One metric: inclusive and exclusive series per call path (``exclusive`` holds the callers' own)
    and the call tree; ``note`` says which kind was measured and how the other was obtained."""

    metric: str
    unit: str
    tree: CallTree
    inclusive: Mapping[str, Series]
    exclusive: Mapping[str, Series]
    note: str


def _combine(parts: Sequence[Series], signs: Sequence[float], metric: str, region: str, unit: str) -> Series | None:
    """The signed sum of series at the coordinates they share (negative results clipped to 0)."""
    first = parts[0]
    if len(parts) == 1 and signs[0] == 1.0 and (first.metric, first.region, first.unit) == (metric, region, unit):
        return first
    arrays = [p.points for p in parts if isinstance(p.points, PointArrays)]
    if len(arrays) == len(parts) and all(a.values.shape == arrays[0].values.shape
                                         and np.array_equal(a.coordinates, arrays[0].coordinates) for a in arrays):
        total = sum(s * a.values for s, a in zip(signs, arrays))
        return Series(metric, PointArrays(arrays[0].coordinates, np.maximum(total, 0.0)), region, unit)
    shared = set.intersection(*(set(p.coordinate for p in s.points) for s in parts))
    if not shared:
        return None
    by = [{p.coordinate: p.values for p in s.points} for s in parts]
    points = []
    for c in sorted(shared):
        reps = [np.asarray(b[c], dtype=float) for b in by]
        if len({len(r) for r in reps}) == 1:
            total = sum(s * r for s, r in zip(signs, reps))
        else:
            total = np.array([sum(s * float(np.median(r)) for s, r in zip(signs, reps))])
        points.append(Point(c, tuple(float(v) for v in np.maximum(total, 0.0))))
    return Series(metric, tuple(points), region, unit)


def _medians(caller: Series, callees: Sequence[Series]) -> list[tuple[float, float]]:
    """(the caller's median, its callees' summed median) at each coordinate both hold."""
    total = _combine(list(callees), [1.0] * len(callees), "", "", "")
    own = {p.coordinate: p.median for p in caller.points}
    return [] if total is None else [(own[p.coordinate], p.median) for p in total.points if p.coordinate in own]


def from_one_kind(experiment: Experiment, metric: str, kind: ValueKind) -> MetricValues:
    """The values of ``metric`` in a file holding one value per call path (see the module)."""
    chosen = [s for s in experiment.series if s.metric == metric]
    series = {s.region or metric: s for s in chosen}
    unit = chosen[0].unit
    tree = call_tree(series, beside_callers({p: s.tags for p, s in series.items() if s.tags}))
    # (a caller's median, its callees' summed median) at each coordinate both hold
    pairs = [pair for path in tree.callees if path in series and any(k in series for k in tree.summed(path))
             for pair in _medians(series[path], [series[k] for k in tree.summed(path) if k in series])]
    held, checked = sum(own >= total * (1 - SLACK) for own, total in pairs), len(pairs)
    if kind == "auto":
        kind = "inclusive" if checked and held >= INCLUSIVE_SHARE * checked else "exclusive"
        why = (f"callers hold their callees at {held} of {checked} points" if checked else
               "no measured caller has measured callees")
        assumed = f"values read as {kind} ({why}; --values to override)"
    else:
        assumed = f"values read as {kind} (--values {kind})"
    inclusive: dict[str, Series] = {}
    exclusive: dict[str, Series] = {}
    clipped = 0
    for path in tree.postorder():
        kids = tree.summed(path)
        if kind == "exclusive":
            parts = ([series[path]] if path in series else []) + [inclusive[k] for k in kids if k in inclusive]
            if path in series:
                exclusive[path] = series[path]
            summed = _combine(parts, [1.0] * len(parts), metric, path, unit) if parts else None
            if summed is not None:
                inclusive[path] = summed
            continue
        measured_kids = [inclusive[k] for k in kids if k in inclusive]
        if path in series:
            inclusive[path] = series[path]
            if measured_kids:
                own = _combine([series[path], *measured_kids], [1.0] + [-1.0] * len(measured_kids), metric, path,
                               unit)
                if own is not None:
                    clipped += sum(own < total for own, total in _medians(series[path], measured_kids))
                    exclusive[path] = own
            else:
                exclusive[path] = series[path]
        elif measured_kids:
            summed = _combine(measured_kids, [1.0] * len(measured_kids), metric, path, unit)
            if summed is not None:
                inclusive[path] = summed
    if tree.flat:
        derived = ("the profile names no callers, so the nesting of its regions is unknown: none is summed, and "
                   "shares are of the largest region at the target")
    elif kind == "exclusive":
        derived = "inclusive values derived as the sum over each subtree"
    else:
        derived = "exclusive (own) values derived as a caller's value less its callees'"
        if clipped:
            derived += f" ({clipped} negative differences set to 0)"
    unmeasured = [p for p in tree.postorder() if p not in series]
    if unmeasured:
        derived += f"; {len(unmeasured)} unmeasured caller(s) taken as the sum of their callees"
    if tree.beside:
        derived += f"; {len(tree.beside)} call path(s) on a device or another thread not summed into their callers"
    return MetricValues(metric, unit, tree, inclusive, exclusive, f"{assumed}; {derived}")


def from_both_kinds(inclusive: Experiment, exclusive: Experiment, metric: str) -> MetricValues:
    """The values of ``metric`` from a profile that holds both kinds (CUBE4)."""
    incl = {s.region: s for s in inclusive.series if s.metric == metric}
    excl = {s.region: s for s in exclusive.series if s.metric == metric}
    tree = call_tree(incl, beside_callers({p: s.tags for p, s in incl.items() if s.tags}))
    unit = next(iter(incl.values())).unit
    note = "inclusive and exclusive values both read from the profile"
    if tree.root == PROGRAM and tree.root not in incl:
        tops = list(tree.summed(tree.root))
        summed = _combine([incl[t] for t in tops], [1.0] * len(tops), metric, tree.root, unit)
        if summed is not None:
            incl[tree.root] = summed
        note += f"; the program's value is the sum of its {len(tops)} outermost call paths"
    return MetricValues(metric, unit, tree, incl, excl, note)


def read_values(path: Path | Experiment, metrics: Sequence[str] = (), *, values: ValueKind = "auto",
                scaling: Scaling = "weak") -> tuple[tuple[str, ...], list[MetricValues]]:
    """The parameters of the profile at ``path`` (or of an experiment already read) and the values
    of each chosen metric (all by default)."""
    if values not in VALUE_KINDS:
        raise InputError(f"unknown kind of values {values!r}", hint="choose one of " + ", ".join(VALUE_KINDS))
    if not isinstance(path, Experiment) and Path(path).is_dir() and cube.profiles(Path(path)):
        return _cube_values(Path(path), metrics, values, scaling)
    experiment = path if isinstance(path, Experiment) else load(Path(path))
    unknown = [m for m in metrics if m not in experiment.metrics]
    if unknown:
        raise InputError(f"no metric {', '.join(map(repr, unknown))} in the profile", path=experiment.source or None,
                         hint="it has: " + ", ".join(experiment.metrics))
    return experiment.parameters, [from_one_kind(experiment, m, values) for m in (metrics or experiment.metrics)]


def _cube_values(path: Path, metrics: Sequence[str], values: ValueKind, scaling: Scaling
                 ) -> tuple[tuple[str, ...], list[MetricValues]]:
    """A CUBE4 directory's parameters and values, of both kinds where ``values`` is auto."""
    names = tuple(metrics) or cube.metrics(path)
    out = []
    params: tuple[str, ...] = ()
    for name in names:
        incl = cube.read(path, name, scaling=scaling, inclusive=True)
        excl = cube.read(path, name, scaling=scaling, inclusive=False)
        params = incl.parameters
        out.append(from_both_kinds(incl, excl, name) if values == "auto"
                   else from_one_kind(incl if values == "inclusive" else excl, name, values))
    return params, out
