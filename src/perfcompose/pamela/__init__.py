"""PAMELA (paper 004): process models of parallel programs compiled into symbolic cost models.

A model is written as a small process algebra (``use(resource, t)``, ``delay(t)``, ``;``,
``||``, ``seq``/``par`` loops, ``if``); :func:`compile_text` / :func:`compile_file` normalise it
by substitution, derive phi, delta, omega and T for every process (section 2.2), and simplify
them to closed forms. :meth:`CostModel.model` gives ``T_main`` as a :class:`perfcompose.Model`,
:meth:`CostModel.evaluate` evaluates at a point, and :meth:`CostModel.simulate` runs a
discrete-event simulation of the same model to measure how tight the bound is.
"""
from __future__ import annotations

import sys
from importlib import import_module
from types import ModuleType
from typing import Any

#: where each public name lives; imported on first use, so that reading a compiled model
#: (:mod:`perfcompose.pamela.numeric_form`) does not import SymPy
_HOMES = {"Costs": "compiler", "compile_process": "compiler", "CostModel": "costmodel", "Evaluation": "evaluation",
          "compile_file": "costmodel", "compile_program": "costmodel", "compile_text": "costmodel",
          "NormalForm": "language.normalisation", "normalise": "language.normalisation",
          "load": "language.parser", "parse": "language.parser", "pamela_text": "language.printing",
          "simplify": "simplify", "Simulation": "simulate", "simulate_process": "simulate",
          "PamelaError": "language.syntax", "PamelaProgram": "language.syntax"}

__all__ = ["CostModel", "Costs", "Evaluation", "NormalForm", "PamelaError", "PamelaProgram", "Simulation",
           "compile_file", "compile_process", "compile_program", "compile_text", "load", "normalise",
           "pamela_text", "parse", "simplify", "simulate_process"]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'perfcompose.pamela' has no attribute {name!r}")
    value = getattr(import_module(f"perfcompose.pamela.{_HOMES[name]}"), name)
    globals()[name] = value
    return value


class _Package(ModuleType):
    """The package, whose functions ``normalise`` and ``simplify`` share their modules' names:
    importing such a module must not replace the function (as the import system would)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _HOMES and isinstance(value, ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
