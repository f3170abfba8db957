"""Carry the components' uncertainty through composition: every prediction with its interval.

Each component with an ensemble (a fitted model's bootstrap members, ``Model.ensemble``) is
replaced by a *stacked* leaf: a numeric function that, given values with a leading member axis,
returns member ``b`` of the component on row ``b``. The program is composed from the stacked
leaves by the same operators (seq, pipe, tpool, mapreduce, the calibrated operators, any
:class:`~perfcompose.compose.operators.Composer`), in the same pass as its model (a lane of
:meth:`~perfcompose.compose.operators.Composer.evaluate`), so one evaluation of the composed expression
yields every member of the composition, and the interval is read off them by percentiles. A
component without an ensemble (a PAMELA bound, a LogGP simulation, a typed expression) is exact:
it is the same on every row and adds no width.

Members of different components are drawn independently (their measurements are); a study that
resamples its rounds jointly builds leaves whose row ``b`` comes from the same resample.

Under the papers' asymptotic pipe rule a stacked leaf has no asymptotic order, so the choices
the rule made on the central models are taken over: a pipe that kept one stage is that stage.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from perfcompose.compose.operators import Composer, Evaluated, Lane
from perfcompose.compose.terms import Term
from perfcompose.ensemble import StackedEnsemble
from perfcompose.model import Model

#: members of a composed prediction
MEMBERS = 200
#: the lane of the composition pass (:class:`~perfcompose.compose.operators.Lane`) with the members
MEMBERS_LANE = "members"

_serial = itertools.count()


def stacked(name: str, params: tuple[str, ...], members: Callable[..., np.ndarray], count: int,
            unit: str) -> Model:
    """A numeric leaf whose row ``b`` is member ``b``: ``members(**values)`` returns an array of
    shape ``(m, *shape)`` (m members; row ``b`` takes member ``b mod m``)."""

    def f(*arrays: Any) -> np.ndarray:
        args = np.broadcast_arrays(*[np.asarray(a, dtype=float) for a in arrays]) if arrays else []
        shape = args[0].shape if args else ()
        if len(shape) >= 1 and shape[0] == count:
            # every row holds the same values: evaluate once, take row b from member b
            rows = np.asarray(members(**{p: a[0] for p, a in zip(params, args)}), dtype=float)
            rows = np.broadcast_to(rows.reshape(rows.shape + (1,) * (len(shape) - rows.ndim)),
                                   (rows.shape[0], *shape[1:]))
            return rows[np.arange(count) % rows.shape[0]]
        rows = members(**{p: a for p, a in zip(params, args)})  # a value without the member axis
        picked = rows[np.arange(count) % rows.shape[0]]
        return picked.reshape((count,) + (1,) * max(len(shape), 1)) if not shape else picked

    ident = "".join(c if c.isalnum() else "_" for c in name) or "part"
    return Model.numeric(f"{ident}_members_{next(_serial)}", f, params, unit=unit, source="ensemble")


def members_lane(composer: Composer, term: Term, members: int = MEMBERS) -> Lane | None:
    """The composed members of ``term`` to fold beside its model, following the choices of the
    asymptotic rule (a stacked leaf has no order); None for a program of exact components."""
    if not any(m.ensemble is not None for m in composer.uses(term)):
        return None
    def leaf(model: Model) -> Model:  # a stacked leaf; itself when it is exact
        if model.ensemble is None:
            return model
        return stacked(model.name or "part", model.params, model.ensemble.members, members, model.unit).with_meta(
            name=model.name, roles=model.roles)

    return Lane(MEMBERS_LANE, composer.spread(leaf), follow=True)


def interval_of(tree: Evaluated, model: Model, members: int = MEMBERS) -> Model:
    """``model`` carrying the members the tree holds (``Model.ensemble``), if it holds any."""
    stacked = tree.lanes.get(MEMBERS_LANE)
    return model if stacked is None else model.with_meta(ensemble=StackedEnsemble(stacked, members))


def with_interval(composer: Composer, term: Term | str, *, members: int = MEMBERS) -> Model:
    """The composed model of ``term`` carrying the composed members (``Model.ensemble``), so that
    ``model.interval(x=...)`` gives the prediction's interval. A program of exact components
    gets none."""
    if isinstance(term, str):
        term = composer.parse(term)
    lane = members_lane(composer, term, members)
    tree = composer.evaluate(term, () if lane is None else (lane,))
    return interval_of(tree, tree.model.with_meta(name=str(term), source="composed"), members)
