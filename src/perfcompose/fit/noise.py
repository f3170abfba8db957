"""The relative noise a PMNF fit scores its hypotheses against: measured from the repetitions of
the points (without their outliers), estimated from the scatter of the points where nothing was
repeated, and raised to that scatter where the points scatter beyond the noise of their repetitions;
and how far below zero a fitted constant may fall within that noise and still count as non-negative (a
cost has no negative part, and a negative constant marks a form that fits only by cancelling its own growth)."""
from __future__ import annotations

import dataclasses
import math
import warnings
from functools import lru_cache
from statistics import NormalDist
from typing import Any

import numpy as np

from perfcompose.data.experiment import AGGREGATES
from perfcompose.errors import FitError
from perfcompose.fit.result import Group
from perfcompose.fit.selection_policy import SelectionPolicy

__all__ = ["NOISE_FLOOR", "OUTLIER_MADS", "POINT_PRIOR", "POINT_RUNS", "UNEQUAL_SCATTER", "relative_variances",
           "replicated", "packed", "aggregated", "point_weights", "point_weights_of", "aggregate_noise",
           "scatter_noise", "with_lack_of_fit", "constant_slack", "intercept_slack"]

#: the relative noise of exact data: rounding is not noise, and it keeps them on the chi-square path
NOISE_FLOOR = 1e-9
#: a repetition further than this many robust standard deviations (1.4826 x the median absolute
#: deviation) from its point's median is an outlier, left out of the noise (not of the aggregate):
#: Leys et al.'s moderately conservative threshold. One run at 20x its point's others would
#: otherwise set the noise of every point, and any hypothesis, a constant too, would fit within it.
OUTLIER_MADS = 5.0
#: the weight, in degrees of freedom, of a series' pooled noise in each point's own: as much as
#: five runs of the point itself (its own variance has four)
POINT_PRIOR = 4.0
#: the fewest runs whose variance tells a point's own scatter (3 degrees of freedom; Bartlett's
#: test is no longer reliable below); a point of fewer weighs as a typical one
POINT_RUNS = 4
#: the level of Bartlett's test at which a series' points scatter unequally, and weigh so in its fit
UNEQUAL_SCATTER = 0.99


def replicated(values: Any) -> bool:
    """Whether some point of these values (one value or a sequence of repetitions per point, or
    an (n, r) array) holds at least two repetitions."""
    if isinstance(values, np.ndarray):
        return values.ndim == 2 and values.shape[1] >= 2
    return any(np.size(v) >= 2 for v in values)


def packed(values: Any) -> Any:
    """Repetitions as the fitter takes them: an array, (n,) or (n, r), where every point has as many
    (an array as it is), else a list of 1-d arrays."""
    if isinstance(values, np.ndarray):
        return values
    rows = [np.atleast_1d(np.asarray(v, dtype=float)) for v in values]
    lengths = {len(r) for r in rows}
    if lengths == {1}:
        return np.array([r[0] for r in rows])
    return np.stack(rows) if len(lengths) == 1 else rows


def aggregated(values: Any, aggregate: str) -> tuple[np.ndarray, float]:
    """The ``aggregate`` of each point's values and the relative noise of an aggregate (0 when unknown).

    ``values`` holds one value per point, or the repetitions of every point (a list of sequences,
    or an (n, r) array)."""
    if isinstance(values, np.ndarray) and values.ndim == 1:
        return values.astype(float), 0.0
    V = _runs(values)
    if isinstance(values, np.ndarray):
        y = getattr(np, aggregate)(values, axis=1).astype(float)
    else:
        y = np.array([AGGREGATES[aggregate](np.atleast_1d(np.asarray(v, dtype=float))) for v in values])
    rel = relative_variances(V) if V.shape[1] >= 2 else np.array([])
    rel = rel[np.isfinite(rel)]
    if not len(rel):
        return y, 0.0
    return y, aggregate_noise(float(rel.mean()), float(np.mean(np.sum(~np.isnan(V), axis=1))), aggregate)


