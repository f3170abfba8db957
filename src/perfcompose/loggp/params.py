"""LogGP machine parameters (paper 002, section 3) and the parameter file that ``simulate`` reads.

Times are in one unit of the user's choice (the program's); ``G`` is that unit per byte.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from perfcompose.errors import InputError
from perfcompose.finite import is_finite_number, is_number
from perfcompose.loggp.jsonfile import load_json
from perfcompose.units import TIME_UNITS

__all__ = ["LogGP", "PARAMS_FORMAT", "UNITS", "convert_time", "read_params", "write_params", "MEIKO_CS2",
           "DEV_MACHINE"]

PARAMS_FORMAT = "perfcompose-loggp/1"

#: the largest L, o, g or G read: simulated times add many of them and must stay finite
MAX_PARAMETER = 1e15

#: seconds per unit, for converting parameter files between time units (the ASCII spellings)
UNITS: dict[str, float] = {k: v for k, v in TIME_UNITS.items() if k.isascii()}


def convert_time(value: float, unit: str, to: str) -> float:
    """``value`` in ``unit`` expressed in ``to`` (both from :data:`UNITS`)."""
    return value * UNITS[unit] / UNITS[to]


@dataclass(frozen=True)
class LogGP:
    """The LogGP parameters: latency ``L``, overhead ``o``, gap ``g``, gap per byte ``G``.

    ``P`` (the processor count) belongs to the program, not to the machine description.
    """

    L: float
    o: float
    g: float
    G: float
    unit: str = ""

    def __post_init__(self) -> None:
        for name in ("L", "o", "g", "G"):
            value = getattr(self, name)
            if not is_number(value):
                raise InputError(f"LogGP parameter {name} must be a number, got {value!r}")
            if not is_finite_number(value) or value < 0:
                raise InputError(f"LogGP parameter {name} = {value!r} must be finite and non-negative",
                                 hint="latency, overhead and gaps are durations")
            if value > MAX_PARAMETER:
                raise InputError(f"LogGP parameter {name} = {value!r} is larger than {MAX_PARAMETER:g}",
                                 hint="sums of such durations would leave the range of a double; "
                                      "give the parameters in a larger time unit")
            object.__setattr__(self, name, float(value) + 0.0)  # -0.0 is 0
        if self.unit and self.unit not in UNITS:
            raise InputError(f"unknown time unit {self.unit!r}", hint=f"use one of {', '.join(UNITS)}")

    def message_time(self, nbytes: float) -> float:
        """End-to-end time of one isolated ``nbytes`` message: o + (k-1)G + L + o."""
        return 2 * self.o + max(nbytes - 1, 0) * self.G + self.L

    def to(self, unit: str) -> LogGP:
        """The same parameters in another time unit (needs ``self.unit``)."""
        if not self.unit:
            raise InputError("the parameters have no unit to convert from")
        if unit not in UNITS:
            raise InputError(f"unknown time unit {unit!r}", hint=f"use one of {', '.join(UNITS)}")
        f = UNITS[self.unit] / UNITS[unit]
        return LogGP(self.L * f, self.o * f, self.g * f, self.G * f, unit)

    def replace(self, **changes: float | None) -> LogGP:
        """A copy with the given parameters changed (``None`` keeps the old value)."""
        changed: dict[str, Any] = {k: v for k, v in changes.items() if v is not None}
        return replace(self, **changed)


#: the Meiko CS-2 values of the paper's section 4.1 example, in microseconds
MEIKO_CS2 = LogGP(L=9.0, o=2.0, g=14.0, G=0.03, unit="us")

#: medians of ``perfcompose loggp calibrate`` (15 repetitions, mpi4py 4.1 over MPICH 5.0, two ranks
#: on the 2-core development machine; examples/loggp/params_local.json holds the full record):
#: the default network of the Gaussian elimination study, whose operations are timed here too
DEV_MACHINE = LogGP(L=0.36, o=0.56, g=1.31, G=7.1e-5, unit="us")


def write_params(path: Path, params: LogGP, extra: Mapping[str, Any] | None = None) -> None:
    """Write a parameter file: format tag, unit, L, o, g, G, and anything in ``extra``
    (spread over repetitions, raw measurements, provenance)."""
    record = {"format": PARAMS_FORMAT, "unit": params.unit or "us", "L": params.L, "o": params.o,
              "g": params.g, "G": params.G, **(extra or {})}
    Path(path).write_text(json.dumps(record, indent=2) + "\n")


def read_params(path: Path) -> LogGP:
    """Read a parameter file written by :func:`write_params` (or by hand: an object with L, o, g, G
    and optionally ``unit``)."""
    path, example = Path(path), 'write {"unit": "us", "L": 9, "o": 2, "g": 14, "G": 0.03}'
    text, data = load_json(path, what="parameter file", hint=example)
    if not isinstance(data, dict):
        raise InputError("a parameter file holds one JSON object", path=path, hint=example)
    fmt = data.get("format", PARAMS_FORMAT)
    if fmt != PARAMS_FORMAT:
        raise InputError(f"unknown parameter file format {fmt!r}", path=path, hint=f"expected {PARAMS_FORMAT}")
    missing = [k for k in ("L", "o", "g", "G") if k not in data]
    if missing:
        raise InputError(f"missing LogGP parameter(s) {', '.join(missing)}", path=path,
                         hint="a parameter file needs L, o, g and G")
    unit = data.get("unit", "")
    if not isinstance(unit, str):
        raise InputError(f"'unit' must be a string, got {unit!r}", path=path)
    try:
        return LogGP(data["L"], data["o"], data["g"], data["G"], unit)
    except InputError as exc:
        raise InputError(exc.reason, path=path, hint=exc.hint) from None


def calibration_members(path: Path, count: int = 20, seed: int = 0) -> list[LogGP]:
    """Parameters that the calibration in ``path`` could as well have given: the medians of ``count`` bootstrap
    resamples of its repetitions (``per_repetition``, written by ``loggp calibrate``), each median that falls below zero
    taken as zero. Empty for a file without repetitions (parameters typed in are exact)."""
    import numpy as np

    _, data = load_json(Path(path), what="parameter file")
    reps = data.get("per_repetition") if isinstance(data, dict) else None
    names = ("L", "o", "g", "G")
    if not isinstance(reps, dict) or not all(isinstance(reps.get(k), list) for k in names):
        return []
    try:
        table = np.array([[float(v) for v in reps[k]] for k in names])
    except (TypeError, ValueError):
        raise InputError("'per_repetition' must hold a list of numbers for each of L, o, g and G",
                         path=path, hint="write it with perfcompose loggp calibrate") from None
    if table.shape[1] < 2 or not np.all(np.isfinite(table)):
        return []
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, table.shape[1], size=(count, table.shape[1]))
    medians = np.maximum(np.median(table[:, picks], axis=2), 0.0)  # (4, count)
    unit = data.get("unit", "") if isinstance(data.get("unit", ""), str) else ""
    try:
        return [LogGP(float(L), float(o), float(g), float(G), unit) for L, o, g, G in medians.T]
    except InputError as exc:
        raise InputError(f"per_repetition: {exc.reason}", path=path, hint=exc.hint) from None


def given_params(path: Path | None, given: Mapping[str, float | None], *,
                 spell: Callable[[list[str]], str] = ", ".join, hint: str = "") -> LogGP:
    """The LogGP parameters from a parameter file and/or given one by one (``given``: L, o, g, G, None where not given):
    a parameter given replaces the file's value. Without a file, all four must be given, else an InputError names the
    missing ones (``spell`` writes their names, e.g. as flags) with ``hint``."""
    if path is not None:
        return read_params(path).replace(**given)
    missing = [k for k, v in given.items() if v is None]
    if missing:
        raise InputError(f"missing LogGP parameter(s) {spell(missing)}", hint=hint or None)
    L, o, g, G = (float(given[k] or 0.0) for k in ("L", "o", "g", "G"))  # all given: none is None here
    return LogGP(L, o, g, G)


def given_members(path: Path | None, given: Mapping[str, float | None]) -> list[LogGP]:
    """The calibration's members (:func:`calibration_members`) of a parameter file, with the
    parameters given one by one in their place in every member (a parameter given is exact)."""
    return [] if path is None else [p.replace(**given) for p in calibration_members(path)]
