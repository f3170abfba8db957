"""The options of a skeleton forecast (:mod:`perfcompose.skeleton`), declared once: the
skeleton's shape, the method for both parts, and how each part of T(n, p) is forecast.
``perfcompose skeleton forecast``'s options, a design file's skeleton keys and the library's
defaults are all read from these fields.

Cheap to import (no NumPy, outside the skeleton package, which loads it), so that the command
module can build its options up front.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from perfcompose.choices import DIRECTIONS, FORECAST_METHODS, STRATEGIES, Strategy
from perfcompose.errors import InputError
from perfcompose.option_fields import option
from perfcompose.skeleton.window import Window

__all__ = ["SkeletonShape", "MethodChoice", "ForecastOptions", "METHODS"]

#: the method names a forecast accepts (``lm(poly)`` is the paper's spelling of ``lm-poly``)
METHODS = (*FORECAST_METHODS, "lm(poly)")


@dataclass(frozen=True)
class SkeletonShape:
    """Which skeleton relates T(n, p) to the sequential times, with its counts (one of
    :data:`perfcompose.choices.SKELETON_KINDS`, checked by :class:`~perfcompose.skeleton.Skeleton`)."""

    kind: str = option("general", "The skeleton (general: eq. *).", flag="--skeleton")
    r: int = option(2, "dc: branching degree.")
    d: int = option(1, "dc: depth of the parallel expansion.")
    k: int = option(1, "iteration: number of iterations.")


@dataclass(frozen=True)
class MethodChoice:
    """One forecast method for both parts of T(n, p), where neither is given its own."""

    method: str = option("auto", "Forecast method for both parts (override with --method-t / "
                                            "--method-a).")


@dataclass(frozen=True)
class ForecastOptions:
    """How each part of T(n, p) is forecast: the keyword options of :func:`estimate`, checked up front."""

    method_t: str = option("auto", "Method for T(n).")
    method_a: str = option("auto", "Method for the penalty Ā(n,p).")
    direction: str = option("auto", "Forecast Ā w.r.t. n (p fixed), p (n fixed), or auto.")
    epsilon: float = option(0.05, "Largest hold-out error accepted by --method auto (fraction).", minimum=0.0)
    poly_degree: int = option(3, "Degree of lm-poly.", flag="--degree", key="degree", minimum=1)
    strategy: Strategy = option("known", "How --method auto chooses: against the known value nearest to the "
                                         "target (known), or the paper's real-life mean of the two (best-two) "
                                         "or three (best-three) methods best in training.")
    training: int = option(1, "best-two/best-three: known values nearest to the target to train on.", minimum=1)
    #: the training window as text (``n<=9689``), or None for every point
    train: str | None = option(None, "Learn only from the points in this window, e.g. 'n<=9689' or 'p<=196608' "
                                     "(conditions on n and p, joined by commas); a measured target is still "
                                     "compared.")

    def __post_init__(self) -> None:
        for key in ("method_t", "method_a"):
            if getattr(self, key) not in METHODS:
                raise InputError(f"unknown method {getattr(self, key)!r} for {key}",
                                 hint=f"choose one of {', '.join(FORECAST_METHODS)}")
        if self.direction not in DIRECTIONS:
            raise InputError(f"direction {self.direction!r}: choose {', '.join(DIRECTIONS)}")
        if not (math.isfinite(self.epsilon) and self.epsilon >= 0):
            raise InputError(f"epsilon {self.epsilon!r} must be a fraction >= 0")
        if self.poly_degree < 1:
            raise InputError(f"poly_degree {self.poly_degree} must be at least 1")
        if self.strategy not in STRATEGIES:
            raise InputError(f"unknown strategy {self.strategy!r}", hint=f"choose one of {', '.join(STRATEGIES)}")
        if self.training < 1:
            raise InputError(f"training {self.training} must be at least 1")
        if self.train is not None:
            Window.parse(self.train)

    def estimate_options(self) -> dict[str, Any]:
        """The keyword arguments of :func:`estimate`, the window parsed."""
        return {**asdict(self), "train": Window.parse(self.train) if self.train is not None else None}

