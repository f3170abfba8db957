"""How sure a model is: an ensemble of plausible models that evaluates all members at once.

A fitted model's uncertainty is a :class:`LinearEnsemble`: the model's terms (its basis) and one
row of coefficients per bootstrap resample of the measurements. A composed model's uncertainty
is a :class:`StackedEnsemble`: the composed expression built from *stacked* leaves, numeric
functions that return member ``b`` of their component on row ``b`` of a leading member axis, so
one evaluation of the composed expression gives every member of the composition. A forecast from
a table, or a simulation under calibrated parameters, is a :class:`RebuiltEnsemble`. A component
without an ensemble (a PAMELA bound, a simulation under parameters typed in) is exact: it is the
same on every row.

An interval is read off the members by percentiles (:func:`percentile_interval`).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from perfcompose.errors import ModelError, PerfcomposeError

if TYPE_CHECKING:
    from perfcompose.model import Model

#: the interval printed next to every prediction
DEFAULT_LEVEL = 0.9


def percentile_interval(members: np.ndarray, level: float = DEFAULT_LEVEL) -> tuple[np.ndarray, np.ndarray]:
    """The central ``level`` interval of the members (axis 0): ``(low, high)``."""
    if not 0.0 < level < 1.0:
        raise ModelError(f"an interval level is a fraction between 0 and 1, got {level!r}")
    lo, hi = np.quantile(np.asarray(members, dtype=float), [(1 - level) / 2, (1 + level) / 2], axis=0)
    return lo, hi


def about_model(fitted: np.ndarray, center: np.ndarray, resampled: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """Each member's data (``(..., resamples, points)``): the fitted model's values, moved by how
    far the resampled aggregate lies from the measured one (``center``) and by the model's own
    residual with a random sign (a wild bootstrap). The members thus scatter about the model the
    fitter chose, which may weigh the points otherwise than the members' plain relative least
    squares, not about a refit of the data."""
    fitted, center = fitted[..., None, :], center[..., None, :]
    return fitted + (resampled - center) + signs * (center - fitted)


def time_bounds(value: Any, low: Any, high: Any) -> tuple[Any, Any]:
    """An interval of a time as it is reported: never below zero, and holding the value itself
    (members spread to one side of a prediction, or below zero, would leave it outside)."""
    lo = np.maximum(np.minimum(low, value), 0.0)
    hi = np.maximum(high, value)
    return (float(lo), float(hi)) if np.ndim(lo) == 0 else (lo, hi)


def _broadcast(values: Mapping[str, Any], params: Sequence[str]) -> tuple[dict[str, np.ndarray], tuple[int, ...]]:
    missing = [p for p in params if p not in values]
    if missing:
        raise ModelError(f"the ensemble needs values for {', '.join(missing)}")
    arrays = np.broadcast_arrays(*[np.asarray(values[p], dtype=float) for p in params]) if params else []
    shape = arrays[0].shape if arrays else ()
    return dict(zip(params, arrays)), shape


@dataclass(frozen=True, eq=False)
class LinearEnsemble:
    """Members ``sum_k weights[b, k] * basis[k]``: the same terms with resampled coefficients."""

    basis: tuple[Model, ...]
    weights: np.ndarray
    #: how the members were obtained (for the docs and the JSON record)
    method: str = "bootstrap"

    def __post_init__(self) -> None:
        w = np.atleast_2d(np.asarray(self.weights, dtype=float))
        if w.shape[1] != len(self.basis):
            raise ModelError(f"{w.shape[1]} coefficients per member for {len(self.basis)} basis functions")
        object.__setattr__(self, "weights", w)

    @property
    def size(self) -> int:
        return int(self.weights.shape[0])

    @property
    def params(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p for b in self.basis for p in b.params))

    def members(self, **values: Any) -> np.ndarray:
        """Every member evaluated at the values: shape ``(members, *broadcast shape)``."""
        arrays, shape = _broadcast(values, self.params)
        cols = [np.broadcast_to(np.asarray(b(**{p: arrays[p] for p in b.params}), dtype=float), shape)
                for b in self.basis]
        stacked = np.stack(cols, axis=0).reshape(len(cols), -1)
        return (self.weights @ stacked).reshape((self.size, *shape))

    def scaled(self, factor: float) -> LinearEnsemble:
        return LinearEnsemble(self.basis, self.weights * factor, self.method)

    def bind(self, mapping: Mapping[str, Any]) -> LinearEnsemble:
        return LinearEnsemble(tuple(b.bind({k: v for k, v in mapping.items() if k in b.params})
                                    for b in self.basis), self.weights, self.method)

    def to_json(self) -> dict[str, Any]:
        return {"method": self.method, "parameters": list(self.params), "basis": [str(b) for b in self.basis],
                "coefficients": self.weights.tolist()}

    @classmethod
    def from_json(cls, record: Mapping[str, Any], parse: Callable[[str, list[str]], Model]) -> LinearEnsemble:
        """The ensemble of a model record's ``ensemble``; ``parse`` reads a basis function's text in the
        record's parameters (:meth:`perfcompose.model.Model.parse`, which builds on this module)."""
        try:
            params = [str(p) for p in record.get("parameters", ())]
            basis = tuple(parse(str(t), params) for t in record["basis"])
            weights = np.asarray(record["coefficients"], dtype=float)
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"an 'ensemble' record needs 'basis' (model texts) and 'coefficients' "
                             f"(one list per member): {exc}") from None
        return cls(basis, weights, str(record.get("method", "bootstrap")))


