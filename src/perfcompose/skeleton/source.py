"""A skeleton forecast T(n, p) as a :class:`~perfcompose.model.Model`, each distinct (n, p)
estimated once; its JSON record (also ``skeleton forecast --json``'s) carries the table inline."""
from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from perfcompose.choices import DIRECTIONS, FORECAST_METHODS, STRATEGIES
from perfcompose.errors import DataFormatError, InputError, ModelError
from perfcompose.finite import is_finite_number
from perfcompose.model import Model
from perfcompose.option_fields import default_of
from perfcompose.skeleton.estimation import Estimate, estimate
from perfcompose.skeleton.jackknife import jackknife_ensemble
from perfcompose.skeleton.skeletons import KINDS, Skeleton
from perfcompose.skeleton.table import SEQ, RuntimeTable, read_table
from perfcompose.skeleton_options import METHODS, ForecastOptions, SkeletonShape

#: the ``format`` of a skeleton model record (and of ``skeleton forecast --json`` output)
SKELETON_MODEL_FORMAT = "perfcompose-skeleton-model/1"


def _forecast_options(options: Mapping[str, Any]) -> ForecastOptions:
    """ForecastOptions from keywords; numbers as given (an int epsilon, a float degree) made the
    field's type, an unknown keyword an InputError."""
    unknown = [k for k in options if k not in ForecastOptions.__dataclass_fields__]
    if unknown:
        raise InputError(f"unknown forecast option {unknown[0]!r}",
                         hint="options: " + ", ".join(f.name for f in fields(ForecastOptions)))
    casts = {"epsilon": float, "poly_degree": int, "training": int}
    return ForecastOptions(**{k: casts[k](v) if k in casts else v for k, v in options.items()})


def _default_name(source: str) -> str:
    """``T_<file stem>``: an identifier that tells components from different tables apart."""
    stem = re.sub(r"\W", "_", Path(source).stem, flags=re.ASCII) if source else ""
    return f"T_{stem}" if stem else "T"


def _check_name(name: str) -> str:
    if not name.isidentifier():
        raise InputError(f"model name {name!r} is not an identifier", hint="for example T_gauss")
    return name


