"""Measurements as perfcompose holds them: an :class:`Experiment` of named parameters and series (a
metric in a region), each of points with a coordinate and repeated values.

A value below zero within floating-point noise (``|v| <= max(NOISE_ABSOLUTE, NOISE_RELATIVE * m)``,
``m`` the series' largest magnitude: an exclusive time of -2.8e-14) is read as 0 and listed in
:attr:`Experiment.notes`; any other negative value is refused."""
from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from perfcompose.choices import AGGREGATE_CHOICES, Aggregate
from perfcompose.errors import DataFormatError
from perfcompose.finite import is_finite_number
from perfcompose.variation import coefficient_of_variation, mean, median


def _numpy_reduction(name: str) -> Callable[[np.ndarray], float]:
    reduce = getattr(np, name)
    return lambda values: float(reduce(values))


#: each way of combining repetitions is the NumPy reduction of the same name; mean and median are
#: computed so that they stay finite for values near the largest double
AGGREGATES: dict[str, Callable[[np.ndarray], float]] = {
    name: {"mean": mean, "median": median}.get(name) or _numpy_reduction(name) for name in AGGREGATE_CHOICES}


#: a negative value is floating-point noise around zero, and read as 0, where it lies within this
#: distance of zero ...
NOISE_ABSOLUTE = 1e-12
#: ... or within this fraction of the largest magnitude of its series
NOISE_RELATIVE = 1e-9
NEGATIVE_HINT = ("times and counts cannot be negative (values below zero by at most 1e-12, or by at most 1e-9 "
                 "of the series' largest value, are floating-point noise and read as 0)")


def noise_tolerance(scale: float) -> float:
    """How far below zero a value of a series whose largest magnitude is ``scale`` may lie and
    still be floating-point noise around zero."""
    return max(NOISE_ABSOLUTE, NOISE_RELATIVE * scale)


@dataclass(frozen=True)
class Point:
    """One measured point: its coordinate (a value per parameter) and repetitions; ``summary``: the
    statistics a file stores instead of repetitions (``mean``, ``median``, ``min``, ``max``, ``std``,
    ``repetitions``), ``values`` then holding one of them, read by :meth:`Series.aggregated`."""

    coordinate: tuple[float, ...]
    values: tuple[float, ...]
    summary: Mapping[str, float] | None = field(default=None, compare=False, repr=False)

    @property
    def median(self) -> float:
        return self.summary["median"] if self.summary is not None and "median" in self.summary else median(self.values)

    @property
    def repetitions(self) -> int:
        """How many repetitions the point was measured with (stored with a summary)."""
        stored = self.aggregate("repetitions")
        return len(self.values) if stored is None else int(stored)

    @property
    def cv(self) -> float:
        """Coefficient of variation (sample standard deviation / mean); 0 for one repetition (of a
        summary, its stored standard deviation over its mean)."""
        if self.summary is not None and self.summary.get("mean") and "std" in self.summary:
            return self.summary["std"] / self.summary["mean"]
        cv = coefficient_of_variation(self.values)
        return 0.0 if math.isnan(cv) else cv

    def aggregate(self, how: str) -> float | None:
        """The stored statistic of ``how`` where the point holds a summary with it, else None."""
        return None if self.summary is None else self.summary.get(how)

    def numbers(self) -> tuple[float, ...]:
        """The values and the stored statistics of the aggregates (what must not be negative)."""
        return self.values if self.summary is None else (
            *self.values, *(self.summary[k] for k in AGGREGATE_CHOICES if k in self.summary))


