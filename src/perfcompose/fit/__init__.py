"""Empirical performance modeling: PMNF models fitted to measurements, and forecasts of a series.

>>> from perfcompose.fit import PMNFFitter
>>> # PMNFFitter(aggregate="median").fit(experiment).results_
>>> from perfcompose.fit import SelectionPolicy
>>> # PMNFFitter(policy=SelectionPolicy(plausible=2.0)).fit(experiment).model_
>>> from perfcompose.fit import fit_profile
>>> # fit_profile(experiment, scheduler="local")  # one FitResult per call path and metric
>>> from perfcompose.fit import LmPoly
>>> round(float(LmPoly(3).fit([1, 2, 3, 4, 5], [1, 8, 27, 64, 125]).predict(6)), 9)
216.0
"""
from typing import TYPE_CHECKING

from perfcompose.lazy_names import lazy_exports

# Each public name and the module that holds it; imported on first use (PEP 562), so that
# fitting a PMNF model loads neither SymPy (forecasts, two-piece models) nor SciPy.
if TYPE_CHECKING:
    from perfcompose.fit.advisor import Suggestion, advise, advise_series
    from perfcompose.fit.extrap_models import model_set, saved_model_sets
    from perfcompose.fit.forecast import (
        METHODS,
        Choice,
        Forecaster,
        ForecastError,
        Lm,
        LmPoly,
        Loess,
        MeanOf,
        Spline,
        choose,
        forecaster,
    )
    from perfcompose.fit.pmnf import PMNFFitter
    from perfcompose.fit.profile import fit_profile
    from perfcompose.fit.result import Candidate, FitResult
    from perfcompose.fit.segmented import SegmentedFit, SegmentedFitter, piecewise_model
    from perfcompose.fit.selection_policy import SelectionPolicy

__getattr__, __dir__, __all__ = lazy_exports(globals())
