"""The estimator convention of every fitter and forecaster, as scikit-learn's ``BaseEstimator``:
options only from ``__init__``, stored under the same names (:meth:`Estimator.get_params`);
:func:`clone` builds a fresh, unfitted copy; what ``fit`` learns ends in ``_`` and
:meth:`Estimator._reset` removes it at the start of every fit.

>>> from perfcompose.fit.forecast import Loess
>>> Loess(span=0.5).get_params()
{'span': 0.5, 'degree': 2}
>>> clone(Loess(span=0.5)).get_params() == {'span': 0.5, 'degree': 2}
True
"""
from __future__ import annotations

import inspect
from typing import Any, Self, TypeVar

__all__ = ["Estimator", "clone"]

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
