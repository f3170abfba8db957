"""Random LogGP programs for the tests of the GOAL writers and readers."""
from __future__ import annotations

import numpy as np

from perfcompose.loggp import CommStep, CompStep, Program


def random_program(seed: int, P: int = 6, M: int = 40, steps: int = 3, max_bytes: int = 200_000) -> Program:
    """``steps`` pairs of a step of ``M`` messages between random processors (none to itself) of
    1 to ``max_bytes`` bytes and a computation of up to 5,000 time units per processor."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        src = rng.integers(0, P, M)
        dst = (src + rng.integers(1, P, M)) % P
        out.append(CommStep.from_arrays(P, src, dst, rng.integers(1, max_bytes, M).astype(float)))
        out.append(CompStep.of(rng.integers(0, 5000, P).astype(float)))
    return Program(P, tuple(out))
