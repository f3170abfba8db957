"""The estimator convention of every fitter and forecaster, as scikit-learn's ``BaseEstimator``:
options only from ``__init__``, stored under the same names (:meth:`Estimator.get_params`);
:func:`clone` builds a fresh, unfitted copy; what ``fit`` learns ends in ``_`` and
:meth:`Estimator._reset` removes it at the start of every fit. :class:`SeriesFitter`, the base of
every fitter of an experiment, models each series (region x metric) in turn.

>>> from perfcompose.fit.forecast import Loess
>>> Loess(span=0.5).get_params()
{'span': 0.5, 'degree': 2}
>>> clone(Loess(span=0.5)).get_params() == {'span': 0.5, 'degree': 2}
True
"""
from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Self, TypeVar

from perfcompose.data.experiment import Experiment, Series
from perfcompose.errors import FitError
from perfcompose.fit.result import Progress

if TYPE_CHECKING:
    from perfcompose.model import Model

__all__ = ["Estimator", "clone", "SeriesFitter"]

E = TypeVar("E", bound="Estimator")


class Estimator:
    """Base of the fitters: parameters from ``__init__``, fitted attributes with a trailing ``_``."""

    @classmethod
    def _parameters(cls) -> tuple[inspect.Parameter, ...]:
        """The ``__init__`` parameters (without ``self``); ``**kwargs`` cannot be read back."""
        params = tuple(inspect.signature(cls.__init__).parameters.values())[1:]
        for p in params:
            if p.kind is inspect.Parameter.VAR_KEYWORD:
                raise TypeError(f"{cls.__name__}.__init__ takes **{p.name}; name every parameter")
        return params

    def get_params(self) -> dict[str, Any]:
        """The parameters given to ``__init__``, by name (``*args`` as a tuple under its name)."""
        return {p.name: getattr(self, p.name) for p in self._parameters()}

    def clone(self) -> Self:
        """An unfitted copy with equal parameters."""
        return clone(self)

    def _reset(self) -> None:
        """Forget everything an earlier ``fit`` learned (every attribute with a trailing ``_``)."""
        for name in [n for n in vars(self) if n.endswith("_") and not n.startswith("__")]:
            delattr(self, name)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"


def _copy(value: Any) -> Any:
    """A parameter value for a clone: estimators (also inside tuples and lists) are cloned."""
    if isinstance(value, Estimator):
        return clone(value)
    if isinstance(value, (tuple, list)) and any(isinstance(v, Estimator) for v in value):
        return type(value)(_copy(v) for v in value)
    return value


def clone(estimator: E) -> E:
    """A new, unfitted estimator of the same class with equal parameters (nested ones cloned)."""
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for p in estimator._parameters():
        value = _copy(getattr(estimator, p.name))
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            args.extend(value)
        else:
            kwargs[p.name] = value
    return type(estimator)(*args, **kwargs)


class SeriesFitter(Estimator):
    """What every fitter of an experiment shares: ``fit`` models each series (region x metric)
    with ``fit_series`` into ``results_``; ``model_`` is the model when there is one."""

    results_: list[Any]

    def fit_series(self, params: Sequence[str], series: Series, source: str = "",
                   progress: Progress | None = None) -> Any:
        raise NotImplementedError

    def fit(self, experiment: Experiment, metric: str | None = None, region: str | None = None,
            progress: Progress | None = None) -> Self:
        """Model every series (region x metric) of the experiment, or the selected ones;
        ``progress(label, done, total)`` hears of every series started and of the end, or, when
        there is one series, of the steps of its fit."""
        chosen = experiment.select(metric, region) if (metric or region) else experiment
        series = chosen.series
        self._reset()
        self.results_ = []
        each = progress if len(series) > 1 else None   # hears of each series; of one, the fit's steps
        for k, s in enumerate(series):
            if each is not None:
                each(f"fitting {s.label}", k, len(series))
            self.results_.append(self.fit_series(chosen.parameters, s, source=experiment.source,
                                                 progress=None if each else progress))
        if each is not None:
            each("fitted", len(series), len(series))
        return self

    @property
    def model_(self) -> Model:
        """The model when exactly one series was fitted."""
        if len(self.results_) != 1:
            raise FitError(f"{len(self.results_)} series were fitted; use results_ to pick one")
        return self.results_[0].model
