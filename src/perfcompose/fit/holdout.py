"""Choosing a hypothesis by how well it extrapolates its own data (the forward check, docs/fit.md).

Each supported hypothesis is fitted again without the points at the largest value of a parameter
and asked to predict them. Where the chosen one misses them by more than a factor of 2 and
another supported one (or the constant) by less than 1.5, that one is taken instead. Of single
values, a hypothesis whose forecast one step beyond the data moves by more than a factor of 2
when the largest point is left out gives way to one whose forecast stays within 1.5 and which
predicts that point as well (an uptick of 3 % at the largest point is then noise, not x^2).

>>> from fractions import Fraction
>>> from perfcompose.fit.pmnf import Candidate
>>> X = np.array([[64.0], [512.0], [4096.0], [32768.0]])
>>> y = np.array([6.5e-8, 6.6e-8, 6.4e-8, 6.5e-8])
>>> steep = Candidate(6.4e-8, ((1e-19, ((0, (Fraction(7, 4), Fraction(2))),)),), 0.0)
>>> rechoose(steep, [], X, y).n_terms
0
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from perfcompose.fit.result import predict

__all__ = ["extrapolation_errors", "forecast_shift", "rechoose", "refit"]

#: a fitted hypothesis (:class:`perfcompose.fit.pmnf.Candidate`): its ``constant`` and its
#: ``terms``, (coefficient, shape) each, a shape ((parameter, (i, j)), ...) of x^i log2(x)^j factors
C = TypeVar("C", bound=Any)

#: the chosen hypothesis is checked where it misses its held-out points by more than this (a mean
#: |log| ratio: 0.69 is a factor of 2) ...
TOLERATED = 0.69
#: ... and an alternative replaces it where that one misses them by at most this (a factor of 1.5)
#: and by at most ``MARGIN`` of the chosen one's miss
ACCEPTED = 0.4
MARGIN = 0.5


def _columns(candidate: Any, X: np.ndarray, cache: dict[tuple[int, Any], np.ndarray] | None = None) -> np.ndarray:
    """The constant's column and each term's values (coefficient 1) at ``X``, (n, 1 + terms);
    ``cache`` keeps the factors' values at ``X`` across candidates."""
    cache = {} if cache is None else cache
    cols = [np.ones(len(X))]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for _, shape in candidate.terms:
            v = np.ones(len(X))
            for k, f in shape:
                factor = cache.get((k, f))
                if factor is None:
                    factor = cache[(k, f)] = X[:, k] ** float(f[0]) * np.log2(X[:, k]) ** float(f[1])
                v = v * factor
            cols.append(v)
    return np.column_stack(cols)


def refit(candidate: C, X: np.ndarray, y: np.ndarray) -> C | None:
    """The hypothesis of ``candidate`` fitted again to (X, y) by least relative squares; None
    where the points do not determine its coefficients with one to spare."""
    A = _columns(candidate, X)
    keep = y > 0
    if keep.sum() <= A.shape[1] or not np.all(np.isfinite(A[keep])):
        return None
    B = A[keep] / y[keep, None]
    scale = np.max(np.abs(B), axis=0)
    scale[scale == 0] = 1.0
    coef, *_ = np.linalg.lstsq(B / scale, np.ones(int(keep.sum())), rcond=None)
    coef = coef / scale     # columns of scale 1: a term of 1e-18 * x^3 is fitted as exactly as 1e3
    if not np.all(np.isfinite(coef)):
        return None
    return dataclasses.replace(candidate, constant=float(coef[0]),
                               terms=tuple((float(c), shape) for c, (_, shape) in zip(coef[1:], candidate.terms)))


