"""A LogGP program as a performance :class:`~perfcompose.model.Model` of its parameters.

The model's value at a point is the makespan of the program instantiated there and simulated with fixed LogGP parameters
and options. Each distinct point is simulated once: evaluations deduplicate their points and keep every makespan in a
cache, so a composed design can evaluate the model over large grids with repeated points at the cost of the distinct
ones. A source writes itself as a JSON record (program, parameters, options) that reads back to the same model.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, fields, replace
from pathlib import Path
from typing import Any, get_args

import numpy as np

from perfcompose.ensemble import RebuiltEnsemble
from perfcompose.errors import InputError
from perfcompose.loggp.jsonfile import JsonText, load_json_program
from perfcompose.loggp.options import GapOrigin, LogGPOptions, Ties
from perfcompose.loggp.params import LogGP
from perfcompose.loggp.steps.execute import simulate_program
from perfcompose.loggp.steps.json_arrays import plain
from perfcompose.loggp.steps.program import Problem
from perfcompose.loggp.steps.template import ProgramTemplate, problem_error
from perfcompose.model import Model

__all__ = ["LogGPSource", "MODEL_RECORD_FORMAT", "read_source"]

MODEL_RECORD_FORMAT = "perfcompose-loggp-model/1"

_OPTIONS = tuple(f.name for f in fields(LogGPOptions))


class LogGPSource:
    """A program template simulated under fixed LogGP parameters; :meth:`model` is its Model.

    The parameters are converted to the program's time unit when both name one. ``origin`` names the program file
    (default: the template's source). ``simulations`` counts the simulations run so far (one per distinct point).
    """

    def __init__(self, template: ProgramTemplate, params: LogGP, *, name: str = "loggp",
                 origin: str | None = None, calibration: Sequence[LogGP] = (), **options: Any) -> None:
        """``options``: those of :class:`~perfcompose.loggp.options.LogGPOptions` (worst_case,
        ties, seed, gap_origin), each left out taking its declared default."""
        unknown = [k for k in options if k not in _OPTIONS]
        if unknown:
            raise InputError(f"unknown LogGP option {unknown[0]!r}", hint="options: " + ", ".join(_OPTIONS))
        opts = LogGPOptions(**options)
        if not name.isidentifier():
            raise InputError(f"a model name must be an identifier, got {name!r}")
        if template.unit and params.unit and params.unit != template.unit:
            params = params.to(template.unit)
        self.template, self.params, self.name = template, params, name
        self.origin = template.source if origin is None else origin
        self.options = replace(opts, worst_case=bool(opts.worst_case), seed=int(opts.seed))
        self.simulations = 0
        self._cache: dict[tuple[float, ...], float] = {}
        #: parameters the calibration could as well have given (see params.calibration_members)
        self.calibration = tuple(calibration)

    @property
    def parameters(self) -> tuple[str, ...]:
        return self.template.parameters

    @property
    def unit(self) -> str:
        """The model's unit: the program's, else the LogGP parameters', else none."""
        return self.template.unit or self.params.unit

    @property
    def source(self) -> str:
        """The model's provenance: ``loggp program FILE``."""
        return f"loggp program {self.origin}".rstrip()

    def _simulated(self, key: tuple[float, ...]) -> float:
        cached = self._cache.get(key)
        if cached is None:
            program = self.template.instantiate(dict(zip(self.parameters, key)))
            result = simulate_program(program, self.params, **asdict(self.options), timelines=False)
            cached = self._cache[key] = result.makespan
            self.simulations += 1
        return cached

    def evaluate(self, *arrays: Any) -> np.ndarray:
        """Makespans at the points given as one array per parameter (broadcast together)."""
        if not arrays:
            return np.asarray(self._simulated(()))
        args = np.broadcast_arrays(*[np.asarray(a, dtype=np.float64) for a in arrays])
        shape = args[0].shape
        points = np.stack([a.reshape(-1) for a in args], axis=1)
        distinct, inverse = np.unique(points, axis=0, return_inverse=True)
        values = np.array([self._simulated(tuple(float(v) for v in row)) for row in distinct])
        return values[inverse.reshape(-1)].reshape(shape)

    def model(self, name: str | None = None, *, unit: str | None = None, interval: bool = False) -> Model:
        """The program's makespan as a Model of the template's parameters.

        Numeric (simulated point by point, cached); without parameters, the constant makespan of one simulation.
        ``unit`` overrides the unit (the program's, else the parameters'). With ``interval`` and a :attr:`calibration`,
        the model carries one member per calibrated parameter set, each simulated the same way.
        """
        name = name or self.name
        unit = self.unit if unit is None else unit
        if not self.parameters:
            model = Model.constant(self._simulated(()), unit=unit, source=self.source, name=name)
        else:
            model = Model.numeric(name, self.evaluate, self.parameters, unit=unit, source=self.source,
                                  record=self.to_record)
        if not (interval and self.calibration):
            return model
        return model.with_meta(ensemble=RebuiltEnsemble(
            model, tuple(self._with(p).model(f"{name}_calibration_{k}", unit=unit)
                         for k, p in enumerate(self.calibration)),
            np.zeros(len(self.calibration)), method="bootstrap over the calibration's repetitions"))

    def _with(self, params: LogGP) -> LogGPSource:
        """The same program and options under other parameters."""
        return LogGPSource(self.template, params, name=self.name, origin=self.origin, **asdict(self.options))

    # -- the JSON record ----------------------------------------------------------------------

    def to_record(self) -> dict[str, Any]:
        """A JSON-ready record of the program, parameters and options (read by :meth:`from_record`)."""
        record: dict[str, Any] = {
            "format": MODEL_RECORD_FORMAT,
            "program": plain(self.template.doc),
            "params": asdict(self.params),
            "options": asdict(self.options),
            "name": self.name}
        if self.origin:
            record["source"] = self.origin
        if self.calibration:  # the parameters the calibration could as well have given: the interval
            record["calibration"] = [asdict(c) for c in self.calibration]
        return record

    @classmethod
    def from_record(cls, record: Any, path: Path | str, *, text: str | JsonText | None = None) -> LogGPSource:
        """Rebuild a source from :meth:`to_record` output read from ``path``; every problem is an
        InputError naming the file and the key (and line and column when ``text`` is given)."""
        path = str(path)
        try:
            fields = _record_fields(record)
            params = _record_params(record["params"])
            options = _record_options(record["options"])
            calibration = _record_calibration(record.get("calibration", []))
        except Problem as p:
            raise problem_error(p, path, text, ()) from None
        template = ProgramTemplate.from_doc(record["program"], source=path, text=text, prefix=("program",))
        return cls(template, params, name=fields["name"], origin=fields["source"], calibration=calibration, **options)


def read_source(path: Path | str) -> LogGPSource:
    """Read a LogGP model record file (``perfcompose loggp simulate --model-json``)."""
    path = Path(path)
    text, record = load_json_program(path, what="model record")
    return LogGPSource.from_record(record, path, text=text)


_KEYS = ("format", "name", "program", "params", "options")


def _record_fields(record: Any) -> dict[str, str]:
    """Check the record's keys, format, name and source; the name and source."""
    if not isinstance(record, dict):
        raise Problem("a LogGP model record is a JSON object", (),
                       hint=f'it starts {{"format": "{MODEL_RECORD_FORMAT}", ...}}')
    keys = "a LogGP model record has " + ", ".join(_KEYS) + " (and optionally source, calibration)"
    missing = [k for k in _KEYS if k not in record]
    if missing:
        raise Problem(f"missing key {missing[0]!r}", (), hint=keys)
    unknown = [k for k in record if k not in (*_KEYS, "source", "calibration")]
    if unknown:
        raise Problem(f"unknown key {unknown[0]!r}", (unknown[0],), hint=keys)
    if record["format"] != MODEL_RECORD_FORMAT:
        raise Problem(f"the format is {record['format']!r}, not {MODEL_RECORD_FORMAT!r}", ("format",),
                       hint="write the record with 'perfcompose loggp simulate --model-json'")
    name, source = record["name"], record.get("source", "")
    if not isinstance(name, str) or not name.isidentifier():
        raise Problem(f"the name must be an identifier, got {name!r}", ("name",))
    if not isinstance(source, str):
        raise Problem(f"the source must be a string, got {source!r}", ("source",))
    return {"name": name, "source": source}


def _record_calibration(members: Any) -> list[LogGP]:
    """The calibration's members: a list of parameter sets as 'params' holds them."""
    if not isinstance(members, list):
        raise Problem(f"must be a list of parameter sets, got {members!r}", ("calibration",))
    out = []
    for k, member in enumerate(members):
        try:
            out.append(_record_params(member))
        except Problem as p:
            raise Problem(p.message, ("calibration", k, *p.path[1:]), p.hint) from None
    return out


def _record_params(params: Any) -> LogGP:
    hint = "'params' holds L, o, g, G and unit"
    if not isinstance(params, dict):
        raise Problem(f"must be an object, got {params!r}", ("params",), hint)
    for key in ("L", "o", "g", "G"):
        if key not in params:
            raise Problem(f"missing key {key!r}", ("params",), hint)
    unknown = [k for k in params if k not in ("L", "o", "g", "G", "unit")]
    if unknown:
        raise Problem(f"unknown key {unknown[0]!r}", ("params", unknown[0]), hint)
    unit = params.get("unit", "")
    if not isinstance(unit, str):
        raise Problem(f"unit must be a string, got {unit!r}", ("params", "unit"))
    try:
        return LogGP(params["L"], params["o"], params["g"], params["G"], unit)
    except InputError as exc:
        bad = next((k for k in ("L", "o", "g", "G") if f" {k} " in f" {exc.reason} "), None)
        raise Problem(exc.reason, ("params",) + ((bad,) if bad else ()), exc.hint) from None


def _record_options(options: Any) -> dict[str, Any]:
    if not isinstance(options, dict):
        raise Problem(f"must be an object, got {options!r}", ("options",),
                       hint="e.g. " + json.dumps(asdict(LogGPOptions())))
    unknown = [k for k in options if k not in _OPTIONS]
    if unknown:
        raise Problem(f"unknown key {unknown[0]!r}", ("options", unknown[0]),
                       hint="options are " + ", ".join(_OPTIONS))
    checks = {"worst_case": (lambda v: isinstance(v, bool), "true or false"),
              "ties": (lambda v: v in get_args(Ties), " or ".join(map(repr, get_args(Ties)))),
              "seed": (lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer"),
              "gap_origin": (lambda v: v in get_args(GapOrigin), " or ".join(map(repr, get_args(GapOrigin))))}
    for key, (ok, what) in checks.items():
        if key in options and not ok(options[key]):
            raise Problem(f"must be {what}, got {options[key]!r}", ("options", key))
    return dict(options)