@dataclass(frozen=True, eq=False)
class SkeletonSource:
    """T(n, p) forecast from a runtime table by a skeleton: at every (n, p) exactly
    ``estimate(table, n, p, skeleton=..., **options)``, as ``skeleton forecast`` prints it."""

    #: the measured runtimes the forecasts come from
    table: RuntimeTable
    #: the skeleton that relates T(n, p) to the sequential times
    skeleton: Skeleton
    #: how each point is forecast (methods, direction, epsilon, strategy, training window)
    options: ForecastOptions
    #: the model's name when it is composed, e.g. ``T_gauss``
    name: str
    #: the unit of the table's times: seconds unless the table's record says otherwise
    unit: str
    _estimates: dict[tuple[float, int], Estimate] = field(init=False, repr=False)
    _values: dict[tuple[float, int], float] = field(init=False, repr=False)
    _models: dict[str, Model] = field(init=False, repr=False)

    def __init__(self, table: RuntimeTable, skeleton: Skeleton = Skeleton(), *, name: str | None = None,
                 unit: str = "s", **options: Any) -> None:
        """``options``: those of :class:`ForecastOptions` (method_t, method_a, direction, epsilon,
        poly_degree, strategy, training, train), each left out taking its declared default."""
        table.check()
        held = {"table": table, "skeleton": skeleton, "options": _forecast_options(options),
                "name": _check_name(name or _default_name(table.source)), "unit": unit,
                "_estimates": {}, "_values": {}, "_models": {}}
        for attribute, value in held.items():  # a frozen dataclass sets its fields once, here
            object.__setattr__(self, attribute, value)

    @property
    def source(self) -> str:
        """Where the model comes from, e.g. ``skeleton general forecast of runtimes.csv``."""
        of = Path(self.table.source).name if self.table.source else "a runtime table"
        return f"skeleton {self.skeleton.name} forecast of {of}"

    @property
    def evaluations(self) -> int:
        """How many estimates were computed (each distinct point once, full or value alone)."""
        return len(self._estimates.keys() | self._values.keys())

    # -- evaluation -----------------------------------------------------------------------------

    def estimate(self, n: float, p: int) -> Estimate:
        """The full estimate at one point (parts, methods, hold-out errors), computed once."""
        key = (float(n), int(p))
        if key not in self._estimates:
            self._estimates[key] = estimate(self.table, *key, skeleton=self.skeleton, **self.options.estimate_options())
        return self._estimates[key]

    def _value(self, n: float, p: int) -> float:
        """T(n, p) alone: the full estimate's value where it was made, else one made without the
        hold-out errors that only the report shows."""
        full = self._estimates.get((n, p))
        if full is not None:
            return full.value
        if (n, p) not in self._values:
            self._values[(n, p)] = estimate(self.table, n, p, skeleton=self.skeleton, diagnostics=False,
                                            **self.options.estimate_options()).value
        return self._values[(n, p)]

    def evaluate(self, n: Any, p: Any) -> Any:
        """T(n, p) for arrays broadcast together; every distinct point is estimated once."""
        na, pa = np.broadcast_arrays(np.asarray(n, dtype=float), np.asarray(p, dtype=float))
        self._check_points(na, pa)
        points = np.stack([na.ravel(), pa.ravel()], axis=1)
        if points.shape[0] == 0:
            return np.zeros(na.shape)
        distinct, inverse = np.unique(points, axis=0, return_inverse=True)
        values = np.array([self._value(float(v), int(q)) for v, q in distinct])
        out = values[np.reshape(inverse, -1)].reshape(na.shape)
        return out if out.ndim else float(out)

    def _check_points(self, n: np.ndarray, p: np.ndarray) -> None:
        bad_p = ~(np.isfinite(p) & (p >= 1) & (p == np.floor(p)))
        if bad_p.any():
            raise ModelError(f"{self.name}(n, p): p = {p[bad_p].flat[0]:g} is not a whole number >= 1; "
                             "p counts processing elements (PEs)")
        bad_n = ~(np.isfinite(n) & (n > 0))
        if bad_n.any():
            raise ModelError(f"{self.name}(n, p): n = {n[bad_n].flat[0]:g} is not a positive input size")

    def model(self, name: str | None = None, *, interval: bool = False) -> Model:
        """T(n, p) as a numeric Model over ``("n", "p")``, one per name; with ``interval`` it carries
        jackknife+ members."""
        name = _check_name(name or self.name)
        if name not in self._models:
            self._models[name] = Model.numeric(name, self.evaluate, ("n", "p"), unit=self.unit,
                                               source=self.source, record=self.to_record)
        model = self._models[name]
        if not interval:
            return model
        ensemble = jackknife_ensemble(self, model, name)
        return model if ensemble is None else model.with_meta(ensemble=ensemble)

    def on(self, table: RuntimeTable) -> SkeletonSource:
        """The same forecaster (skeleton, options, name, unit) on another table."""
        return SkeletonSource(table, self.skeleton, name=self.name, unit=self.unit, **asdict(self.options))

    # -- the record -----------------------------------------------------------------------------

    def to_record(self) -> dict[str, Any]:
        """A JSON-ready dict that rebuilds this source exactly: the table inline, skeleton, options."""
        table = self.table
        rows = [{"n": n, "p": "seq" if p == SEQ else p, "time": t, "text": table.texts[(n, p)]}
                for (n, p), t in table.times.items()]
        sk = self.skeleton
        return {"format": SKELETON_MODEL_FORMAT, "name": self.name,
                "table": {"source": table.source, "unit": self.unit,
                          "reference": "absolute" if table.absolute else "relative", "rows": rows},
                "skeleton": {"kind": sk.kind, "r": sk.r, "d": sk.d, "k": sk.k, "name": sk.name},
                "options": asdict(self.options)}

    def forecast_record(self, est: Estimate) -> dict[str, Any]:
        """The forecast at one point with this source's record (``skeleton forecast --json``;
        :meth:`from_record` reads it)."""
        record = self.to_record()
        doc = {"format": record.pop("format"), "n": est.n, "p": est.p, "absolute": est.absolute,
               "forecast": est.value, "share": est.share, "measured": est.measured, "error": est.error,
               "parts": [{"what": q.what, "value": q.value, "method": q.method, "direction": q.direction,
                          "rule": q.rule, "holdout_errors": q.errors, "discarded": q.discarded,
                          "points": [list(q.x), list(q.y)]} for q in (est.sequential, est.penalty)]}
        return {**doc, **record}

    @classmethod
    def from_record(cls, record: Any, path: str | Path | None = None) -> SkeletonSource:
        """Rebuild from :meth:`to_record` output; ``path`` names the file in errors (InputError per bad key)."""
        if not isinstance(record, Mapping):
            raise InputError("a skeleton model record must be a JSON object", path=path)
        fmt = _required(record, "format", path)
        if fmt != SKELETON_MODEL_FORMAT:
            raise InputError(f"'format' is {fmt!r}, not {SKELETON_MODEL_FORMAT!r}", path=path,
                             hint="write the record with perfcompose skeleton forecast --json")
        table, unit = _table_from(_mapping(record, "table", path), path)
        skeleton = _skeleton_from(_mapping(record, "skeleton", path), path)
        options = _options_from(_mapping(record, "options", path), path)
        name = record.get("name")
        if name is not None and not (isinstance(name, str) and name.isidentifier()):
            raise InputError(f"'name' {name!r} is not an identifier", path=path, hint="for example T_gauss")
        return cls(table, skeleton, name=name, unit=unit, **asdict(options))

    @classmethod
    def read_record(cls, path: str | Path) -> SkeletonSource:
        """Read a record from a JSON file (as ``skeleton forecast --json`` writes it)."""
        path = Path(path)
        try:
            record = json.loads(path.read_text())
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror}", path=path) from None
        except json.JSONDecodeError as exc:
            raise InputError(f"not JSON: {exc.msg}", path=path, line=exc.lineno, column=exc.colno) from None
        return cls.from_record(record, path)

    @classmethod
    def from_file(cls, path: str | Path, skeleton: Skeleton = Skeleton(), **options: Any) -> SkeletonSource:
        """Read a runtime table file (:func:`read_table`); ``options`` as for the constructor."""
        return cls(read_table(path), skeleton, **options)


