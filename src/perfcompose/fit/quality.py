"""How well a fitted model reproduces its measurements (Extra-P's RSS, SMAPE and adjusted R²), and
when to warn: an adjusted R² below :data:`ADJ_R2_WARNING` flags a likely wrong form, except for a
constant fitted to values that vary by at most :data:`FLAT_SMAPE` % or by no more than their
repetitions' noise (:data:`NOISE_SMAPE` widths).

>>> import numpy as np
>>> y = np.array([256.0, 64, 16, 4, 1])
>>> stats = fit_statistics(y, np.full(5, 1.13), 1)
>>> low_fit_warnings(stats, constant=True)[0].startswith("adjusted R² -")
True
>>> low_fit_warnings(fit_statistics(y, y, 2), constant=False)
()
"""
from __future__ import annotations

import math

import numpy as np

ADJ_R2_WARNING = 0.5   # a fit whose adjusted R² is below this is flagged
FLAT_SMAPE = 5.0       # a constant within this SMAPE (per cent) of flat data is not flagged
NOISE_SMAPE = 3.0      # ... nor one within this many noise widths (Gaussian scatter: SMAPE ~ 0.8 width)


def fit_statistics(y: np.ndarray, pred: np.ndarray, coefficients: int) -> dict[str, float]:
    """RSS, SMAPE (per cent), adjusted R² and the number of points of predictions ``pred`` of ``y``
    by a model with ``coefficients`` fitted coefficients."""
    many = fit_statistics_many(np.asarray(y, dtype=float)[None, :], np.asarray(pred, dtype=float)[None, :],
                               np.array([coefficients]))
    return {k: float(v[0]) for k, v in many.items()}


def fit_statistics_many(Y: np.ndarray, P: np.ndarray, coefficients: np.ndarray) -> dict[str, np.ndarray]:
    """:func:`fit_statistics` of every row of ``Y`` (series, points) predicted by the row of
    ``P``, by a model of ``coefficients`` (series,) coefficients: arrays, one value per series."""
    n, k = Y.shape[1], np.asarray(coefficients)
    rss = np.sum((Y - P) ** 2, axis=1)
    tss = np.sum((Y - Y.mean(axis=1, keepdims=True)) ** 2, axis=1)
    denom = np.abs(Y) + np.abs(P)
    smape = np.mean(np.where(denom > 0, 2 * np.abs(Y - P) / np.where(denom > 0, denom, 1), 0), axis=1) * 100
    with np.errstate(divide="ignore", invalid="ignore"):
        ar2 = 1.0 - (rss / (n - k)) / (tss / (n - 1))
    exact = np.where(rss <= 1e-24 * np.maximum(1.0, np.sum(Y ** 2, axis=1)), 1.0, math.nan)
    return {"rss": rss, "smape": smape, "adj_r2": np.where((tss > 0) & (n - k > 0), ar2, exact),
            "points": np.full(len(Y), float(n))}


def low_fit_warnings(stats: dict[str, float] | object, constant: bool, noise: float = 0.0) -> tuple[str, ...]:
    """A warning when the adjusted R² of a fit is below :data:`ADJ_R2_WARNING` (see the module);
    ``noise`` is the relative noise of one aggregated point, as the repetitions measure it."""
    ar2, smape = float(stats["adj_r2"]), float(stats["smape"])  # type: ignore[index]
    if not ar2 < ADJ_R2_WARNING:          # also NaN: nothing to judge
        return ()
    if constant and smape <= max(FLAT_SMAPE, NOISE_SMAPE * 100.0 * noise):
        return ()
    return (f"adjusted R² {ar2:.3g} is below {ADJ_R2_WARNING}: the model explains little of the data "
            f"(SMAPE {smape:.3g} %); its form is likely wrong",)
