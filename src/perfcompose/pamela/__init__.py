"""PAMELA (paper 004): process models of parallel programs compiled into symbolic cost models.

A model is written as a small process algebra (``use(resource, t)``, ``delay(t)``, ``;``,
``||``, ``seq``/``par`` loops, ``if``); :func:`compile_text` / :func:`compile_file` normalise it
by substitution, derive phi, delta, omega and T for every process (section 2.2), and simplify
them to closed forms. :meth:`CostModel.model` gives ``T_main`` as a :class:`perfcompose.Model`,
:meth:`CostModel.evaluate` evaluates at a point, and :meth:`CostModel.simulate` runs a
discrete-event simulation of the same model to measure how tight the bound is.

The public names are imported on first use, so that reading a compiled model back as numbers
(:mod:`perfcompose.pamela.compile.numeric_form`) does not import SymPy.

>>> from perfcompose.pamela import compile_text
>>> compile_text("process main = delay(2) ; delay(3)").evaluate({}).T
5.0
"""
from typing import TYPE_CHECKING

from perfcompose.lazy_names import lazy_exports

if TYPE_CHECKING:
    from perfcompose.pamela.compile.compiler import Costs, compile_process
    from perfcompose.pamela.compile.costmodel import CostModel, compile_file, compile_program, compile_text
    from perfcompose.pamela.compile.evaluation_result import Evaluation
    from perfcompose.pamela.compile.simplification import simplify
    from perfcompose.pamela.language.normalisation import NormalForm, normalise
    from perfcompose.pamela.language.parser import load, parse
    from perfcompose.pamela.language.printing import pamela_text
    from perfcompose.pamela.language.syntax import PamelaError, PamelaProgram
    from perfcompose.pamela.simulate.simulation import Simulation, simulate_process

__getattr__, __dir__, __all__ = lazy_exports(globals())
