"""Fitting every series of a profile: the one place that says how.

:func:`fit_all` hands the whole experiment to :func:`perfcompose.fit.profile.fit_profile`, which
fits all its series (in this process or spread over a Dask scheduler).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from perfcompose.data.experiment import Experiment

Progress = Callable[[str, int, int], None]


def fit_all(experiment: Experiment, *, fitter: Any = None, scheduler: str | None = None,
            progress: Progress | None = None) -> list[Any]:
    """One :class:`~perfcompose.fit.FitResult` per series of ``experiment``, in its order.

    >>> from perfcompose.data import Experiment
    >>> e = Experiment.single(["x"], [((x,), (3 + 2 * x,)) for x in (4, 8, 16, 32, 64)])
    >>> fit_all(e)[0].text(digits=6)
    '3 + 2 * x^(1)'
    """
    from perfcompose.fit.profile import fit_profile

    return list(fit_profile(experiment, fitter=fitter, scheduler=scheduler, progress=progress))
