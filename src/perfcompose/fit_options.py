"""The options of a PMNF fit, declared once (:mod:`perfcompose.option_fields`): ``perfcompose fit``
reads its flags, help and defaults from these fields, and :class:`perfcompose.fit.PMNFFitter` and
:mod:`perfcompose.fit.advisor` their defaults.

Cheap to import (no NumPy), so that the command module can build its options up front.
"""
from __future__ import annotations

from dataclasses import dataclass

from perfcompose.choices import Aggregate, NegativeExponents
from perfcompose.option_fields import option

__all__ = ["FitOptions"]


@dataclass(frozen=True)
class FitOptions:
    """What a fit models of each point's repetitions (by default their mean, as Extra-P does), the
    hypotheses it searches, and how far beyond the measurements its advice looks."""

    aggregate: Aggregate = option("mean", "Which statistic of each point's repetitions is modelled: mean (as "
                                          "Extra-P does), median, min or max; of a file that saves each point's "
                                          "statistics instead of its repetitions (an Extra-P saved experiment), "
                                          "the saved one.")
    max_terms: int = option(2, "Terms besides the constant (1 or 2).")
    negative_exponents: NegativeExponents = option(
        "auto", "Also try x^-i*log2(x)^-j (strong scaling): auto where the values fall as a parameter grows, yes "
                "always, no never.")
    poly_exponents: str | None = option(
        None, "The exponents i of x^i to search, comma-separated fractions (as Extra-P's poly_exponents; default "
              "0 to 3 in Extra-P's steps).")
    log_exponents: str | None = option(
        None, "The exponents j of log2(x)^j to search (as Extra-P's log_exponents; default 0,1,2).")
    extend: float = option(4.0, "With --advise: consider points up to this factor beyond the largest measured "
                                "value.")