# ---------------------------------------------------------------------------------------------
# Reading a record: each helper names the key it rejects.


def _required(record: Mapping[str, Any], key: str, path: str | Path | None, where: str = "") -> Any:
    if key not in record:
        hint = "a skeleton model record has format, table, skeleton and options" if not where else None
        raise InputError(f"missing '{where}{key}'", path=path, hint=hint)
    return record[key]


def _mapping(record: Mapping[str, Any], key: str, path: str | Path | None) -> Mapping[str, Any]:
    value = _required(record, key, path)
    if not isinstance(value, Mapping):
        raise InputError(f"{key!r} must be a JSON object, not {type(value).__name__}", path=path)
    return value


def _is_whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _table_from(doc: Mapping[str, Any], path: str | Path | None) -> tuple[RuntimeTable, str]:
    """The RuntimeTable of ``doc["rows"]``, exactly as written, and the unit of its times."""
    rows = _required(doc, "rows", path, "table.")
    if not isinstance(rows, list) or not rows:
        raise InputError("'table.rows' must be a non-empty list of {n, p, time, text}", path=path)
    times: dict[tuple[float, int], float] = {}
    texts: dict[tuple[float, int], str] = {}
    for k, row in enumerate(rows):
        where = f"table.rows[{k}]"
        if not isinstance(row, Mapping):
            raise InputError(f"{where!r} must be a JSON object {{n, p, time, text}}", path=path)
        n, p, t = (_required(row, key, path, f"{where}.") for key in ("n", "p", "time"))
        if not (is_finite_number(n) and n > 0):
            raise InputError(f"'{where}.n' = {n!r} is not a positive number", path=path)
        if not (p == "seq" or (_is_whole(p) and p >= 1)):
            raise InputError(f"'{where}.p' = {p!r} is not a PE count >= 1 or 'seq'", path=path)
        if not (is_finite_number(t) and t > 0):
            raise InputError(f"'{where}.time' = {t!r} is not a positive number", path=path)
        text = row.get("text", repr(float(t)))
        if not isinstance(text, str) or not _parses(text):
            raise InputError(f"'{where}.text' = {text!r} is not a number as text", path=path)
        key = (float(n), SEQ if p == "seq" else int(p))
        if key in times:
            raise InputError(f"'{where}' repeats n = {n:g}, p = {p}", path=path)
        times[key], texts[key] = float(t), text
    table = RuntimeTable(times, texts, str(doc.get("source", "")))
    try:
        table.check()
    except DataFormatError as exc:
        raise InputError(f"'table': {exc.reason}", path=path, hint=exc.hint) from None
    reference = doc.get("reference")
    if reference is not None and reference != ("absolute" if table.absolute else "relative"):
        raise InputError(f"'table.reference' is {reference!r}, but the rows "
                         f"{'have' if table.absolute else 'have no'} sequential times (p = 'seq')", path=path,
                         hint="absolute: rows with p = 'seq'; relative: T(n, 1) is the reference")
    unit = doc.get("unit", "s")
    if not isinstance(unit, str):
        raise InputError(f"'table.unit' = {unit!r} must be text, e.g. \"s\"", path=path)
    return table, unit


