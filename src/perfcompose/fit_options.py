"""The options of a PMNF fit on the command line, declared once (:mod:`perfcompose.option_fields`):
``perfcompose fit`` reads its flags, help and defaults from these fields.

Cheap to import (no NumPy), so that the command module can build its options up front.
"""
from __future__ import annotations

from dataclasses import dataclass

from perfcompose.choices import Aggregate
from perfcompose.option_fields import option

__all__ = ["FitOptions"]


@dataclass(frozen=True)
class FitOptions:
    """What a fit models of each point's repetitions: by default their mean, as Extra-P does."""

    aggregate: Aggregate = option("mean", "Which statistic of each point's repetitions is modelled: mean (as "
                                          "Extra-P does), median, min or max; of a file that saves each point's "
                                          "statistics instead of its repetitions (an Extra-P saved experiment), "
                                          "the saved one.")
