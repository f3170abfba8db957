"""PAMELA (paper 004): process models compiled to symbolic cost models, evaluated and simulated
(docs/pamela.md). The public names are imported on first use, so that reading a compiled model back
as numbers (:mod:`perfcompose.pamela.compile.numeric_form`) does not import SymPy.
"""
from typing import TYPE_CHECKING

from perfcompose.lazy_names import lazy_exports

if TYPE_CHECKING:
    from perfcompose.pamela.compile.compiler import Costs, compile_process
    from perfcompose.pamela.compile.costmodel import CostModel, compile_file, compile_program, compile_text
    from perfcompose.pamela.compile.point_evaluation import Evaluation
    from perfcompose.pamela.compile.simplification import simplify
    from perfcompose.pamela.language.normalisation import NormalForm, normalise
    from perfcompose.pamela.language.parser import load, parse
    from perfcompose.pamela.language.printing import pamela_text
    from perfcompose.pamela.language.syntax import PamelaError, PamelaProgram
    from perfcompose.pamela.simulate.simulation import Simulation, simulate_process

__getattr__, __dir__, __all__ = lazy_exports(globals())
