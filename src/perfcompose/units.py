"""Time units of models, and what the parameters of a model mean.

A model states its unit: ``s``, ``ms``, ``us`` (or ``µs``), ``ns``, or ``cycles@CLOCK`` (a cycle
count at a given clock, e.g. ``cycles@2.4GHz``); the empty unit means "no unit known", as a
PAMELA model or a LogGP program without a time unit. Composition converts between time units and
refuses to mix a model without a unit with timed ones.

A parameter name means something only inside its source: ``n`` is the input size in a skeleton
table and the thread count in ``tpool_n``. A model may state the *role* of each parameter, and
composition refuses a name that would mean two things.
"""
from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Literal

from perfcompose.errors import ModelError

#: seconds per unit, for the time units composition converts between
TIME_UNITS: dict[str, float] = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}

_CLOCK = {"hz": 1.0, "khz": 1e3, "mhz": 1e6, "ghz": 1e9}
_CYCLES = re.compile(r"^cycles@\s*([0-9.eE+-]+)\s*([kKmMgG]?[hH][zZ])$")

Role = Literal["size", "threads", "nodes", "processes"]

#: what each role means, as messages say it
ROLES: dict[str, str] = {"size": "the input size", "threads": "a thread count", "nodes": "a node count",
                         "processes": "a process (PE) count"}


def seconds_per(unit: str) -> float | None:
    """Seconds in one ``unit``; None for the empty unit (no unit known).

    >>> seconds_per("ms"), seconds_per("cycles@2GHz")
    (0.001, 5e-10)
    """
    if not unit:
        return None
    if unit in TIME_UNITS:
        return TIME_UNITS[unit]
    m = _CYCLES.match(unit.strip())
    if m:
        try:
            clock = float(m.group(1)) * _CLOCK[m.group(2).lower()]
        except ValueError:
            clock = math.nan
        if math.isfinite(clock) and clock > 0:
            return 1.0 / clock
    raise ModelError(f"unknown time unit {unit!r}: use s, ms, us, ns, or cycles@CLOCK such as cycles@2.4GHz")


def is_time_unit(unit: str) -> bool:
    """Whether ``unit`` is a time unit perfcompose converts (s, ms, us, ns, cycles@CLOCK).

    >>> is_time_unit("ns"), is_time_unit(""), is_time_unit("occ")
    (True, False, False)
    """
    try:
        return seconds_per(unit) is not None
    except ModelError:
        return False


#: the units a time is shown in, largest first
_SCALED = (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9))


def human(value: float | None, unit: str, digits: int = 4) -> str:
    """``value`` (in ``unit``) as people read it: a time in s, ms, µs or ns, whichever puts it
    between 1 and 1000; a value of another unit with that unit; one without a unit as a number;
    no value as ``-``.

    >>> human(28480000, "ns"), human(0.0028, "s"), human(1e8, "us"), human(3, "occ"), human(5223.26, "")
    ('28.48 ms', '2.8 ms', '100 s', '3 occ', '5223')
    """
    if value is None:
        return "-"
    v = float(value)
    text = "n/a" if v != v else f"{v:.{digits}g}"
    if not unit:
        return text
    if v == 0 or not math.isfinite(v) or not is_time_unit(unit) or unit.startswith("cycles"):
        return f"{text} {unit}"
    seconds = v * (seconds_per(unit) or 1.0)
    for name, size in _SCALED:
        if abs(seconds) >= size or name == "ns":
            scaled = seconds / size
            if name == "ns" and abs(scaled) < 1 and scaled != 0:
                break  # below a nanosecond: the unit it came in
            return f"{scaled:.{digits}g} {name}"
    return f"{text} {unit}"


def human_interval(low: float, high: float, unit: str, digits: int = 4) -> str:
    """An interval's ends as people read them, each scaled like :func:`human`.

    >>> human_interval(34.4, 1042.5, "us")
    '34.4 µs .. 1.042 ms'
    """
    return f"{human(low, unit, digits)} .. {human(high, unit, digits)}"


def check_unit(unit: str) -> str:
    """``unit`` if perfcompose can convert it (or it is empty), else a ModelError saying what to write."""
    seconds_per(unit)
    return unit


def conversion(source: str, target: str) -> float:
    """The factor that turns a time in ``source`` units into ``target`` units."""
    a, b = seconds_per(source), seconds_per(target)
    if a is None or b is None:
        raise ModelError(f"cannot convert between '{source or 'no unit'}' and '{target or 'no unit'}'")
    return a / b


def merge_roles(first: Mapping[str, str], second: Mapping[str, str], *, first_name: str = "the first model",
                second_name: str = "the second model") -> dict[str, str]:
    """The roles of both models together; a parameter with two different roles is a ModelError."""
    merged = dict(first)
    for name, role in second.items():
        if name in merged and merged[name] != role:
            raise ModelError(f"parameter '{name}' means {ROLES.get(merged[name], merged[name])} in {first_name} "
                             f"and {ROLES.get(role, role)} in {second_name}; bind one of them to another name "
                             f"(e.g. bind = {{ {name} = \"x\" }} in the component's table)")
        merged[name] = role
    return merged
