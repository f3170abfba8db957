"""The base of every fitter of an experiment: each series (region x metric) modelled in turn."""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Self

from perfcompose.data.experiment import Experiment, Series
from perfcompose.errors import FitError
from perfcompose.fit.base import Estimator
from perfcompose.fit.result import Progress

if TYPE_CHECKING:
    from perfcompose.model import Model

__all__ = ["SeriesFitter"]


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