def _parses(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _skeleton_from(doc: Mapping[str, Any], path: str | Path | None) -> Skeleton:
    kind = _required(doc, "kind", path, "skeleton.")
    if kind not in KINDS:
        raise InputError(f"'skeleton.kind' = {kind!r} is not a skeleton", path=path,
                         hint=f"choose one of {', '.join(KINDS)}")
    values = {}
    for key in ("r", "d", "k"):
        value = doc.get(key, default_of(SkeletonShape, key))
        if not _is_whole(value):
            raise InputError(f"'skeleton.{key}' = {value!r} is not a whole number", path=path)
        values[key] = value
    try:
        return Skeleton(kind, **values)
    except InputError as exc:
        raise InputError(f"'skeleton': {exc.reason}", path=path, hint=exc.hint) from None


def _options_from(doc: Mapping[str, Any], path: str | Path | None) -> ForecastOptions:
    """Options as written; a key left out takes :func:`estimate`'s default."""
    defaults = ForecastOptions()
    values = {**asdict(defaults), **{k: v for k, v in doc.items() if k in asdict(defaults)}}
    methods = f"choose one of {', '.join(FORECAST_METHODS)}"
    for key, ok, text, hint in (
            ("method_t", lambda v: v in METHODS, " is not a method", methods),
            ("method_a", lambda v: v in METHODS, " is not a method", methods),
            ("direction", lambda v: v in DIRECTIONS, ": choose auto, n or p", None),
            ("epsilon", lambda v: is_finite_number(v) and v >= 0, " is not a fraction >= 0", None),
            ("poly_degree", lambda v: _is_whole(v) and v >= 1, " is not a whole number >= 1", None),
            ("strategy", lambda v: v in STRATEGIES, " is not a strategy", f"choose one of {', '.join(STRATEGIES)}"),
            ("training", lambda v: _is_whole(v) and v >= 1, " is not a whole number >= 1", None),
            ("train", lambda v: v is None or isinstance(v, str), " is not a window such as 'n<=9689'", None)):
        if not ok(values[key]):
            raise InputError(f"'options.{key}' = {values[key]!r}{text}", path=path, hint=hint)
    try:
        return ForecastOptions(**values)
    except InputError as exc:
        raise InputError(f"'options': {exc.reason}", path=path, hint=exc.hint) from None
