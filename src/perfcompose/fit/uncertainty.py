"""How sure a fitted model is: a bootstrap over the repetitions of its measurements.

The model's terms are kept and its coefficients refitted, in one batched solve, to ``resamples``
data sets: each point's repetitions drawn again with replacement and aggregated as the fitter
does, plus the central fit's residual with a random sign (a wild bootstrap, so lack of fit
widens the interval), about the central model's values. The members are a
:class:`~perfcompose.ensemble.LinearEnsemble` carried by the model; docs/uncertainty.md gives the
coverage measured."""
from __future__ import annotations

from typing import Any

import numpy as np

from perfcompose.data.experiment import Experiment, Series
from perfcompose.ensemble import LinearEnsemble, about_model
from perfcompose.errors import FitError
from perfcompose.fit_options import FitOptions
from perfcompose.model import Model

#: members drawn for a fitted model
RESAMPLES = 200


def basis(model: Model) -> tuple[Model, ...] | None:
    """The model's terms with coefficient 1 (the constant first), or None if it is not PMNF."""
    decomposed = model.terms()
    if decomposed is None:
        return None
    _constant, terms = decomposed
    one = Model.constant(1.0, params=model.params, unit="")
    return (one, *(Model.from_terms(0.0, [(1.0, {n: (i, j) for n, i, j in t.exponents})], unit="")
                   for t in terms))


def bootstrap(model: Model, data: Experiment | Series, *, resamples: int = RESAMPLES, seed: int = 0,
              aggregate: str = FitOptions.aggregate) -> LinearEnsemble | None:
    """Members of ``model`` refitted to resamples of ``data`` (the series it was fitted to), or
    None where the model is not a sum of PMNF terms."""
    series = data.series[0] if isinstance(data, Experiment) else data
    params = data.parameters if isinstance(data, Experiment) else model.params
    terms = basis(model)
    if terms is None:
        return None
    if resamples < 2:
        raise FitError(f"a bootstrap needs at least 2 resamples, got {resamples}")
    coords = series.coordinates()
    values = {p: coords[:, k] for k, p in enumerate(params)}
    design = np.stack([np.broadcast_to(np.asarray(b(**{p: values[p] for p in b.params}), dtype=float),
                                       (len(coords),)) for b in terms], axis=1)
    rng = np.random.default_rng(seed)
    y = np.empty((resamples, len(coords)))
    center = np.empty(len(coords))
    reduce = getattr(np, aggregate)   # median, mean, min or max of each point's repetitions
    for k, point in enumerate(series.points):
        reps = np.asarray(point.values, dtype=float)
        center[k] = reduce(reps, axis=-1)
        draws = reps[rng.integers(0, len(reps), size=(resamples, len(reps)))]
        y[:, k] = reduce(draws, axis=-1)
    scale = np.where(center > 0, center, np.maximum(np.abs(center).max(), 1e-300))
    fitted = np.broadcast_to(np.asarray(model(**{p: values[p] for p in model.params}), dtype=float)
                             if model.params else float(model()), center.shape)
    y = about_model(fitted, center, y, rng.choice((-1.0, 1.0), size=(resamples, len(coords))))
    weighted = design / scale[:, None]
    coef, *_ = np.linalg.lstsq(weighted, (y / scale).T, rcond=None)
    return LinearEnsemble(terms, coef.T, "bootstrap over repetitions + wild residuals")


def with_uncertainty(model: Model, data: Experiment | Series, **options: Any) -> Model:
    """``model`` carrying the members of :func:`bootstrap` (unchanged if it is not PMNF)."""
    ensemble = bootstrap(model, data, **options)
    return model if ensemble is None else model.with_meta(ensemble=ensemble)


def fit_with_uncertainty(fitter: Any, experiment: Experiment, **options: Any) -> Model:
    """Fit with any fitter of the project (``fit(experiment).model_``) and attach the bootstrap."""
    model = fitter.fit(experiment).model_
    aggregate = getattr(fitter, "aggregate", FitOptions.aggregate)
    return with_uncertainty(model, experiment, aggregate=aggregate, **options)
