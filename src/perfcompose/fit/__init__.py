"""Empirical performance modeling: PMNF models fitted to measurements.

>>> from perfcompose.fit import PMNFFitter
>>> # PMNFFitter(aggregate="median").fit(experiment).results_
"""
from perfcompose.fit.pmnf import Candidate, FitResult, PMNFFitter, fit

__all__ = ["PMNFFitter", "FitResult", "Candidate", "fit"]
