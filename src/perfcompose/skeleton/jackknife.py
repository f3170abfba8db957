"""How sure a skeleton forecast is: jackknife+ members from the runtime table's hold-out errors.

A runtime table has no repetitions to resample, so whole columns are left out in turn (every time
at one n, then at one p); the forecaster rebuilt on the rest forecasts them, and each error, on a
log scale, is laid around the rebuilt forecaster's prediction
(:class:`~perfcompose.ensemble.RebuiltEnsemble`). Columns at the table's edge make the members
see extrapolation one step out."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from perfcompose.ensemble import RebuiltEnsemble
from perfcompose.errors import PerfcomposeError
from perfcompose.skeleton.table import SEQ, RuntimeTable
from perfcompose.skeleton.window import Window

if TYPE_CHECKING:
    from perfcompose.model import Model
    from perfcompose.skeleton.source import SkeletonSource

#: a large table leaves out at most this many columns per direction (both edges among them) and
#: scores at most this many times per column, so that its members cost seconds, not minutes
MAX_COLUMNS = 8
MAX_SCORED = 6


def _spread_out(items: list, count: int) -> list:
    """At most ``count`` of ``items``, evenly spaced, the first and the last included."""
    return items if len(items) <= count else [items[int(i)] for i in np.linspace(0, len(items) - 1, count).round()]


def column_groups(table: RuntimeTable) -> list[list[tuple[float, int]]]:
    """The measurements at each n (sequential time included), then at each p."""
    keys = sorted(table.times)
    return ([[k for k in keys if k[0] == n] for n in _spread_out(table.ns, MAX_COLUMNS)]
            + [[k for k in keys if k[1] == p] for p in _spread_out(table.ps, MAX_COLUMNS)])


def jackknife_ensemble(source: SkeletonSource, central: Model, name: str) -> RebuiltEnsemble | None:
    """The jackknife+ members of ``central`` (``source``'s model, named ``name``), or None when
    fewer than 2 left-out times can be forecast from the rest."""
    table = source.table
    if source.options.train is not None:  # times outside the window are not learnt from: nor scored
        table = Window.parse(source.options.train).restrict(table)
    basis: list[Model] = []
    spread: list[float] = []
    for k, group in enumerate(column_groups(table)):
        try:
            rest = source.on(table.without_all(group))
        except PerfcomposeError:
            continue  # what is left cannot be forecast from
        model = None
        for n, p in _spread_out([key for key in group if key[1] != SEQ], MAX_SCORED):
            try:
                forecast = rest.estimate(n, p).value
            except PerfcomposeError:
                continue  # the rest cannot forecast this time: it says nothing about the error
            if not (forecast > 0 and math.isfinite(forecast)):
                continue
            model = model or rest.model(f"{name}_without_{k}")
            basis.append(model)
            spread.append(abs(math.log(table.times[(n, p)] / forecast)))
    return None if len(basis) < 2 else RebuiltEnsemble(central, tuple(basis), np.array(spread))