def extrapolation_errors(candidates: Sequence[Any], X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Per candidate, the mean |log(predicted / measured)| at the largest value of each parameter with
    at least 4 distinct values, the hypothesis fitted to the points below it (inf where a prediction
    is not positive, nan where no parameter allows the check); each is fitted to its own row of ``Y``
    (S, n) (or all to one ``y``); a point left out of a refit is a zero row of its design, solved by
    the pseudo-inverse (as ``lstsq``), so a candidate's error does not depend on the others."""
    S, n = len(candidates), len(X)
    Y = np.broadcast_to(np.asarray(Y, dtype=float), (S, n))
    cache: dict[tuple[int, Any], np.ndarray] = {}
    designs = [_columns(c, X, cache) for c in candidates]
    by_width: dict[int, list[int]] = {}
    for s, A in enumerate(designs):
        by_width.setdefault(A.shape[1], []).append(s)
    total, count = np.zeros(S), np.zeros(S)
    tops = [X[:, k] == values[-1] for k in range(X.shape[1]) if len(values := np.unique(X[:, k])) >= 4]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for width, rows in by_width.items():
            A, y = np.stack([designs[s] for s in rows]), Y[rows]
            positive = y > 0
            finite = np.isfinite(A)
            yd = np.where(positive, y, 1.0)[:, :, None]
            for top in tops:
                out, kept = top & positive, ~top & positive
                ok = out.any(axis=1) & (kept.sum(axis=1) > width) & np.all(finite | ~kept[:, :, None], axis=(1, 2))
                B = np.where(kept[:, :, None] & ok[:, None, None], A / yd, 0.0)
                scale = np.max(np.abs(B), axis=1)
                scale[scale == 0] = 1.0
                cutoff = np.finfo(float).eps * np.maximum(kept.sum(axis=1), width)
                coef = (np.linalg.pinv(B / scale[:, None, :], rcond=cutoff) @ kept[:, :, None].astype(float))[..., 0]
                coef = coef / scale
                ok &= np.all(np.isfinite(coef), axis=1)
                p = (A @ coef[:, :, None])[..., 0]
                miss = np.where(p > 0, np.abs(np.log(np.where(p > 0, p, 1.0) / np.where(positive, y, 1.0))), np.inf)
                used = out & ok[:, None]
                total[rows] += np.where(used, miss, 0.0).sum(axis=1)
                count[rows] += used.sum(axis=1)
    return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def constant_of(like: C, y: np.ndarray) -> C:
    """The constant hypothesis fitted by least relative squares (to the positive values)."""
    pos = y[y > 0]
    c = float(np.sum(1.0 / pos) / np.sum(1.0 / pos ** 2)) if len(pos) else 0.0
    return dataclasses.replace(like, constant=c, terms=())


def forecast_shift(candidate: Any, X: np.ndarray, y: np.ndarray) -> float:
    """|log| of how much the forecast one step beyond the data (the largest coordinate times its
    ratio to the one below) moves when the points at the largest coordinate are left out of the
    fit; one parameter only (0 otherwise, or where the refit is not determined)."""
    if X.shape[1] != 1:
        return 0.0
    values = np.unique(X[:, 0])
    if len(values) < 4:
        return 0.0
    below = X[:, 0] < values[-1]
    fitted = refit(candidate, X[below], y[below])
    if fitted is None:
        return 0.0
    step = np.array([[values[-1] ** 2 / values[-2]]])
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        a, b = float(predict(candidate, step)[0]), float(predict(fitted, step)[0])
    return abs(float(np.log(a / b))) if a > 0 and b > 0 else float("inf")


def rechoose(chosen: C, supported: Sequence[C] | Callable[[], Sequence[C]], X: np.ndarray, y: np.ndarray,
             single_values: bool = False, error: float | None = None, constant: bool = True) -> C:
    """``chosen``, or the hypothesis among ``supported`` and (with ``constant``) the constant that
    extrapolates the data's largest points best (see the module for the thresholds); ``supported``
    may be a function that lists them, called only where ``chosen`` is checked; ``error`` is
    ``chosen``'s :func:`extrapolation_errors` where known."""
    mine = float(extrapolation_errors([chosen], X, y)[0]) if error is None else error
    # a nan error leaves nothing to check; of single values, the forecast's shift may still
    shift = not mine > TOLERATED and single_values and forecast_shift(chosen, X, y) > TOLERATED
    if not (mine > TOLERATED or shift):
        return chosen
    others = [*(supported() if callable(supported) else supported), *([constant_of(chosen, y)] if constant else [])]
    errors = extrapolation_errors(others, X, y).tolist()
    if shift:
        steady = [(e, c) for c, e in zip(others, errors) if forecast_shift(c, X, y) <= ACCEPTED and e <= ACCEPTED]
        return min(steady, key=lambda pair: pair[0])[1] if steady else chosen
    # a hypothesis' error depends on its terms alone: a repeated one (the chosen one's too) never wins
    best, best_error = chosen, mine
    for other, e in zip(others, errors):
        if e < best_error:
            best, best_error = other, e
    return best if best_error <= min(ACCEPTED, MARGIN * mine) else chosen
