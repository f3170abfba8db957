"""Which PAMELA model is read, and how: declared once for the ``pamela`` commands, a design's
PAMELA component and the library."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from perfcompose.option_fields import option

__all__ = ["ModelOptions"]


@dataclass(frozen=True)
class ModelOptions:
    """Which model is read, and how: the file, the process and the rule for phi."""

    model: Path = option(..., "PAMELA model file (.pam).", argument=True)
    process: str = option("main", "The process to compile (default main).", aliases=("-p",))
    paper_phi: bool = option(False, "Use the paper's printed rule phi = t/b for use(fcfs(a, b), t) instead of t.")