def _runs(values: Any) -> np.ndarray:
    """The repetitions of every point as an (n, r) array, NaN where a point has fewer."""
    if isinstance(values, np.ndarray):
        return values.astype(float)[:, None] if values.ndim == 1 else values.astype(float)
    rows = [np.atleast_1d(np.asarray(v, dtype=float)) for v in values]
    if any(len(r) == 0 for r in rows):
        raise FitError("a point has no repetitions")
    V = np.full((len(rows), max(map(len, rows), default=1)), np.nan)
    for i, r in enumerate(rows):
        V[i, :len(r)] = r
    return V


def point_weights(V: np.ndarray) -> np.ndarray:
    """Each point's weight in the fit beside a typical point of its series, where the points'
    runs scatter by amounts that differ beyond chance (Bartlett's test at the
    :data:`UNEQUAL_SCATTER` level; 1 everywhere otherwise): the square root of the median point's
    relative variance over the point's own. Both are of all its runs (an outlier moves the mean
    that is modeled, so it counts here), and the point's own is shrunk toward the median one
    with :data:`POINT_PRIOR` degrees of freedom, so that five runs that happen to agree weigh at
    most 1.4 times as much. ``V`` (..., n, r) holds the runs, NaN where a point has fewer; 1
    where a point has fewer than :data:`POINT_RUNS`.

    >>> point_weights(np.array([[1.0, 1.02, 0.98, 1.01, 0.99], [2.0, 2.1, 1.9, 2.05, 1.95],
    ...                         [3.0, 2.9, 3.1, 3.05, 2.95], [1.0, 1.0, 1.0, 1.0, 3.0]])).round(2).tolist()
    [1.28, 0.92, 1.11, 0.07]"""
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # all-NaN slices: points of one run
        dof = np.sum(~np.isnan(V), axis=-1) - 1
        mean = np.nanmean(V, axis=-1)
        own = np.nanvar(V, axis=-1, ddof=1) / (mean * mean)
        known = (dof >= POINT_RUNS - 1) & (mean > 0) & (own > 0) & np.isfinite(own)
        own, dof = np.where(known, own, np.nan), np.where(known, dof, 0)
        typical = np.nanmedian(own, axis=-1, keepdims=True)
        h = np.sqrt(typical / ((POINT_PRIOR * typical + dof * np.nan_to_num(own)) / (POINT_PRIOR + dof)))
        # Bartlett's statistic of the points' relative variances, chi-square with k - 1 degrees of freedom
        k, total = known.sum(axis=-1), dof.sum(axis=-1)
        pooled = np.nansum(dof * own, axis=-1) / np.maximum(total, 1)
        spread = (total * np.log(pooled) - np.nansum(dof * np.log(own), axis=-1)) / (
            1 + (np.sum(np.where(known, 1.0 / np.maximum(dof, 1), 0.0), axis=-1) - 1 / np.maximum(total, 1))
            / (3 * np.maximum(k - 1, 1)))
    limit = np.array([_chi2_quantile(UNEQUAL_SCATTER, int(m) - 1) if m >= 3 else np.inf
                      for m in np.ravel(k)]).reshape(np.shape(k))
    unequal = np.asarray(spread > limit)[..., None]
    return np.where(known & unequal & np.isfinite(h), h, 1.0)


def point_weights_of(values: Any) -> np.ndarray:
    """:func:`point_weights` of one value per point or each point's repetitions (as :func:`aggregated` takes them)."""
    return point_weights(_runs(values))


