"""The choices of the LogGP simulators, declared once (the library's type hints and the command
line's options use these): cheap to import, so that a command can name them up front."""
from __future__ import annotations

from typing import Literal

__all__ = ["GapOrigin", "Ties", "Semantics"]

#: where section 3's "g later" counts from: the end (default) or the start of the previous operation
GapOrigin = Literal["end", "start"]
#: ties between processors: a seeded random choice (the paper's) or the lower rank
Ties = Literal["random", "rank"]
#: the paper's algorithm (Figure 2 / section 4.2) or LogGOPSim's rules
Semantics = Literal["paper", "loggopsim"]