class PointArrays(Sequence[Point]):
    """The points of a series held as two arrays, coordinates (points, parameters) and repetitions
    (points, repetitions), as a large profile is read: :class:`Point` objects are built once, when
    first asked for; it compares, hashes and iterates as the tuple of its points.

    >>> pts = PointArrays(np.array([[4.0], [8.0]]), np.array([[1.0, 1.5], [2.0, 2.5]]))
    >>> pts[1], pts == (Point((4.0,), (1.0, 1.5)), Point((8.0,), (2.0, 2.5)))
    (Point(coordinate=(8.0,), values=(2.0, 2.5)), True)"""

    __slots__ = ("coordinates", "values", "_points", "valid_for")

    def __init__(self, coordinates: np.ndarray, values: np.ndarray) -> None:
        # read-only views: the arrays of many series may be slices of one (see point_arrays)
        coordinates = np.asarray(coordinates, dtype=float).view()
        values = np.asarray(values, dtype=float).view()
        if coordinates.ndim != 2 or values.ndim != 2 or len(coordinates) != len(values):
            raise ValueError(f"coordinates {coordinates.shape} and values {values.shape} are not "
                             "(points, parameters) and (points, repetitions)")
        coordinates.flags.writeable = False
        values.flags.writeable = False
        self.coordinates, self.values = coordinates, values
        self._points: tuple[Point, ...] | None = None
        #: the number of parameters these points were found valid for (see arrays_valid)
        self.valid_for: int | None = None

    def _tuple(self) -> tuple[Point, ...]:
        if self._points is None:
            self._points = tuple(Point(tuple(c), tuple(v))
                                 for c, v in zip(self.coordinates.tolist(), self.values.tolist()))
        return self._points

    def __len__(self) -> int:
        return len(self.coordinates)

    def __getitem__(self, index: int | slice) -> Any:
        return self._tuple()[index]

    def __iter__(self) -> Iterator[Point]:
        return iter(self._tuple())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PointArrays):
            return bool(np.array_equal(self.coordinates, other.coordinates)
                        and np.array_equal(self.values, other.values))
        return self._tuple() == other if isinstance(other, tuple) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._tuple())

    def __repr__(self) -> str:
        return f"PointArrays({len(self)} points x {self.values.shape[1]} repetitions)"

    def __reduce__(self) -> tuple[type, tuple[np.ndarray, np.ndarray]]:
        return PointArrays, (self.coordinates, self.values)


@dataclass(frozen=True)
class Series:
    """The points of one metric in one region: a tuple of :class:`Point`, or the same points as
    :class:`PointArrays` (as large profiles are read)."""

    metric: str
    points: tuple[Point, ...] | PointArrays
    region: str = ""
    #: the unit of the values; empty where the file states none (Extra-P's formats have no unit)
    unit: str = ""
    #: what a file tags the region with (Extra-P's call-path tags, e.g. ``{"gpu": true}``)
    tags: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def label(self) -> str:
        return f"{self.region}/{self.metric}" if self.region else self.metric

    def coordinates(self) -> np.ndarray:
        """Coordinates as an array of shape (points, parameters)."""
        if isinstance(self.points, PointArrays):
            return self.points.coordinates
        return np.array([p.coordinate for p in self.points], dtype=float)

    def repetitions(self) -> np.ndarray | None:
        """The repetitions as an array (points, repetitions) where every point has as many, else None."""
        if isinstance(self.points, PointArrays):
            return self.points.values
        counts = {len(p.values) for p in self.points}
        if len(counts) != 1:
            return None
        return np.array([p.values for p in self.points], dtype=float).reshape(len(self.points), counts.pop())

    def aggregated(self, how: Aggregate = "median") -> np.ndarray:
        """One value per point: the median (default), mean, minimum or maximum of its repetitions
        (of a point holding stored statistics, the stored one)."""
        try:
            f = AGGREGATES[how]
        except KeyError:
            raise DataFormatError(f"unknown aggregation {how!r}",
                                  hint="choose one of " + ", ".join(AGGREGATES)) from None
        return np.array([f(np.asarray(p.values, dtype=float)) if (stored := p.aggregate(how)) is None else stored
                         for p in self.points])

    def for_aggregate(self, how: str) -> Series:
        """The series whose points holding stored statistics hold the one of ``how`` as their value
        (the others unchanged), so that a fitter aggregating repetitions by ``how`` models it;
        the series itself where no point holds statistics."""
        if isinstance(self.points, PointArrays) or all(p.summary is None for p in self.points):
            return self
        points = tuple(p if (v := p.aggregate(how)) is None else Point(p.coordinate, (v,), p.summary)
                       for p in self.points)
        return replace(self, points=points)