def relative_variances(V: np.ndarray) -> np.ndarray:
    """Each point's relative variance (variance over the squared mean) of its repetitions, without
    their outliers. ``V`` holds a series' points (the last axis but one) and their repetitions (the
    last axis, NaN where a point has fewer), and may stack several series. A repetition further
    than :data:`OUTLIER_MADS` robust standard deviations from its point's median is left out; that
    deviation is relative and pooled over the series' points (1.4826 x the median over the points
    of each point's median absolute deviation over its median), so that a point of few repetitions
    neither hides its outlier nor loses its fair values. All are kept where a point has fewer than
    3, or fewer than 2 would remain. NaN where the mean is not positive or a point has one value."""
    if V.shape[-1] >= 2 and not np.isnan(V).any() and np.all(V > 0):   # the common case, at NumPy's speed
        med = np.median(V, axis=-1, keepdims=True)
        dev = np.abs(V - med)
        outlying = dev > OUTLIER_MADS * 1.4826 * np.median(dev / med, axis=(-2, -1), keepdims=True) * med
        if V.shape[-1] < 3 or not outlying.any():
            m = V.mean(axis=-1)
            return V.var(axis=-1, ddof=1) / (m * m)
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)   # all-NaN slices: points of one value

        def median(a: np.ndarray, axis: Any) -> np.ndarray:   # NaN-aware only where needed: 20x slower
            return (np.nanmedian if np.isnan(a).any() else np.median)(a, axis=axis, keepdims=True)

        med = median(V, -1)
        dev = np.abs(V - med)
        scale = OUTLIER_MADS * 1.4826 * median(np.where(med > 0, dev / med, np.nan), (-2, -1))
        kept = np.where(dev > scale * med, np.nan, V)
        count = np.sum(~np.isnan(kept), axis=-1, keepdims=True)
        few = (count < 2) | (np.sum(~np.isnan(V), axis=-1, keepdims=True) < 3)
        kept = np.where(few, V, kept)
        count = np.sum(~np.isnan(kept), axis=-1)
        m = np.nansum(kept, axis=-1) / count
        var = np.nansum((kept - m[..., None]) ** 2, axis=-1) / (count - 1)
        return np.where((m > 0) & (count >= 2), var / (m * m), np.nan)


def aggregate_noise(relative_variance: float, reps: float, aggregate: str) -> float:
    """Relative noise of an ``aggregate`` of ``reps`` repetitions: the median's (the mean's variance
    times pi/2) stands for the mean too, so the choice does not flip between them; ``min`` and
    ``max`` are noisier. A floor keeps exact data on the chi-square path."""
    efficiency = 2.0 if aggregate in ("min", "max") else np.pi / 2
    return max(float(np.sqrt(relative_variance * efficiency / reps)), NOISE_FLOOR)


def scatter_noise(groups: list[Group], n: int, multi: bool) -> float:
    """The relative noise of a point from the scatter of the points, without repetitions: the residual
    of the best simple hypothesis per degree of freedom (one parameter: constant and one-term fits, a
    chosen exponent counted as a coefficient; several: the best of any). Exact data keep the floor;
    0 where no degree of freedom is to spare (the cross-validated choice then)."""
    if n < (6 if multi else 4):
        return 0.0
    if min(float(np.min(np.where(g.batch.valid, g.batch.rel_rss, np.inf), initial=np.inf))
           for g in groups) <= 1e-20 * n:
        return NOISE_FLOOR
    simple = groups if multi else [g for g in groups if g.batch.coef.shape[1] <= 2]
    # one parameter: a term's exponents were chosen to fit, and cost a degree of freedom too
    lost = [g.batch.coef.shape[1] + (not multi and g.batch.coef.shape[1] > 1) for g in simple]
    per_dof = [float(np.min(np.where(g.ok, g.batch.rel_rss, np.inf), initial=np.inf)) / (n - k)
               for g, k in zip(simple, lost) if n > k]
    best = min(per_dof, default=np.inf)
    return max(float(np.sqrt(best)), NOISE_FLOOR) if np.isfinite(best) else 0.0


@lru_cache(maxsize=256)
def _chi2_quantile(q: float, dof: int) -> float:
    """The ``q`` quantile of the chi-square distribution with ``dof`` degrees of freedom, by
    Wilson and Hilferty's cube-root normal approximation (within 1 % from 3 degrees of freedom
    on; SciPy's exact quantile costs its import, a third of a second, in every fit process)."""
    a = 2.0 / (9.0 * dof)
    return float(dof * (1.0 - a + NormalDist().inv_cdf(q) * math.sqrt(a)) ** 3)


