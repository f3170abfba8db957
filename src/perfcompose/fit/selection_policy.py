"""How the PMNF fitter chooses among the hypotheses the data support: the price of a term, the
window of plausible hypotheses, and the cap on the extrapolation of their consensus.

>>> SelectionPolicy(plausible=2.0).indistinct
0.5
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from perfcompose.errors import FitError

__all__ = ["DEFAULT_POLICY", "SelectionPolicy"]


@dataclass(frozen=True)
class SelectionPolicy:
    """The selection heuristics of :class:`perfcompose.fit.PMNFFitter` (its ``policy``).

    ``term_penalty``: the chi-square price of the first, second, ... term where repetitions measure
    the noise; ``tolerance``: the CV margin a term must earn where nothing does; ``lack_of_fit``:
    the chi-square quantile beyond which the points' scatter sets the noise (0: off);
    ``scatter_noise``: without repetitions, the noise from the scatter around the best simple
    hypothesis. ``plausible``, ``indistinct``, ``horizon``, ``shrink`` and ``overshoot_*``: see
    :func:`perfcompose.fit.consensus.select`; ``forward_check``: see :mod:`perfcompose.fit.holdout`;
    ``trend``: a constant is no hypothesis for points of one parameter that rise or fall with it at
    this two-sided level of :func:`perfcompose.fit.trend.monotone` (0: off)."""

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
    trend: float = 0.01

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
                  "multi_overshoot_spread": (0.0, None), "trend": (0.0, 1.0)}
        for name, (low, high) in ranges.items():
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not low <= value or (high is not None and not value < high):
                within = f"at least {low:g}" + ("" if high is None else f" and below {high:g}")
                raise FitError(f"{name} {value!r}: a number {within}")


#: the policy the fitter uses unless given another
DEFAULT_POLICY = SelectionPolicy()
