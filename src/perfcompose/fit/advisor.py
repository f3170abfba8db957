"""Which point to measure next: the one where the best hypotheses disagree most, in noise widths.

:func:`advise` predicts every candidate point (the measured values, the points between them and
a geometric continuation up to ``extend`` times the largest) with the ``top`` hypotheses and
scores it by the sum over pairs of their gap in noise widths, each capped at ``enough``. The
best points come first, the cheaper one on a tie."""
from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from perfcompose.data.experiment import Series
from perfcompose.errors import FitError
from perfcompose.fit.noise import aggregated, packed
from perfcompose.fit.pmnf import PMNFFitter
from perfcompose.fit.result import Candidate, FitResult, predict
from perfcompose.fit_options import FitOptions
from perfcompose.pmnf_text import pmnf_factors


@dataclass(frozen=True)
class Suggestion:
    """A point to measure next and why: ``separation``, the capped sum of the pairwise gaps there, and
    ``widest``, the largest gap, in noise widths; ``predictions``, each hypothesis (Extra-P text)
    with its prediction; ``cost``, the chosen model's prediction."""

    point: tuple[float, ...]
    params: tuple[str, ...]
    separation: float
    widest: float
    noise: float
    predictions: tuple[tuple[str, float], ...]
    cost: float

    @property
    def where(self) -> str:
        return ", ".join(f"{p}={v:.6g}" for p, v in zip(self.params, self.point))

    def reason(self) -> str:
        """One sentence: what the hypotheses predict here and how far apart that is."""
        preds = "; ".join(f"{text} predicts {value:.4g}" for text, value in self.predictions)
        if self.widest < 1.0:
            return (f"at {self.where} the best hypotheses differ by only {self.widest:.2g} noise widths "
                    f"({self.noise:.2%} noise): {preds}; no candidate point tells them apart, so repeat "
                    f"measurements or widen the range")
        return (f"at {self.where} the best hypotheses differ by up to {self.widest:.3g} noise widths "
                f"({self.noise:.2%} noise): {preds}")


def advise(X: Any, values: Any, params: Sequence[str], fitter: PMNFFitter | None = None, *, top: int = 3,
           count: int = 3, extend: float = FitOptions.extend, enough: float = 5.0, candidates: Any = None
           ) -> list[Suggestion]:
    """The ``count`` points that best separate the ``top`` hypotheses fitted to the measurements
    (empty: the measurements already single one out); ``X`` and ``values`` as for
    :meth:`PMNFFitter.fit_arrays`; ``candidates`` (m, d) replaces the generated points.

    >>> import numpy as np
    >>> x = np.array([4.0, 8, 16, 32, 64])
    >>> y = (3 + x * np.log2(x)) * np.array([1.01, 0.99, 1.0, 1.02, 0.99])
    >>> advise(x, np.outer(y, [0.98, 1.0, 1.02]), ["x"], count=1)[0].point[0] > 64
    True
    """
    if top < 2:
        raise FitError("advice compares hypotheses: top must be at least 2")
    if extend < 1:
        raise FitError("extend is a factor beyond the largest measured value: it must be at least 1")
    fitter = fitter if fitter is not None else PMNFFitter()
    X = np.asarray(X, dtype=float)
    X = X[:, None] if X.ndim == 1 else X
    result = fitter.fit_arrays(X, values, params)
    y, sigma = aggregated(packed(values), fitter.aggregate)
    return suggest(result, X, y, sigma, top=top, count=count, extend=extend, enough=enough,
                   candidates=candidates)


def advise_series(params: Sequence[str], series: Series, fitter: PMNFFitter | None = None, **options: Any
                  ) -> list[Suggestion]:
    """:func:`advise` for one series of an experiment."""
    try:
        return advise(series.coordinates(), [p.values for p in series.points], params, fitter, **options)
    except FitError as exc:
        raise FitError(f"{series.label}: {exc}") from None


