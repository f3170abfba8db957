"""How far a study's predictions can be trusted: whether the rounds of a program's parts agree
enough to compose from (:func:`untrusted`), and its interval from the predictor's own error on the
study's other programs (:func:`with_held_out_error`, normalised split-conformal)."""
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
#: interval is about their largest error (the 90 % conformal rank lies near the end of their
#: scores), so that a study of four programs does not fall back to the rounds' noise (in the
#: random-program benchmark such a study held half its points with the noise alone, three in four
#: with the others' errors)
MIN_OTHERS = 3

#: the predictor's error scale where the co-run measurements do not move a prediction, on the
#: scale of that move (|ln|): a program's error is scored against ``STEADY + interference``. Over
#: the random-program benchmark's development draws, chains (moved by nothing) were off by 12 % at
#: the 85th percentile of their points, pipes that the co-run measurements moved by more than a
#: third by 29 %; 0.1-0.3 gave intervals as narrow at equal coverage
STEADY = 0.2


def conformal_quantile(scores: np.ndarray, level: float) -> float:
    """The split-conformal quantile of ``scores`` at ``level``: the ceil(level (n + 1))-th
    smallest, the largest where there are too few."""
    ordered = np.sort(np.asarray(scores, dtype=float))
    rank = min(int(np.ceil(level * (len(ordered) + 1))), len(ordered)) - 1
    return float(ordered[rank])


def error_scale(c: Comparison) -> np.ndarray:
    """Per x, how large the predictor's error is expected to be for this program, relative to the
    others: :data:`STEADY` plus how far the co-run measurements move its prediction."""
    moved = np.asarray(c.interference, dtype=float) if c.interference else np.zeros(len(c.x))
    return STEADY + np.where(np.isfinite(moved), moved, 0.0)


def with_held_out_error(comparisons: Sequence[Comparison], level: float = 0.9) -> list[Comparison]:
    """Every comparison's interval set from the predictor's own errors on the *other* programs
    of the study (leave one program out, normalised split-conformal prediction on the log scale):
    each other undisturbed, trusted program scores |ln(measured / predicted)| / s at every size,
    with s its :func:`error_scale` (a prediction that co-run slowdowns, locks or wake-ups move is
    less sure than a chain of parts added up: the interval widens with the move, and a chain's
    narrows); q is the ``level`` quantile of all those scores, and the interval
    ``[predicted e^(-q s), predicted e^(q s)]`` with this program's own s. The scores of every
    size count together: a quantile per size rests on six or seven programs, which is their
    largest error, and covered 85-86 % where 90 % was asked. A program's interval thus never uses
    its own measurement, holds the prediction, and never reaches below zero; it is as wide as the
    predictor was wrong on code it did not see. With fewer than ``MIN_OTHERS`` such programs
    every other one counts, and with fewer than that in all the interval is the bootstrap's
    (noise only: :attr:`Comparison.held_out_error` stays 0)."""
    predicted = {c.configuration: np.asarray(c.calibrated(x=np.array(c.x)), dtype=float) for c in comparisons}
    scale = {c.configuration: error_scale(c) for c in comparisons}
    # a program's errors as scores: |ln(measured / predicted)| at each size, over its scale
    scores = {c.configuration: np.abs(np.log(np.maximum(np.array(c.measured) * 1e9, 1e-9)
                                             / np.maximum(predicted[c.configuration], 1e-9))) / scale[c.configuration]
              for c in comparisons}
    trusted = {c.configuration for c in comparisons if c.trusted}
    quiet = {c.configuration for c in comparisons if not c.disturbed} & trusted
    out = []
    for c in comparisons:
        # the other trusted programs measured undisturbed; on a busy machine the disturbed ones
        # too; with fewer still, every other program
        for pool in (quiet, trusted, set(scores)):
            others = [e for name, e in scores.items() if name != c.configuration and name in pool]
            if len(others) >= MIN_OTHERS:
                break
        every = np.concatenate(others) if len(others) >= MIN_OTHERS and c.low else np.array([])
        every = every[np.isfinite(every)]
        if not len(every):
            out.append(c)
            continue
        half = conformal_quantile(every, level) * scale[c.configuration]
        out.append(dataclasses.replace(c, low=tuple(map(float, predicted[c.configuration] * np.exp(-half))),
                                       high=tuple(map(float, predicted[c.configuration] * np.exp(half))),
                                       held_out_error=float(np.median(np.expm1(half)))))
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