@dataclass(frozen=True, eq=False)
class StackedEnsemble:
    """Members of a composition: ``stacked`` evaluated with a leading member axis on every value."""

    stacked: Model
    size: int

    @property
    def params(self) -> tuple[str, ...]:
        return self.stacked.params

    def members(self, **values: Any) -> np.ndarray:
        arrays, shape = _broadcast(values, self.params)
        flat = max(int(np.prod(shape)), 1)
        rows = {p: np.broadcast_to(a.reshape(1, -1) if a.size else a.reshape(1, 0), (self.size, flat))
                for p, a in arrays.items()}
        out = np.asarray(self.stacked(**rows), dtype=float)
        return np.broadcast_to(out, (self.size, flat)).reshape((self.size, *shape))

    def scaled(self, factor: float) -> StackedEnsemble:
        return StackedEnsemble(self.stacked * factor, self.size)

    def bind(self, mapping: Mapping[str, Any]) -> StackedEnsemble:
        return StackedEnsemble(self.stacked.bind({k: v for k, v in mapping.items() if k in self.stacked.params}),
                               self.size)


@dataclass(frozen=True, eq=False)
class SampledEnsemble:
    """Members given by a function: ``function(**values)`` returns ``(size, *shape)`` (for a
    model known only by its measurements, such as medians over resampled rounds)."""

    function: Callable[..., np.ndarray]
    size: int
    params: tuple[str, ...] = ()

    def members(self, **values: Any) -> np.ndarray:
        arrays, shape = _broadcast(values, self.params)
        return np.broadcast_to(np.asarray(self.function(**arrays), dtype=float), (self.size, *shape))

    def scaled(self, factor: float) -> SampledEnsemble:
        function = self.function
        return SampledEnsemble(lambda **v: function(**v) * factor, self.size, self.params)

    def bind(self, mapping: Mapping[str, Any]) -> SampledEnsemble:
        if any(k in self.params for k in mapping):
            raise ModelError("the members of a measured curve cannot be rebound to other parameters")
        return self


@dataclass(frozen=True, eq=False)
class RebuiltEnsemble:
    """Members of a model known only numerically, rebuilt from other data: without a column of
    its table (a forecast's jackknife+) or from resampled calibrations (a simulation's bootstrap).

    ``basis[i]`` is one rebuilt model and ``spread[i]`` a log-scale error laid around it (0 for a
    bootstrap): the members are ``basis[i] * exp(-spread[i])`` and ``basis[i] * exp(+spread[i])``.
    For a jackknife+ (Barber, Candès, Ramdas and Tibshirani, 2021) ``basis[i]`` is the model
    rebuilt without some measured points and ``spread[i]`` the absolute log of one of them over its
    forecast by that model; a log scale gives runtimes that span decades comparable errors. Where a
    rebuilt model cannot forecast a point, ``central`` stands in for it.
    """

    central: Model
    basis: tuple[Model, ...]
    spread: np.ndarray
    factor: float = 1.0
    method: str = "jackknife+ over the table's columns"

    @property
    def size(self) -> int:
        return 2 * len(self.basis)

    @property
    def params(self) -> tuple[str, ...]:
        return self.central.params

    def members(self, **values: Any) -> np.ndarray:
        arrays, shape = _broadcast(values, self.params)
        central: np.ndarray | None = None
        rows = []
        for model in self.basis:
            try:
                value = np.broadcast_to(np.asarray(model(**arrays), dtype=float), shape)
            except PerfcomposeError:
                if central is None:
                    central = np.broadcast_to(np.asarray(self.central(**arrays), dtype=float), shape)
                value = central
            rows.append(value)
        mid = np.stack(rows, axis=0) * self.factor
        width = np.exp(np.reshape(self.spread, (-1,) + (1,) * len(shape)))
        return np.concatenate([mid / width, mid * width], axis=0)

    def scaled(self, factor: float) -> RebuiltEnsemble:
        return RebuiltEnsemble(self.central, self.basis, self.spread, self.factor * factor, self.method)

    def bind(self, mapping: Mapping[str, Any]) -> RebuiltEnsemble:
        return RebuiltEnsemble(self.central.bind(mapping), tuple(b.bind(mapping) for b in self.basis),
                                 self.spread, self.factor, self.method)
