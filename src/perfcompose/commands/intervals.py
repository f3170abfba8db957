"""A prediction as the commands print it: the composed model with its interval, and what more
workers than cores do to it."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from perfcompose.commands.common import err_console
from perfcompose.compose.interval import interval_of, members_lane
from perfcompose.compose.oversubscription import shared
from perfcompose.ensemble import DEFAULT_LEVEL, time_bounds
from perfcompose.errors import InputError
from perfcompose.finite import is_time

LEVEL_TEXT = f"{100 * DEFAULT_LEVEL:g} % interval"


def prediction(composer: Any, term: Any, *, warn: bool = True) -> Any:
    """The composed model of ``term`` with its interval (where a component has one), accounting
    for more workers than cores (max with the total work over the cores) and warning about it."""
    if isinstance(term, str):
        term = composer.parse(term)
    lane = members_lane(composer, term)  # composed once: the model, its members and the cores' floor
    tree = composer.evaluate(term, () if lane is None else (lane,))
    model, over = shared(tree, interval_of(tree, tree.model.with_meta(name=str(term), source="composed")))
    if over is not None and warn:
        err_console.print(f"[yellow]warning:[/yellow] {over}", highlight=False)
    return model


def point_lines(model: Any, points: Sequence[Mapping[str, float]], which: str = "") -> list[str]:
    """``at x=65536: 1.23e+06 [1.2e+06, 1.27e+06] ns (90 % interval)`` per point; ``which`` names
    the model the values are of (`` (workers sharing 2 cores)``)."""
    lines = []
    for point in points:
        missing = [p for p in model.params if p not in point]
        if missing:
            given = ",".join(f"{k}={v:g}" for k, v in point.items())
            example = ",".join([given, *(f"{m}={65536 if m == 'x' else 4}" for m in missing)])
            raise InputError(f"--at {given}: give a value for {', '.join(missing)} too", hint=f"e.g. --at {example}")
        values = {p: point[p] for p in model.params}
        value = float(np.asarray(model(**values)))
        where = ", ".join(f"{k}={v:g}" for k, v in point.items()) + which
        if not is_time(value):
            raise InputError(f"--at {where}: the program's time is {value:g} {model.unit} there, not a finite "
                             "time at or above zero", hint="the model is undefined there (log2(0), a division by "
                                                           "zero) or overflows a double: choose another point")
        bounds = model.interval(**values)
        if bounds is None:
            lines.append(f"at {where}: {value:.6g} {model.unit} (no interval: no component carries one; "
                         "exact sources and saved records have none)")
        else:
            low, high = time_bounds(value, float(np.asarray(bounds[0])), float(np.asarray(bounds[1])))
            lines.append(f"at {where}: {value:.6g} [{low:.6g}, {high:.6g}] {model.unit} ({LEVEL_TEXT})")
    return lines
