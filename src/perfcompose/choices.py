"""Choice options of the library that the command line offers, declared once as Literals.

This module imports nothing heavy, so a command module can annotate its options with these
types at import time without slowing down ``perfcompose --help``.
"""
from __future__ import annotations

from typing import Literal, get_args

#: how the automatic forecast choice (001 section 3) picks a method: ``known`` checks every
#: method against the known value nearest to the target; ``best-two`` and ``best-three`` are the
#: paper's "real life" strategies, trained on a few known values
Strategy = Literal["known", "best-two", "best-three"]
STRATEGIES: tuple[str, ...] = get_args(Strategy)
