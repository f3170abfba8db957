"""How much work one command may take on: memory and elementary steps, estimated before the work.

Commands whose cost grows with their input (grids, simulated processors and events, unrolled
loops, matrices) estimate the size of the work first and refuse, with the estimate, what would
need more than :data:`DEFAULT_MEMORY` bytes or more than :data:`DEFAULT_STEPS` elementary steps
(a few minutes at most). ``perfcompose --max-memory 8GiB`` and ``--max-steps 1e10`` raise the
limits for one run; ``--no-limits`` lifts them.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from perfcompose.errors import InputError
from perfcompose.option_fields import option

DEFAULT_MEMORY = 2 * 2 ** 30
"""2 GiB."""

DEFAULT_STEPS = 1e9
"""Elementary steps (simulated events, unrolled iterations, grid visits) one command may take."""


@dataclass(frozen=True)
class Limits:
    memory: float = DEFAULT_MEMORY
    steps: float = DEFAULT_STEPS


@dataclass(frozen=True)
class LimitOptions:
    """The command line's options that set the limits (given before the command)."""

    max_memory: str = option("2GiB", "Refuse work estimated to need more memory.")
    max_steps: float = option(DEFAULT_STEPS, "Refuse work estimated to take more steps (simulated events, loop "
                                             "iterations, grid visits).")
    no_limits: bool = option(False, "Lift both limits.")


class WorkTooLarge(InputError):
    """Work whose estimated size exceeds the limits."""


_current = [Limits()]


def limits() -> Limits:
    """The limits in force."""
    return _current[0]


def set_limits(memory: float | None = None, steps: float | None = None, unlimited: bool = False) -> Limits:
    """Change the limits for the rest of the process; returns the previous ones."""
    previous = _current[0]
    _current[0] = Limits(math.inf, math.inf) if unlimited else Limits(
        previous.memory if memory is None else memory, previous.steps if steps is None else steps)
    return previous


def _size(nbytes: float) -> str:
    for unit, scale in (("TiB", 2 ** 40), ("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if nbytes >= scale:
            return f"{nbytes / scale:.3g} {unit}"
    return f"{nbytes:.0f} bytes"


def check_memory(nbytes: float, what: str) -> None:
    """Refuse ``what`` when its estimated memory ``nbytes`` exceeds the limit."""
    limit = limits().memory
    if not nbytes <= limit:  # also catches NaN
        raise WorkTooLarge(f"{what} would need about {_size(nbytes)} of memory; the limit is {_size(limit)}",
                           hint="make it smaller, or raise the limit: perfcompose --max-memory 16GiB ... "
                                "(or --no-limits)")


def check_steps(steps: float, what: str) -> None:
    """Refuse ``what`` when its estimated number of elementary steps exceeds the limit."""
    limit = limits().steps
    if not steps <= limit:
        raise WorkTooLarge(f"{what} would take about {steps:.3g} steps; the limit is {limit:.3g} "
                           "(a few minutes)",
                           hint="make it smaller, or raise the limit: perfcompose --max-steps 1e11 ... "
                                "(or --no-limits)")


_BYTES = re.compile(r"\s*(\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)\s*([KMGT]i?B?|B)?\s*", re.IGNORECASE)


def parse_bytes(text: str) -> float:
    """``2GiB``, ``512M``, ``1e9`` -> bytes (K, M, G, T are powers of 1024)."""
    m = _BYTES.fullmatch(text)
    if not m:
        raise InputError(f"cannot read the size {text!r}", hint="e.g. 2GiB, 512MiB or 1e9")
    unit = (m.group(2) or "B").upper()[:1]
    return float(m.group(1)) * {"B": 1, "K": 2 ** 10, "M": 2 ** 20, "G": 2 ** 30, "T": 2 ** 40}[unit]