@dataclass(frozen=True)
class Experiment:
    """Named parameters and one or more measured series.

    >>> e = Experiment.single(["x"], [((4,), (1.0, 1.1)), ((8,), (2.0, 2.1))], metric="time")
    >>> e.series[0].aggregated("mean").tolist()
    [1.05, 2.05]
    """

    parameters: tuple[str, ...]
    series: tuple[Series, ...]
    source: str = field(default="", compare=False)
    #: the series where values within floating-point noise below zero were read as 0
    clipped: tuple[Clipped, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "parameters", tuple(self.parameters))
        series, clipped = _clip_noise(tuple(self.series))
        object.__setattr__(self, "series", series)
        object.__setattr__(self, "clipped", tuple(self.clipped) + clipped)
        validate(self)

    @property
    def notes(self) -> tuple[str, ...]:
        """What reading changed, for the user: the values within floating-point noise of zero read as 0."""
        return tuple(c.note() for c in self.clipped)

    @classmethod
    def single(cls, parameters: Sequence[str], points: Iterable[tuple[Sequence[float], Sequence[float]]],
               *, metric: str = "time", unit: str = "", region: str = "", source: str = "") -> Experiment:
        """An experiment of one series from ``(coordinate, repetitions)`` pairs."""
        pts = tuple(Point(tuple(float(c) for c in coord), tuple(float(v) for v in vals))
                    for coord, vals in points)
        return cls(tuple(parameters), (Series(metric, pts, region, unit),), source=source)

    @property
    def metrics(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(s.metric for s in self.series))

    @property
    def regions(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(s.region for s in self.series))

    def get(self, metric: str | None = None, region: str | None = None) -> Series:
        """The one series with this metric and region (either may be omitted when unambiguous)."""
        found = [s for s in self.series if metric in (None, s.metric) and region in (None, s.region)]
        if len(found) == 1:
            return found[0]
        have = ", ".join(s.label for s in self.series)
        what = " and ".join(x for x in (f"metric {metric!r}" if metric else "",
                                        f"region {region!r}" if region else "") if x) or "no selection"
        if not found:
            raise DataFormatError(f"no series with {what}", path=self.source or None,
                                  hint=f"the file has: {have}")
        raise DataFormatError(f"{len(found)} series match {what}", path=self.source or None,
                              hint=f"name the metric and/or region; the file has: {have}")

    def select(self, metric: str | None = None, region: str | None = None) -> Experiment:
        """The experiment restricted to the series of a metric and/or region."""
        chosen = tuple(s for s in self.series if metric in (None, s.metric) and region in (None, s.region))
        if not chosen:
            self.get(metric, region)  # raises with the list of what exists
        keys = {(s.region, s.metric) for s in chosen}
        return Experiment(self.parameters, chosen, source=self.source,
                          clipped=tuple(c for c in self.clipped if (c.region, c.metric) in keys))

    def for_aggregate(self, how: str) -> Experiment:
        """The experiment with every series :meth:`Series.for_aggregate`; itself where nothing changes."""
        series = tuple(s.for_aggregate(how) for s in self.series)
        if all(a is b for a, b in zip(series, self.series)):
            return self
        return Experiment(self.parameters, series, source=self.source, clipped=self.clipped)


@dataclass(frozen=True)
class Clipped:
    """The values of one series that lay within floating-point noise below zero and were read as 0."""

    region: str
    metric: str
    count: int
    lowest: float

    def note(self) -> str:
        label = f"{self.region}/{self.metric}" if self.region else self.metric
        return (f"{label}: {self.count} value{'s' if self.count != 1 else ''} within floating-point noise "
                f"below zero (down to {self.lowest:.3g}) read as 0")


def _lowest(points: Sequence[Point] | PointArrays) -> tuple[float, float]:
    """The lowest value of a series' points and the largest magnitude (NaN where a value is NaN)."""
    if isinstance(points, PointArrays):
        V = points.values
        return (0.0, 0.0) if not V.size else (float(V.min()), float(np.abs(V).max()))
    low, high = math.inf, 0.0
    for p in points:
        numbers = p.numbers()
        if numbers:
            low = min(low, min(numbers))
            high = max(high, max(numbers), -min(numbers))
    return low, high


def beyond_noise(values: Iterable[float], scale: float) -> float | None:
    """The first of ``values`` below zero by more than floating-point noise in a series whose
    largest magnitude is ``scale``, else None."""
    floor = -noise_tolerance(scale)
    return next((v for v in values if v < floor), None)


def check_negative_lines(negative: Mapping[Any, Sequence[tuple[Line, Sequence[float]]]],
                         series_values: Callable[[Any], Iterable[Sequence[float]]]) -> None:
    """Refuse a value below zero by more than floating-point noise: ``negative`` holds, per series
    key, the lines read with a value below zero and their values; ``series_values(key)`` all the
    series' values (their largest magnitude sets the noise)."""
    for key, lines in negative.items():
        scale = max(abs(v) for values in series_values(key) for v in values)
        for where, values in lines:
            bad = beyond_noise(values, scale)
            if bad is not None:
                raise where.error(f"negative value {bad!r}", hint=NEGATIVE_HINT)


