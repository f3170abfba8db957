"""NAME=VALUE assignments of numbers to parameters, as every command reads them.

``P=1000 N=1e6`` (one assignment per item) and ``x=65536,n=4`` (a point: assignments joined by
commas) become ``{"P": 1000.0, "N": 1e6}``; a malformed item is a located
:class:`~perfcompose.errors.InputError` that says what to write.
"""
from __future__ import annotations

import math
from collections.abc import Iterable

from perfcompose.errors import InputError


def _where(option: str, item: str) -> str:
    return f"{option} {item!r}" if option else repr(item)


def parse_assignment(item: str, *, option: str = "", positive: bool = False) -> tuple[str, float]:
    """``"P=1000"`` -> ``("P", 1000.0)``: a parameter name and a finite number (positive if asked)."""
    name, eq, text = item.partition("=")
    name, text = name.strip(), text.strip()
    example = f"write NAME=VALUE, e.g. {name if name.isidentifier() else 'P'}=1000"
    if not eq:
        raise InputError(f"{_where(option, item)} is not a parameter assignment", hint=example)
    if not name.isidentifier():
        raise InputError(f"'{name}' in {_where(option, item)} is not a parameter name", hint=example)
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"the value of {name} ('{text}') in {_where(option, item)} is not a number",
                         hint=f"write a number, e.g. {name}=1000 or {name}=1e6") from None
    if positive and not (math.isfinite(value) and value > 0):
        raise InputError(f"the value of {name} in {_where(option, item)} must be a positive finite number",
                         hint=f"write a number above 0, e.g. {name}=4")
    if not math.isfinite(value):
        raise InputError(f"the value of {name} in {_where(option, item)} must be a finite number",
                         hint=f"write a number, e.g. {name}=1000")
    return name, value


def parse_assignments(items: Iterable[str] | None, *, option: str = "",
                      positive: bool = False) -> dict[str, float]:
    """``["P=1000", "N=1e6"]`` -> ``{"P": 1000.0, "N": 1e6}``; each name may be given once."""
    values: dict[str, float] = {}
    for item in items or ():
        name, value = parse_assignment(item, option=option, positive=positive)
        if name in values:
            raise InputError(f"{name} is given twice ({_where(option, item)})", hint="give each parameter once")
        values[name] = value
    return values


def parse_point(text: str, *, option: str = "", positive: bool = False) -> dict[str, float]:
    """``"x=65536,n=4"`` -> ``{"x": 65536.0, "n": 4.0}``: assignments joined by commas."""
    return parse_assignments(text.split(","), option=option, positive=positive)
