"""The value of a cost model at one point (phi, delta, omega and T of a process), apart from the
compiler so that a numeric form reports its values without importing SymPy.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from perfcompose.pamela.language.syntax import PamelaError

__all__ = ["Evaluation", "load_list", "load_vector", "no_values"]


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


def load_vector(loads: Any) -> dict[int, float]:
    """A load vector as a numeric form states it (``[l0, l1, ...]``, or one number for a vector of
    one element, ``0`` where no resource is used) as the load per resource index."""
    if isinstance(loads, (int, float)):
        return {0: float(loads)} if loads else {}
    return {k: float(v) for k, v in enumerate(loads) if v}


def no_values(missing: Sequence[str], path: str | None, ask: str = "each a value or a range") -> PamelaError:
    """The error for parameters a process uses and that were given no value (all of them named)."""
    return PamelaError(f"no value for parameter{'s' if len(missing) > 1 else ''} {', '.join(missing)}", path=path,
                       hint=f"give {ask}, e.g. " + " ".join(f"{m}=100" for m in missing))


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
