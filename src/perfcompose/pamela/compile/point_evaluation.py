"""A model file evaluated at a point or on a grid (``pamela eval``): from its numeric form where the
file is one or was compiled before (no SymPy), else compiled and its numeric form kept.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from perfcompose.pamela.compile.evaluation_result import Evaluation, load_vector, no_values
from perfcompose.pamela.compile.model_cache import compile_cached, numeric_form
from perfcompose.pamela.language.syntax import PamelaError

__all__ = ["check_names", "evaluate_point", "grid_function"]


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
