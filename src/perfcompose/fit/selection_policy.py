"""How the PMNF fitter chooses among the hypotheses the data support: the price of a term, the
window of plausible hypotheses, and the cap on the extrapolation of their consensus; the choice
(:func:`select`, the best-supported hypothesis whose extrapolation agrees with the consensus of the
plausible ones) and the runners-up.

>>> SelectionPolicy(plausible=2.0).indistinct
0.5
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from perfcompose.errors import FitError
from perfcompose.fit.result import Candidate, Group

__all__ = ["DEFAULT_POLICY", "SelectionPolicy", "select", "consensus_pick", "runners_up"]


@dataclass(frozen=True)
class SelectionPolicy:
    """The selection heuristics of :class:`perfcompose.fit.PMNFFitter` (its ``policy``).

    ``term_penalty``: the chi-square price of the first, second, ... term where repetitions measure
    the noise; ``tolerance``: the CV margin a term must earn where nothing does; ``lack_of_fit``:
    the chi-square quantile beyond which the points' scatter sets the noise (0: off);
    ``scatter_noise``: without repetitions, the noise from the scatter around the best simple
    hypothesis. ``plausible``, ``indistinct``, ``horizon``, ``shrink`` and ``overshoot_*``: see
    :func:`select`; ``forward_check``: see :mod:`perfcompose.fit.holdout`; ``forward_choice``: where the points
    scatter beyond their runs' noise about every hypothesis (repetitions measured the noise and the
    best one's chi-square exceeds the ``lack_of_fit`` quantile), the chosen one and the runners-up
    within ``plausible`` of the best score are ranked by how well each, fitted without the points at
    a parameter's largest value, predicts them (:func:`perfcompose.fit.holdout.extrapolation_errors`),
    not by their scores;
    ``trend``: a constant is no hypothesis for points of one parameter that rise or fall with it at
    this two-sided level of :func:`perfcompose.fit.trend.monotone` (0: off); ``term_noise`` and
    ``term_points``: a two-term hypothesis of one parameter stands only where each of its terms
    exceeds ``term_noise`` times the relative noise of the fitted value at ``term_points`` of the
    points or more (a term that only the largest one or two points show fits their last step, a
    cache filling up, and no exponent of it is told apart from another; 0 points: off)."""

    term_penalty: float | Sequence[float] = (8.0, 30.0)
    tolerance: float = 0.1
    lack_of_fit: float = 0.99
    scatter_noise: bool = True
    plausible: float = 3.5
    indistinct: float = 0.5
    horizon: float = 16.0
    shrink: float = 1.0
    overshoot_risk: float = 0.05
    overshoot_factor: float = 1.0
    overshoot_noise: float = 25.0
    overshoot_floor: float = 1.5
    multi_overshoot_risk: float = 0.4
    multi_overshoot_spread: float = 1.5
    forward_check: bool = True
    forward_choice: bool = True
    trend: float = 0.01
    term_noise: float = 5.0
    term_points: int = 3

    def penalty(self, k_terms: int) -> float:
        """The chi-square price of ``k_terms`` terms."""
        if isinstance(self.term_penalty, (int, float)):
            return float(self.term_penalty) * k_terms
        steps = list(self.term_penalty)
        steps += [steps[-1]] * max(0, k_terms - len(steps))
        return float(sum(steps[:k_terms]))

    def validate(self) -> None:
        """Raise :class:`FitError` naming the first setting outside its range."""
        penalties = [self.term_penalty] if isinstance(self.term_penalty, (int, float)) else list(self.term_penalty)
        if not penalties or any(not isinstance(p, (int, float)) or not p >= 0 for p in penalties):
            raise FitError(f"term_penalty {self.term_penalty!r}: a price >= 0, or one per term")
        ranges = {"tolerance": (0.0, None), "lack_of_fit": (0.0, 1.0), "plausible": (0.0, None),
                  "indistinct": (0.0, None), "horizon": (1.0, None), "shrink": (0.0, None),
                  "overshoot_risk": (0.0, 1.0), "overshoot_factor": (0.0, None), "overshoot_noise": (0.0, None),
                  "overshoot_floor": (0.0, None), "multi_overshoot_risk": (0.0, 1.0),
                  "multi_overshoot_spread": (0.0, None), "trend": (0.0, 1.0), "term_noise": (0.0, None),
                  "term_points": (0, None)}
        for name, (low, high) in ranges.items():
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not low <= value or (high is not None and not value < high):
                within = f"at least {low:g}" + ("" if high is None else f" and below {high:g}")
                raise FitError(f"{name} {value!r}: a number {within}")


#: the policy the fitter uses unless given another
DEFAULT_POLICY = SelectionPolicy()


def select(groups: list[Group], sigma: float, policy: SelectionPolicy, multi: bool = False) -> Candidate:
    """The best-supported hypothesis whose extrapolation agrees with the consensus of the plausible ones.

    Hypotheses within ``plausible`` score units of the best get Akaike weights exp(-delta/2); their
    predictions at ``horizon`` times the largest coordinates form the consensus, the weighted median
    (weights divided by prediction^``shrink``: an over-prediction is unbounded, an under-prediction
    is not), capped at a factor times a cautious weighted quantile. One parameter: the factor is
    ``overshoot_factor`` + ``overshoot_noise`` x the relative noise (1.7 at 5 % noise and 5
    repetitions), at least ``overshoot_floor``, over the ``overshoot_risk`` quantile. Several
    parameters (additive and multiplicative combinations differ beyond any noise): ``overshoot_factor``
    over the ``multi_overshoot_risk`` quantile, at most ``multi_overshoot_spread`` times the
    ``overshoot_risk`` one. Among those within ``indistinct`` of the best, the one closest to the
    consensus wins; if none lies under the cap, the best-scored one that does. Without a noise
    estimate the scores are cross-validation errors and the best one wins (docs/fit.md)."""
    groups = [g for g in groups if len(g.scores)]
    every = np.concatenate([g.scores for g in groups]) if groups else np.zeros(0)
    best = float(every.min()) if len(every) else np.inf
    if not np.isfinite(best):
        raise FitError("no hypothesis could be fitted; the data may be degenerate")
    idx = np.flatnonzero(every - best <= policy.plausible)
    starts = np.cumsum([0] + [len(g.scores) for g in groups])
    gidx = np.searchsorted(starts, idx, side="right") - 1
    hidx = idx - starts[gidx]
    scores = every[idx]
    preds = np.concatenate([g.batch.predicted[:, -1] for g in groups])[idx]
    if len(scores) == 1 or policy.plausible <= 0 or sigma <= 0:
        pick = int(np.argmin(scores))
    else:
        if multi:
            risk, factor, spread = policy.multi_overshoot_risk, policy.overshoot_factor, policy.multi_overshoot_spread
        else:
            risk, spread = policy.overshoot_risk, np.inf
            factor = max(policy.overshoot_floor, policy.overshoot_factor + policy.overshoot_noise * sigma)
        pick = consensus_pick(scores - best, np.maximum(np.abs(preds), 1e-300), policy.indistinct,
                              policy.shrink, risk, factor, spread=spread, spread_risk=policy.overshoot_risk)
    return groups[int(gidx[pick])].candidate(int(hidx[pick]))


def _weighted_quantile(values: np.ndarray, weights: np.ndarray, q: float) -> int:
    """Index of the weighted ``q`` quantile of ``values`` (the first whose cumulative weight reaches q)."""
    order = np.argsort(values, kind="stable")
    cum = np.cumsum(weights[order])
    return int(order[min(int(np.searchsorted(cum, q * cum[-1])), len(order) - 1)])


def consensus_pick(delta: np.ndarray, preds: np.ndarray, indistinct: float, shrink: float,
                   risk: float, factor: float, spread: float = np.inf, spread_risk: float = 0.05) -> int:
    """Index of the hypothesis chosen by :func:`select` from score differences
    ``delta`` (>= 0) and positive predictions ``preds`` at the horizon; the cap is also at most
    ``spread`` times the ``spread_risk`` quantile of the predictions."""
    w = np.exp(-0.5 * delta)
    target = preds[_weighted_quantile(preds, w / preds ** shrink, 0.5)]
    cap = factor * preds[_weighted_quantile(preds, w, risk)] if risk > 0 else np.inf
    if spread < np.inf:
        cap = min(cap, spread * preds[_weighted_quantile(preds, w, spread_risk)])
    target = min(target, cap)
    close = np.flatnonzero((delta <= indistinct) & (preds <= cap * (1 + 1e-12)))
    if len(close):
        return int(close[np.argmin(np.abs(np.log(preds[close] / target)))])
    under = np.flatnonzero(preds <= cap * (1 + 1e-12))
    return int(under[np.argmin(delta[under])])


def runners_up(groups: list[Group], keep: int) -> list[Candidate]:
    """The ``keep`` best-scored valid hypotheses of all groups, best first."""
    scores = np.concatenate([g.scores for g in groups])
    finite = np.flatnonzero(np.isfinite(scores))
    if keep <= 0 or not len(finite):
        return []
    if len(finite) > keep:
        finite = finite[np.argpartition(scores[finite], keep - 1)[:keep]]
    order = finite[np.argsort(scores[finite], kind="stable")]
    starts = np.cumsum([0] + [len(g.scores) for g in groups])
    owner = np.searchsorted(starts, order, side="right") - 1
    found: dict[int, Candidate] = {}
    for k in np.unique(owner).tolist():
        mine = order[owner == k]
        found.update(zip(mine.tolist(), groups[k].candidates(mine - starts[k])))
    return [found[i] for i in order.tolist()]
