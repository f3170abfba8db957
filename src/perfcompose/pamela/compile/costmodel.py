"""A compiled PAMELA model: parse, normalise, compile and simplify once; evaluate and simulate often."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import sympy as sp

from perfcompose.errors import InputError
from perfcompose.model import Model
from perfcompose.pamela.compile.compiler import Costs, compile_process
from perfcompose.pamela.compile.point_evaluation import Evaluation, check_names, no_values
from perfcompose.pamela.compile.simplification import simplify, simplify_vector
from perfcompose.pamela.compile.symbolic import free_symbols
from perfcompose.pamela.compile.symbolic_evaluation import (
    evaluate,
    evaluate_loads,
    fast_function,
    is_closed,
    with_residuals,
)
from perfcompose.pamela.language.normalisation import NormalForm, normalise
from perfcompose.pamela.language.parser import load, parse
from perfcompose.pamela.language.printing import decimal_form, pamela_text
from perfcompose.pamela.language.syntax import PamelaError, PamelaProgram

if TYPE_CHECKING:  # the simulator compiles with Numba: loaded when a model is simulated
    from perfcompose.pamela.simulate.simulation import Distribution, Simulation

__all__ = ["RECORD_FORMAT", "CostModel", "Evaluation", "compile_file", "compile_program", "compile_text",
           "model_from_record", "model_record"]

#: the format of a PAMELA model record whose T has no closed form: the source, compiled on reading
RECORD_FORMAT = "perfcompose-pamela-model/1"

Quantity = Literal["T", "phi", "omega"]


class CostModel:
    """The symbolic cost model of every process of one PAMELA program (paper 004, section 2.2)."""

    def __init__(self, normal: NormalForm, *, paper_phi: bool = False):
        self.normal = normal
        self.paper_phi = paper_phi
        self._raw: dict[str, Costs] = {}
        self._simple: dict[str, Costs] = {}
        self._fast: dict[tuple[str, str], Callable[..., float]] = {}

    # -- structure --------------------------------------------------------------------------

    @property
    def program(self) -> PamelaProgram:
        return self.normal.program

    @property
    def parameters(self) -> tuple[str, ...]:
        """The ``numeric parameter`` names, in the order they were declared."""
        return self.normal.parameters

    @property
    def processes(self) -> tuple[str, ...]:
        """Names of the processes that compile on their own (those without formal parameters)."""
        return tuple(n for n in self.normal.processes if n not in self.normal.formals)

    def _numeric_only(self, name: str) -> bool:
        """True when ``name`` is no process but the model states ``T_name`` as a numeric equation
        (the compiler's own output read back)."""
        return name not in self.normal.processes and f"T_{name}" in self.normal.numerics

    def _check(self, name: str) -> None:
        if name not in self.normal.processes and not self._numeric_only(name):
            raise PamelaError(f"no process '{name}' in {self.program.source_name}", path=self.program.path,
                              hint=f"processes: {', '.join(self.processes) or 'none'}")

    # -- compilation ------------------------------------------------------------------------

    def raw(self, name: str = "main") -> Costs:
        """phi, delta, omega and T as the compilation rules give them, before simplification."""
        self._check(name)
        if name not in self._raw and self._numeric_only(name):
            # a cost model as numeric equations: T_name, and phi/delta/omega where they are stated
            # (phi and omega fall back to T, delta to no load)
            num = self.normal.numerics
            T = num[f"T_{name}"]
            self._raw[name] = Costs(num.get(f"phi_{name}", T), num.get(f"delta_{name}", sp.Integer(0)),
                                    num.get(f"omega_{name}", T), T)
        if name not in self._raw:
            self._raw[name] = compile_process(self.normal.processes[name], paper_phi=self.paper_phi)
        return self._raw[name]

    def costs(self, name: str = "main") -> Costs:
        """phi, delta, omega and T simplified to the closed forms the rules reach."""
        if name not in self._simple:
            raw = self.raw(name)
            delta = simplify_vector(simplify(raw.delta))
            self._simple[name] = Costs(simplify(raw.phi), delta, simplify(raw.omega), simplify(raw.T))
        return self._simple[name]

    def closed(self, name: str = "main") -> bool:
        """True when T of the process has a closed form (no sum or max over an index is left)."""
        return is_closed(self.costs(name).T)

    def model(self, name: str = "main", quantity: Quantity = "T") -> Model:
        """``T_name`` (or ``phi_name``, ``omega_name``) as a :class:`perfcompose.model.Model`; a part
        without a closed form is a numerically implemented function ``T_name_k(parameters)``."""
        label = f"{quantity}_{name}"
        return Model(with_residuals(decimal_form(getattr(self.costs(name), quantity), every=True), label),
                     params=self.uses(name, (quantity,)), unit="",
                     source=f"pamela:{self.program.source_name}", name=label)

    # -- evaluation -------------------------------------------------------------------------

    def _values(self, values: Mapping[str, float], needed: Sequence[str] = ()) -> dict[str, float]:
        """The values, checked: none for a name that is no parameter, one for every parameter ``needed``
        (all that are missing named at once)."""
        check_names(self.program.source_name, self.program.path, self.parameters, values, needed)
        return {k: float(v) for k, v in values.items()}

    def uses(self, name: str = "main", quantities: tuple[str, ...] = ("T", "phi", "omega", "delta")
             ) -> tuple[str, ...]:
        """The parameters the ``quantities`` of process ``name`` depend on, in declaration order."""
        used = set().union(*(free_symbols(getattr(self.costs(name), q)) for q in quantities))
        return tuple(p for p in self.parameters if sp.Symbol(p, positive=True) in used)

    def evaluate(self, values: Mapping[str, float], name: str = "main") -> Evaluation:
        """phi, delta, omega and T of process ``name`` at the given parameter values (a value for
        each parameter the process uses; others may be left out)."""
        vals = self._values(values, self.uses(name))
        c = self.costs(name)
        out: dict[str, Any] = {}
        for q in ("T", "phi", "omega", "delta"):
            try:
                out[q] = (evaluate_loads if q == "delta" else evaluate)(getattr(c, q), vals)
            except InputError as exc:  # the evaluator knows no file: name it, and the equation
                if exc.path is not None:
                    raise
                raise type(exc)(f"{q}_{name}: {exc.reason}", path=self.program.path, hint=exc.hint) from None
        return Evaluation(name, **out)

    def function(self, name: str = "main", quantity: Quantity = "T") -> Callable[..., float]:
        """A plain scalar function of the parameters (in :attr:`parameters` order) for tight loops."""
        key = (name, quantity)
        if key not in self._fast:
            self._fast[key] = fast_function(getattr(self.costs(name), quantity), self.parameters)
        return self._fast[key]

    def simulate(self, values: Mapping[str, float], name: str = "main", *,
                 distribution: Distribution = "deterministic", seed: int = 0) -> Simulation:
        """Simulate process ``name`` with the parameters bound (see :mod:`perfcompose.pamela.simulate.simulation`)."""
        self._check(name)
        if self._numeric_only(name):
            raise PamelaError(f"{self.program.source_name} states T_{name} as numbers only: there is no process "
                              "to simulate", path=self.program.path, hint="simulate the process model it came from")
        vals = self._values(values)
        raw = self.raw(name)
        mentioned = set().union(*(free_symbols(e) for e in (raw.T, raw.delta, raw.phi)))
        needed = [p for p in self.parameters if p not in vals and sp.Symbol(p, positive=True) in mentioned]
        if needed:
            raise no_values(needed, self.program.path, "every parameter a value")
        from perfcompose.pamela.simulate.simulation import simulate_process

        return simulate_process(self.normal, vals, process=name, distribution=distribution, seed=seed)

    def mva(self, values: Mapping[str, float], name: str = "main") -> float | None:
        """Mean value analysis's completion time where process ``name`` is a closed network of
        identical cycling clients (see :mod:`perfcompose.pamela.simulate.simulation`), else None."""
        self._check(name)
        if self._numeric_only(name):
            return None
        from perfcompose.pamela.simulate.simulation import mva_estimate

        return mva_estimate(self.normal.processes[name], self._values(values))

    # -- text -------------------------------------------------------------------------------

    def text(self, name: str = "main", everything: bool = False) -> str:
        """The cost model as PAMELA text: parameters, then ``T_name`` (and phi, delta, omega)."""
        c = self.costs(name)
        lines = [f"numeric parameter {p}" for p in self.parameters]
        if everything:
            lines += [f"numeric {q}_{name} = {pamela_text(getattr(c, q))}" for q in ("phi", "delta", "omega")]
        lines.append(f"numeric T_{name} = {pamela_text(c.T)}")
        return "\n".join(lines)


def compile_program(program: PamelaProgram, *, paper_phi: bool = False) -> CostModel:
    """Compile a parsed program (normalisation happens here; errors name line and column)."""
    return CostModel(normalise(program), paper_phi=paper_phi)


def compile_text(text: str, path: str | Path | None = None, *, paper_phi: bool = False) -> CostModel:
    """Compile PAMELA text."""
    return compile_program(parse(text, path), paper_phi=paper_phi)


def compile_file(path: str | Path, *, paper_phi: bool = False) -> CostModel:
    """Compile a ``.pam`` file."""
    return compile_program(load(path), paper_phi=paper_phi)


def model_record(text: str, path: str | Path, process: str = "main", *, paper_phi: bool = False) -> dict[str, Any]:
    """A JSON-ready record of ``T_process``: the model itself where it is closed (a plain model
    record), else the PAMELA source, compiled again when the record is read."""
    cost = compile_text(text, path, paper_phi=paper_phi)
    model = cost.model(process).with_meta(source=f"PAMELA model {path}, T_{process}")
    if not model.is_numeric:
        return model.to_json()
    return {"format": RECORD_FORMAT, "name": model.name, "source": model.source, "process": process,
            "paper_phi": paper_phi, "program": text}


def model_from_record(record: Mapping[str, Any], path: str | Path) -> Model:
    """The Model of a record written by :func:`model_record` with the PAMELA source in it."""
    for key, kind in (("program", str), ("process", str)):
        if not isinstance(record.get(key), kind):
            raise PamelaError(f"a PAMELA model record needs '{key}' ({kind.__name__})", path=path)
    cost = compile_text(record["program"], path, paper_phi=bool(record.get("paper_phi", False)))
    process = record["process"]
    return cost.model(process).with_meta(source=str(record.get("source") or f"PAMELA model in {path}, T_{process}"))
