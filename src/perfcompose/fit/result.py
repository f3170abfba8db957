"""What a PMNF fit yields: fitted hypotheses (:class:`Candidate`), batches of them fitted and scored
(:class:`Group`), the one a search picks (:class:`Pick`) and the result of a series (:class:`FitResult`).

How well a fitted model reproduces its measurements (Extra-P's RSS, SMAPE and adjusted R²), and
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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from perfcompose.fit.hypotheses import BatchFit, Factor
from perfcompose.pmnf_text import extrap_text

if TYPE_CHECKING:
    from perfcompose.model import Model

__all__ = ["TermShape", "Hypothesis", "Progress", "Candidate", "Group", "Pick", "FitResult", "predict",
           "fit_statistics", "fit_statistics_many", "low_fit_warnings"]

ADJ_R2_WARNING = 0.5   # a fit whose adjusted R² is below this is flagged
FLAT_SMAPE = 5.0       # a constant within this SMAPE (per cent) of flat data is not flagged
NOISE_SMAPE = 3.0      # ... nor one within this many noise widths (Gaussian scatter: SMAPE ~ 0.8 width)

# A hypothesis: the constant plus terms; a term maps each parameter index to its factor.
TermShape = tuple[tuple[int, Factor], ...]
Hypothesis = tuple[TermShape, ...]
# a progress callback: (what runs now, steps done, steps in all)
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class Candidate:
    """One fitted hypothesis: its constant, its terms each with its coefficient, and the fit's quality."""

    constant: float
    #: (coefficient, shape) of each term beside the constant
    terms: tuple[tuple[float, TermShape], ...]
    cv_error: float
    score: float = 0.0

    @property
    def hypothesis(self) -> Hypothesis:
        """The terms' shapes: what was fitted, without the coefficients."""
        return tuple(shape for _, shape in self.terms)

    @property
    def coefficients(self) -> tuple[float, ...]:
        """The terms' coefficients, in the order of the terms."""
        return tuple(coef for coef, _ in self.terms)

    @property
    def n_terms(self) -> int:
        return len(self.terms)


@dataclass(frozen=True)
class Group:
    """A batch of hypotheses with the same number of terms, fitted and scored."""

    hyps: list[Hypothesis]
    batch: BatchFit
    ok: np.ndarray
    scores: np.ndarray  # inf where the fit is invalid or rejected

    def candidate(self, h: int) -> Candidate:
        coef = self.batch.coef[h].tolist()
        return Candidate(coef[0], tuple(zip(coef[1:], self.hyps[h])), float(self.batch.cv_of(h)), float(self.scores[h]))

    def candidates(self, hs: np.ndarray) -> list[Candidate]:
        """The hypotheses at indices ``hs`` (valid fits), with one NumPy call per quantity."""
        coefs = self.batch.coef[hs].tolist()
        cvs = np.atleast_1d(self.batch.cv_of(hs)).tolist()
        scores = self.scores[hs].tolist()
        return [Candidate(c[0], tuple(zip(c[1:], self.hyps[int(h)])), cv, sc)
                for h, c, cv, sc in zip(hs.tolist(), coefs, cvs, scores)]


@dataclass(frozen=True)
class Pick:
    """The hypothesis the scores choose for one series, the groups it was chosen from (none where
    every value is 0), the notes of the search, the measured noise and whether the points scatter
    beyond it about every hypothesis (no PMNF form is the law within the noise of the runs)."""

    chosen: Candidate
    groups: list[Group]
    notes: tuple[str, ...]
    measured: float
    lack_of_fit: bool = False


@dataclass(frozen=True)
class FitResult:
    """The hypothesis chosen for one series, its statistics and the runners-up (``model`` built on first use)."""

    chosen: Candidate
    params: tuple[str, ...]
    stats: Mapping[str, float]
    region: str = ""
    metric: str = ""
    unit: str = "s"
    source: str = "fit"
    alternatives: tuple[Candidate, ...] = field(default=(), repr=False)
    #: what the user should know about this fit: a low adjusted R², a parameter left out
    warnings: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.region}/{self.metric}" if self.region else self.metric

    @cached_property
    def model(self) -> Model:
        from perfcompose.model import Model

        terms = [(coef, {self.params[k]: f for k, f in shape}) for coef, shape in self.chosen.terms]
        return Model.from_terms(self.chosen.constant, terms, params=self.params, unit=self.unit, source=self.source,
                                stats=self.stats)

    def text(self, digits: int | None = None) -> str:
        """The chosen model in Extra-P's syntax, as ``model.to_extrap`` writes it, without
        building the symbolic model (SymPy is not loaded)."""
        c = self.chosen
        terms = [(coef, [(self.params[k], f[0], f[1]) for k, f in shape])
                 for coef, shape in c.terms]
        return extrap_text(c.constant, terms, self.params, digits)


def predict(candidate: Candidate, X: np.ndarray) -> np.ndarray:
    """Values of a fitted hypothesis at coordinates ``X`` (n, d), without building a Model."""
    X = np.asarray(X, dtype=float)
    out = np.full(X.shape[0], candidate.constant)
    with np.errstate(divide="ignore", invalid="ignore"):
        for coef, shape in candidate.terms:
            v = np.full(X.shape[0], coef)
            for k, (i, j) in shape:
                v = v * X[:, k] ** float(i) * np.log2(X[:, k]) ** float(j)
            out += v
    return out


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
