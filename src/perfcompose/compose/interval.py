"""Carry the components' uncertainty through composition: every prediction with its interval.

Each component with an ensemble (a fitted model's bootstrap members, ``Model.ensemble``) is
replaced by a *stacked* leaf: a numeric function that, given values with a leading member axis,
returns member ``b`` of the component on row ``b``. The program is composed once from the stacked
leaves by the same operators (seq, pipe, tpool, mapreduce, the calibrated operators, any
:class:`~perfcompose.compose.operators.Composer`), so one evaluation of the composed expression
yields every member of the composition, and the interval is read off them by percentiles. A
component without an ensemble (a PAMELA bound, a LogGP simulation, a typed expression) is exact:
it is the same on every row and adds no width.

Members of different components are drawn independently (their measurements are); a study that
resamples its rounds jointly builds leaves whose row ``b`` comes from the same resample.

Under the papers' asymptotic pipe rule a stacked leaf has no asymptotic order, so the choices
the rule made on the central models are taken over: a pipe that kept one stage is that stage.
"""
from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from perfcompose.compose.calibrated import CalibratedComposer, Overheads
from perfcompose.compose.operators import Composer
from perfcompose.compose.terms import Component, Pipe, Term
from perfcompose.ensemble import StackedEnsemble
from perfcompose.model import Model

#: members of a composed prediction
MEMBERS = 200

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


def stacked_leaf(model: Model, count: int) -> Model:
    """``model`` as a stacked leaf (itself when it is exact)."""
    if model.ensemble is None:
        return model
    leaf = stacked(model.name or "part", model.params, model.ensemble.members, count, model.unit)
    return leaf.with_meta(name=model.name, roles=model.roles)


def follow_choices(term: Term, kept: Mapping[Pipe, Term]) -> Term:
    """``term`` with every pipe the asymptotic rule decided replaced by the stage it kept."""
    if isinstance(term, Pipe) and term in kept:
        return follow_choices(kept[term], kept)
    changes = {}
    for f in dataclasses.fields(term):  # type: ignore[arg-type]
        value = getattr(term, f.name)
        if isinstance(value, Term):
            changes[f.name] = follow_choices(value, kept)
    return dataclasses.replace(term, **changes) if changes else term  # type: ignore[type-var]


def has_uncertainty(composer: Composer, term: Term) -> bool:
    """Whether any model the composer uses for ``term`` carries members."""
    models = [composer.components[c] for c in term.components() if c in composer.components]
    if isinstance(composer, CalibratedComposer):
        models += [*composer.hot.values(), *composer.piped.values(), *composer.stages.values()]
        if composer.overheads is not None:
            models += [composer.overheads.stream, composer.overheads.pipe]
    return any(m.ensemble is not None for m in models)


@dataclass(frozen=True)
class _SpreadCalibrated(CalibratedComposer):
    """The calibrated operators over stacked leaves; whether a part reads its data is decided on
    the central models (a stacked leaf has no asymptotic order)."""

    central: CalibratedComposer | None = None

    def _touches(self, term: Component) -> bool:
        assert self.central is not None
        return self.central._touches(term)


def spread(composer: Composer, members: int) -> Composer:
    """The composer with every leaf stacked, under the pointwise pipe rule."""
    leaves = {name: stacked_leaf(model, members) for name, model in composer.components.items()}
    if isinstance(composer, CalibratedComposer):
        over = composer.overheads
        return _SpreadCalibrated(leaves, "pointwise", composer.size, composer.target_unit,
                                 hot={k: stacked_leaf(m, members) for k, m in composer.hot.items()},
                                 piped={k: stacked_leaf(m, members) for k, m in composer.piped.items()},
                                 stages={k: stacked_leaf(m, members) for k, m in composer.stages.items()},
                                 overheads=None if over is None else
                                 Overheads(stacked_leaf(over.stream, members), stacked_leaf(over.pipe, members)),
                                 central=composer)
    return dataclasses.replace(composer, components=leaves, pipe="pointwise")


def with_interval(composer: Composer, term: Term | str, *, members: int = MEMBERS) -> Model:
    """The composed model of ``term`` carrying the composed members (``Model.ensemble``), so that
    ``model.interval(x=...)`` gives the prediction's interval. A program of exact components
    gets none."""
    if isinstance(term, str):
        term = composer.parse(term)
    central = composer(term)
    if not has_uncertainty(composer, term):
        return central
    followed = term
    if composer.pipe == "asymptotic":
        decided = {c.term: c.kept for c in composer.pipe_choices(term) if c.dropped is not None}
        followed = follow_choices(term, decided)
    composed = spread(composer, members).model(followed)
    return central.with_meta(ensemble=StackedEnsemble(composed, members))