def _clip_noise(series: tuple[Series, ...]) -> tuple[tuple[Series, ...], tuple[Clipped, ...]]:
    """The series with the values within floating-point noise below zero read as 0, and what was
    clipped; a series with a negative value beyond the noise is left for ``validate`` to refuse."""
    out: list[Series] = []
    clipped: list[Clipped] = []
    for s in series:
        low, scale = _lowest(s.points) if s.points else (0.0, 0.0)
        if not (low < 0 and math.isfinite(scale)) or low < -noise_tolerance(scale):
            out.append(s)
            continue
        if isinstance(s.points, PointArrays):
            V = s.points.values
            count = int(np.count_nonzero(V < 0))
            points: tuple[Point, ...] | PointArrays = PointArrays(s.points.coordinates, np.maximum(V, 0.0))
        else:
            # a point of saved statistics counts each statistic once (its value repeats one of them)
            count = sum(v < 0 for p in s.points for v in (p.numbers()[len(p.values):] if p.summary else p.values))
            points = tuple(_clip_point(p) for p in s.points)
        out.append(replace(s, points=points))
        clipped.append(Clipped(s.region, s.metric, count, low))
    return tuple(out), tuple(clipped)


def _clip_point(p: Point) -> Point:
    if min(p.numbers(), default=0.0) >= 0:
        return p
    summary = None if p.summary is None else {k: max(v, 0.0) if k in AGGREGATE_CHOICES else v
                                              for k, v in p.summary.items()}
    return Point(p.coordinate, tuple(max(v, 0.0) for v in p.values), summary)


def validate(experiment: Experiment) -> None:
    """Reject what would give silent garbage: bad numbers, duplicates, empty points, ..."""
    path = experiment.source or None
    params = experiment.parameters
    if not params:
        raise DataFormatError("the experiment has no parameters", path=path,
                              hint="name at least one parameter, e.g. 'x'")
    if len(set(params)) != len(params):
        raise DataFormatError(f"parameter names repeat: {', '.join(params)}", path=path)
    for name in params:
        if not name or not name.isidentifier() or name.startswith("_"):
            raise DataFormatError(f"parameter name {name!r} is not an identifier", path=path,
                                  hint="use names like x, n, p, size")
    if not experiment.series:
        raise DataFormatError("the experiment has no measurements", path=path)
    seen_series = set()
    distinct: set[bytes] = set()   # coordinate arrays already found positive, finite and distinct
    for s in experiment.series:
        key = (s.region, s.metric)
        if key in seen_series:
            raise DataFormatError(f"series {s.label} appears twice", path=path)
        seen_series.add(key)
        if not s.points:
            raise DataFormatError(f"series {s.label} has no points", path=path)
        if isinstance(s.points, PointArrays) and arrays_valid(s.points, len(params), distinct):
            continue
        coords: dict[tuple[float, ...], int] = {}
        for k, p in enumerate(s.points):
            where = f"{s.label}, point {k + 1} ({describe(params, p.coordinate)})"
            if len(p.coordinate) != len(params):
                raise DataFormatError(f"{where}: has {len(p.coordinate)} coordinates for "
                                      f"{len(params)} parameters ({', '.join(params)})", path=path)
            for name, c in zip(params, p.coordinate):
                if not math.isfinite(c) or c <= 0:
                    raise DataFormatError(f"{where}: parameter {name} = {c!r} is not a positive finite "
                                          "number", path=path, hint="parameters are positive reals")
            if not p.values:
                raise DataFormatError(f"{where}: no repetitions", path=path,
                                      hint="give at least one measured value per point")
            for v in p.numbers():
                if not math.isfinite(v):
                    raise DataFormatError(f"{where}: value {v!r} is not finite", path=path)
                if v < 0:
                    raise DataFormatError(f"{where}: negative value {v!r}", path=path, hint=NEGATIVE_HINT)
            if p.coordinate in coords:
                raise DataFormatError(f"{where}: duplicate coordinate, also point {coords[p.coordinate] + 1}",
                                      path=path, hint="merge the repetitions of both into one point")
            coords[p.coordinate] = k


def arrays_valid(points: PointArrays, d: int, distinct: set[bytes]) -> bool:
    """Whether points held as arrays pass every check of ``validate`` (checked at once; where one
    fails, ``validate`` finds and names it point by point). ``distinct`` holds the coordinate
    arrays found valid before: the series of a profile share them."""
    C, V = points.coordinates, points.values
    if (points.valid_for != d and C.shape[1] == d and V.shape[1] > 0 and np.all((V >= 0) & (V < np.inf))
            and _distinct_coordinates(C, distinct)):
        points.valid_for = d
    return points.valid_for == d