def with_lack_of_fit(groups: list[Group], sigma: float, n: int,
                     policy: SelectionPolicy) -> tuple[list[Group], float]:
    """The groups rescored with the noise the points scatter by, where that exceeds the repetitions'.
    When the best hypothesis' chi-square exceeds the ``lack_of_fit`` quantile of its degrees of
    freedom (at least 3), the noise is scaled by the Birge ratio and every hypothesis scored again."""
    if sigma <= 0 or not policy.lack_of_fit:
        return groups, sigma
    best = min(groups, key=lambda g: float(g.scores.min()) if len(g.scores) else np.inf)
    h = int(np.argmin(best.scores))
    dof = n - best.batch.coef.shape[1]
    if dof < 3:
        return groups, sigma
    chi2 = float(best.batch.rel_rss[h]) / sigma ** 2
    if chi2 <= _chi2_quantile(policy.lack_of_fit, dof):
        return groups, sigma
    scatter = sigma * np.sqrt(chi2 / dof)
    rescored = [dataclasses.replace(g, scores=np.where(np.isfinite(g.scores), g.batch.rel_rss / scatter ** 2
                                                       + policy.penalty(g.batch.coef.shape[1] - 1), np.inf))
                for g in groups]
    return rescored, scatter


def constant_slack(y: np.ndarray, sigma: float | np.ndarray) -> Any:
    """How far below zero a fitted constant may fall and still count as non-negative: two noise widths
    (``sigma``, relative) of the smallest value; unrestricted without a noise estimate or for exact
    data (``p - 1`` messages is a law). ``y`` may hold one series per row, ``sigma`` one per row."""
    if np.ndim(sigma) == 0 and sigma <= NOISE_FLOOR:
        return np.full(y.shape[:-1], np.inf) if y.ndim > 1 else np.inf
    slack = 2.0 * sigma * np.min(y, axis=-1) + 1e-9 * np.max(y, axis=-1)
    return slack if np.ndim(sigma) == 0 else np.where(sigma <= NOISE_FLOOR, np.inf, slack)


def intercept_slack(F: np.ndarray, y: np.ndarray, sigma: Any, index: np.ndarray) -> np.ndarray:
    """Two standard errors of the fitted constant of each hypothesis at relative noise ``sigma``:
    ``F`` (m, n) term columns, ``index`` (H, k) each hypothesis' columns besides the constant; the
    design is each column over ``y``, scaled to unit length. Non-finite columns give no slack.
    ``y`` (S, n) and ``sigma`` (S,) may stack S series (then (S, H), and ``F`` may be (S, m, n)):
    NumPy and LAPACK compute a stack slice by slice, as one series alone."""
    if y.ndim == 1:
        return intercept_slack(F, y[None, :], np.array([sigma]), index)[0]
    S, n = y.shape
    smallest = np.min(np.where(y > 0, y, np.inf), axis=1, initial=1.0)
    yf = np.where(y > 0, y, smallest[:, None])
    F3 = np.broadcast_to(F, (S, *F.shape[-2:])) if F.ndim == 2 else F
    B = np.concatenate([np.ones((S, 1, n)), F3], axis=1) / yf[:, None, :]
    norm = np.linalg.norm(B, axis=2)
    ok = np.isfinite(norm) & (norm > 0)
    B = np.where(ok[:, :, None], B / np.where(ok, norm, 1.0)[:, :, None], 0.0)
    gram = B @ B.transpose(0, 2, 1)
    cols = np.concatenate([np.zeros((len(index), 1), dtype=int), np.asarray(index, dtype=int) + 1], axis=1)
    # each squared as a NumPy scalar (libm's pow): an array's square may differ in the last digit
    first = np.array([v ** 2 for v in norm[:, 0]])
    inv00 = np.linalg.pinv(gram[:, cols[:, :, None], cols[:, None, :]])[:, :, 0, 0] / first[:, None]
    usable = np.all(ok[:, cols], axis=2) & np.isfinite(inv00)
    return np.where(usable, (2.0 * sigma)[:, None] * np.sqrt(np.maximum(np.where(usable, inv00, 0.0), 0.0)), 0.0)
