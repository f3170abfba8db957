"""A model file evaluated at a point or on a grid (``pamela eval``): from its numeric form where the
file is one or was compiled before (no SymPy), else compiled and its numeric form kept; the value of
a cost model at one point (:class:`Evaluation`), apart from the compiler so that a numeric form
reports its values without importing SymPy.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfcompose.pamela.compile.numeric_form import compile_cached, numeric_form
from perfcompose.pamela.language.syntax import PamelaError

__all__ = ["Evaluation", "check_names", "evaluate_point", "grid_function", "load_list", "load_vector", "no_values"]


def load_list(loads: Mapping[int, float], limit: int = 1_000_000) -> list[float]:
    """Loads as the paper's vector ``[l0, l1, ...]`` (base 0, zeros where nothing runs)."""
    if not loads:
        return []
    if min(loads) < 0 or max(loads) >= limit:
        raise PamelaError(f"resource indices run from {min(loads)} to {max(loads)}; a vector holds indices "
                          f"0 to {limit - 1}", hint="use resource indices from 0 upwards")
    return [loads.get(k, 0.0) for k in range(max(loads) + 1)]


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


def check_names(name: str, path: str | None, parameters: tuple[str, ...], given: Mapping[str, object],
                needed: Sequence[str] | None = None) -> None:
    """Refuse a value for a name that is no parameter of the model ``name`` (in the file ``path``), and a
    parameter the process uses (``needed``, default: every parameter) without a value, naming all of them."""
    unknown = [k for k in given if k not in parameters]
    if unknown:
        raise PamelaError(f"'{unknown[0]}' is not a parameter of {name}", path=path,
                          hint="parameters: " + (", ".join(parameters) or "none"))
    missing = [p for p in (parameters if needed is None else needed) if p not in given]
    if missing:
        raise no_values(missing, path)


def evaluate_point(model: Path, values: dict[str, float], process: str = "main",
                   paper_phi: bool = False) -> Evaluation:
    """phi, delta, omega and T of ``process`` at one point."""
    form = numeric_form(model, process, paper_phi, ("T", "phi", "omega", "delta"))
    if form is None:
        return compile_cached(model, process, paper_phi).evaluate(values, process)
    check_names(model.name, str(model), form.parameters, values, form.needs(process, ("T", "phi", "omega", "delta")))
    T = form.quantity(process, "T", values)
    loads = form.quantity(process, "delta", values, default=[])
    return Evaluation(process, T, form.quantity(process, "phi", values, T), form.quantity(process, "omega", values, T),
                      load_vector(loads))


def grid_function(model: Path, process: str = "main", paper_phi: bool = False
                  ) -> tuple[tuple[str, ...], tuple[str, ...], Callable[..., float]]:
    """The parameters of the model, those ``T_process`` uses, and ``T_process`` as a plain function
    of all of them (in declaration order; a parameter it does not use may be NaN)."""
    form = numeric_form(model, process, paper_phi)
    if form is not None:
        fn = form.function(process)
        assert fn is not None  # numeric_form gives only a form that states T_process
        return form.parameters, form.needs(process), fn
    cm = compile_cached(model, process, paper_phi)
    return cm.parameters, cm.uses(process, ("T",)), cm.function(process)