def _distinct_coordinates(C: np.ndarray, distinct: set[bytes]) -> bool:
    """Whether the coordinates ``C`` are positive, finite and distinct; ``distinct`` holds those found so."""
    key = C.tobytes() + repr(C.shape).encode()
    if key in distinct:
        return True
    if not np.all((C > 0) & (C < np.inf)) or (len(C) > 1 and len(np.unique(C, axis=0)) < len(C)):
        return False
    distinct.add(key)
    return True


def point_arrays(coordinates: np.ndarray, values: np.ndarray, counts: Sequence[int], d: int
                 ) -> list[PointArrays] | None:
    """The points of many series, given as the rows of one coordinate array (points, ``d``) and one
    repetition array (points, repetitions), ``counts`` rows a series: every series' points as
    :class:`PointArrays` (views of these arrays), checked at once as ``validate`` checks them;
    None where any check fails."""
    C, V = np.asarray(coordinates, dtype=float), np.asarray(values, dtype=float)
    if C.ndim != 2 or V.ndim != 2 or C.shape[1] != d or V.shape[1] == 0 or len(C) != len(V) \
            or len(C) != sum(counts) or min(counts, default=0) == 0:
        return None
    if not np.all(V < np.inf) or np.isnan(V).any():
        return None
    negative = bool(V.size) and float(V.min()) < 0
    distinct: set[bytes] = set()
    out = []
    start = 0
    for count in counts:
        points = PointArrays(C[start:start + count], V[start:start + count])
        if negative:
            low, scale = _lowest(points)
            if low < -noise_tolerance(scale):
                return None  # the reader locates the value
        if not _distinct_coordinates(points.coordinates, distinct):
            return None
        points.valid_for = d
        out.append(points)
        start += count
    return out


@dataclass  # not frozen: a reader may make one per line, and a frozen one takes three times as long
class Line:
    """A line being read, so every error names file, line and the line itself."""

    path: str | Path | None
    line: int | None
    source: str | None = None

    def error(self, message: str, column: int | None = None, hint: str | None = None) -> DataFormatError:
        return DataFormatError(message, path=self.path, line=self.line, column=column, source_line=self.source,
                               hint=hint)

    def number(self, value: Any, what: str) -> float:
        """``value`` as a float where it is a finite number, else the error naming ``what`` on this line."""
        if not is_finite_number(value):
            raise self.error(f"{what}: {json.dumps(value)} is not a finite number")
        return float(value)


def check_point(params: Sequence[str], point: Point, seen: dict[tuple[float, ...], int], where: str,
                path: object, line: int | None) -> None:
    """Per-point checks for readers that know the line of a point (the rest is in ``validate``;
    negative values, which depend on the whole series, in :func:`check_negatives`)."""
    if not point.values:
        raise DataFormatError(f"{where}: no repetitions", path=path, line=line,  # type: ignore[arg-type]
                              hint="give at least one measured value per point")
    if point.coordinate in seen:
        raise DataFormatError(f"{where}: duplicate coordinate ({describe(params, point.coordinate)}), "
                              f"also point {seen[point.coordinate] + 1}", path=path, line=line,  # type: ignore[arg-type]
                              hint="merge the repetitions of both into one point")
    seen[point.coordinate] = len(seen)


def check_negatives(points: Sequence[Point], where: Callable[[int], str], path: object,
                    lines: Sequence[int | None] = ()) -> None:
    """Refuse a value below zero by more than floating-point noise, naming its point (``where(n)``,
    ``n`` its number from 1) and, where ``lines`` gives the line of every point, its line."""
    low, scale = _lowest(points)
    for k, p in enumerate(points if low < 0 else ()):
        bad = beyond_noise(p.numbers(), scale)
        if bad is not None:
            raise DataFormatError(f"{where(k + 1)}: negative value {bad!r}", path=path,  # type: ignore[arg-type]
                                  line=lines[k] if k < len(lines) else None, hint=NEGATIVE_HINT)


def describe(params: Sequence[str], coordinate: Sequence[float]) -> str:
    """``x=1024, n=4`` for messages and tables."""
    return ", ".join(f"{n}={int(c) if float(c).is_integer() and abs(c) < 1e15 else repr(float(c))}"
                     for n, c in zip(params, coordinate))
