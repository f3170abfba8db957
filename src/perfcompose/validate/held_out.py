"""How far a study's predictions can be trusted: whether the rounds of a program's parts agree
enough to compose from (:func:`untrusted`), and its interval from the predictor's own error on the
study's other programs (:func:`with_held_out_error`, split-conformal, size by size)."""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from perfcompose.validate.modular import Comparison


#: a prediction whose bootstrap interval's half width is beyond this share of it (the median over
#: the sizes) is not trusted: the rounds of its parts disagree too much to compose from
UNTRUSTED_SPREAD = 0.25


def untrusted(predicted: np.ndarray, low: np.ndarray, high: np.ndarray) -> str:
    """Why a prediction with this bootstrap interval cannot be trusted, or ''."""
    if not np.all(np.isfinite(predicted)) or np.any(predicted <= 0):
        return "the parts it is composed from give no finite, positive time"
    spread = float(np.median((high - low) / 2 / predicted))
    if spread > UNTRUSTED_SPREAD:
        return (f"the rounds of the parts it is composed from scatter by +-{100 * spread:.0f} % "
                "(other work on the machine, or a cost that depends on the data): measure more rounds "
                "on a quieter machine")
    return ""


#: programs besides the one predicted that :func:`with_held_out_error` needs: with three, the
#: interval is their largest error (the 90 % conformal rank lies beyond three scores), so that a
#: study of four programs does not fall back to the rounds' noise (in the random-program benchmark
#: such a study held half its points with the noise alone, three in four with the others' errors)
MIN_OTHERS = 3


def conformal_quantile(scores: np.ndarray, level: float) -> float:
    """The split-conformal quantile of ``scores`` at ``level``: the ceil(level (n + 1))-th
    smallest, the largest where there are too few."""
    ordered = np.sort(np.asarray(scores, dtype=float))
    rank = min(int(np.ceil(level * (len(ordered) + 1))), len(ordered)) - 1
    return float(ordered[rank])


def with_held_out_error(comparisons: Sequence[Comparison], level: float = 0.9) -> list[Comparison]:
    """Every comparison's interval set from the predictor's own errors on the *other* programs
    of the study (leave one program out, split-conformal prediction on the log scale), size by
    size: at each x, q is the ``level`` quantile of |ln(measured / predicted)| over the other
    undisturbed, trusted programs at that x, and the interval ``[predicted e^-q, predicted e^q]``.
    The predictor's error shrinks as the runs grow with x (short runs scatter more), so one
    quantile over every size would be too wide at large x and too narrow at small x. A program's
    interval thus never uses its own measurement, holds the prediction, and never reaches below
    zero; it is as wide as the predictor was wrong on code it did not see. With fewer than
    ``MIN_OTHERS`` such programs every other one counts, and with fewer than that in all the
    interval is the bootstrap's (noise only: :attr:`Comparison.held_out_error` stays 0)."""
    predicted = {c.configuration: np.asarray(c.calibrated(x=np.array(c.x)), dtype=float) for c in comparisons}
    # a program's errors as scores: |ln(measured / predicted)| at each size
    scores = {c.configuration: np.abs(np.log(np.maximum(np.array(c.measured) * 1e9, 1e-9)
                                             / np.maximum(predicted[c.configuration], 1e-9))) for c in comparisons}
    trusted = {c.configuration for c in comparisons if c.trusted}
    quiet = {c.configuration for c in comparisons if not c.disturbed} & trusted
    out = []
    for c in comparisons:
        # the other trusted programs measured undisturbed; on a busy machine the disturbed ones
        # too; with fewer still, every other program
        for pool in (quiet, trusted, set(scores)):
            others = [e for name, e in scores.items() if name != c.configuration and name in pool
                      and e.shape == scores[c.configuration].shape]
            if len(others) >= MIN_OTHERS:
                break
        q = np.array([conformal_quantile(column[np.isfinite(column)], level) if np.isfinite(column).any()
                      else np.inf for column in np.array(others).T]) if len(others) >= MIN_OTHERS and c.low else None
        if q is None or not np.all(np.isfinite(q)):
            out.append(c)
            continue
        out.append(dataclasses.replace(c, low=tuple(map(float, predicted[c.configuration] * np.exp(-q))),
                                       high=tuple(map(float, predicted[c.configuration] * np.exp(q))),
                                       held_out_error=float(np.median(np.expm1(q)))))
    return out


def measurement_interval(predicted: np.ndarray, low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where a measurement of the program should fall: the prediction's interval widened by
    sqrt(2) about the prediction (the measured times have noise like the parts' times the
    prediction is built from). A run that other work disturbed is taken again rather than
    covered by a wider interval (:class:`~perfcompose.runtime.target.TermTarget`)."""
    root2 = np.sqrt(2.0)
    lo = np.maximum(predicted - root2 * (predicted - low), 0.0)  # no time is negative
    hi = predicted + root2 * (high - predicted)
    return lo, hi
