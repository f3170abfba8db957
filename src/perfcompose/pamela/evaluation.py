"""The value of a cost model at one point: phi, delta, omega and T of a process.

Kept apart from the compiler so that a compiled model read back as numbers
(:mod:`perfcompose.pamela.numeric_form`) reports its values without importing SymPy.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from perfcompose.pamela.syntax import PamelaError

__all__ = ["Evaluation", "load_list"]


def load_list(loads: Mapping[int, float], limit: int = 1_000_000) -> list[float]:
    """Loads as the paper's vector ``[l0, l1, ...]`` (base 0, zeros where nothing runs)."""
    if not loads:
        return []
    if min(loads) < 0 or max(loads) >= limit:
        raise PamelaError(f"resource indices run from {min(loads)} to {max(loads)}; a vector holds indices "
                          f"0 to {limit - 1}", hint="use resource indices from 0 upwards")
    out = [0.0] * (max(loads) + 1)
    for k, v in loads.items():
        out[k] = v
    return out


@dataclass(frozen=True)
class Evaluation:
    """phi, delta (load per resource index), omega and T of one process at one parameter point."""

    process: str
    T: float
    phi: float
    omega: float
    delta: Mapping[int, float]

    def as_json(self) -> dict[str, Any]:
        """``{"T_main": ..., "phi_main": ..., "omega_main": ..., "delta_main": [...]}``."""
        n = self.process
        return {f"T_{n}": self.T, f"phi_{n}": self.phi, f"omega_{n}": self.omega,
                f"delta_{n}": load_list(self.delta)}