def suggest(result: FitResult, X: np.ndarray, y: np.ndarray, sigma: float, *, top: int = 3, count: int = 3,
            extend: float = FitOptions.extend, enough: float = 5.0, candidates: Any = None) -> list[Suggestion]:
    """:func:`advise` for a fit already made: ``y`` the aggregated values at ``X``, ``sigma``
    their relative noise (0 when unknown: the fit's residuals stand in)."""
    noise = float(sigma)
    if not sigma > 1e-6:   # unmeasured: the fit's RMS relative residual, never below 0.1 %
        rel = (y - predict(result.chosen, X)) / np.where(y != 0, np.abs(y), 1.0)
        noise = max(float(math.sqrt(np.mean(rel * rel))), 1e-3)
    cand = candidate_points(X, extend) if candidates is None else np.atleast_2d(np.asarray(candidates, float))
    if cand.shape[1] != X.shape[1]:
        raise FitError(f"candidate points have {cand.shape[1]} coordinates; the data have {X.shape[1]}")
    # repetitions that agree exactly: the scores are chi-squares against rounding, and a hypothesis
    # scored enough^2 above the best is told apart by the measurements already
    hyps = _rivals(result, cand, top, enough ** 2 if 0 < sigma <= 1e-6 else math.inf) if len(cand) else []
    if len(hyps) < 2:
        return []   # the measurements leave one hypothesis: no point can separate anything
    preds = np.stack([predict(h, cand) for h in hyps])               # (hypotheses, candidates)
    scale = np.maximum(np.abs(preds[0]), 1e-300) * noise
    gaps = np.stack([np.abs(preds[a] - preds[b]) / scale for a, b in itertools.combinations(range(len(hyps)), 2)])
    gaps = np.where(np.isfinite(gaps), gaps, 0.0)
    score = np.minimum(gaps, enough).sum(axis=0)
    order = np.lexsort((np.abs(preds[0]), -np.round(score, 6)))
    texts = [_text(result.params, h) for h in hyps]
    return [Suggestion(tuple(float(v) for v in cand[i]), tuple(result.params), float(score[i]),
                       float(gaps[:, i].max()), noise, tuple(zip(texts, (float(p) for p in preds[:, i]))),
                       float(preds[0, i]))
            for i in order[:count]]


def candidate_points(X: np.ndarray, extend: float = FitOptions.extend) -> np.ndarray:
    """Unmeasured points of the grid spanned by every parameter's candidate values: the
    measured ones, the geometric means between neighbours and a geometric continuation (at the
    measured ratio) up to ``extend`` times the largest."""
    axes = [_axis(np.unique(X[:, k]), extend) for k in range(X.shape[1])]
    grid = np.array(list(itertools.product(*axes)), dtype=float)
    measured = {tuple(row) for row in X}
    keep = [k for k, row in enumerate(grid) if tuple(row) not in measured]
    return grid[keep]


def _axis(values: np.ndarray, extend: float) -> np.ndarray:
    pos = values[values > 0]
    mids = np.sqrt(pos[:-1] * pos[1:]) if len(pos) > 1 else np.array([])
    ratio = float(np.median(pos[1:] / pos[:-1])) if len(pos) > 1 else 2.0
    ratio = ratio if ratio > 1 else 2.0
    top, limit = float(values.max()), float(values.max()) * extend
    beyond = []
    while extend > 1 and top * ratio <= limit * (1 + 1e-9):
        top *= ratio
        beyond.append(top)
    if extend > 1 and (not beyond or beyond[-1] < limit * (1 - 1e-9)):
        beyond.append(limit)
    return np.unique(np.concatenate([values, mids, beyond]))


def _rivals(result: FitResult, points: np.ndarray, top: int, told_apart: float = math.inf) -> list[Candidate]:
    """The chosen hypothesis and the best-ranked other ones that predict differently at ``points``
    (a two-term variant whose second coefficient is ~0 is the same function, not a rival); one
    scored ``told_apart`` or more above the best is not a rival either."""
    hyps = [result.chosen]
    seen = [predict(result.chosen, points)]
    best = min([result.chosen.score, *(c.score for c in result.alternatives)])
    for c in result.alternatives:
        if len(hyps) == top:
            break
        if c.score - best >= told_apart:
            continue
        p = predict(c, points)
        if all(not np.allclose(p, q, rtol=1e-6, atol=0) for q in seen):
            hyps.append(c)
            seen.append(p)
    return hyps


def _text(params: Sequence[str], c: Candidate) -> str:
    pieces = [f"{c.constant:.4g}"]
    for coef, shape in c.terms:
        factors = [f"{coef:.4g}"]
        for k, (i, j) in shape:
            factors += pmnf_factors(params[k], i, j)
        pieces.append(" * ".join(factors))
    return " + ".join(pieces)
