"""PAMELA (paper 004): process models of parallel programs compiled into symbolic cost models.

A model is written as a small process algebra (``use(resource, t)``, ``delay(t)``, ``;``,
``||``, ``seq``/``par`` loops, ``if``); :func:`compile_text` / :func:`compile_file` normalise it
by substitution, derive phi, delta, omega and T for every process (section 2.2), and simplify
them to closed forms. :meth:`CostModel.model` gives ``T_main`` as a :class:`perfcompose.Model`,
:meth:`CostModel.evaluate` evaluates at a point, and :meth:`CostModel.simulate` runs a
discrete-event simulation of the same model to measure how tight the bound is.
"""
from perfcompose.pamela.compiler import Costs, compile_process
from perfcompose.pamela.costmodel import CostModel, Evaluation, compile_file, compile_program, compile_text
from perfcompose.pamela.normalise import NormalForm, normalise
from perfcompose.pamela.parser import load, parse
from perfcompose.pamela.printing import pamela_text
from perfcompose.pamela.simplify import simplify
from perfcompose.pamela.simulate import Simulation, simulate_process
from perfcompose.pamela.syntax import PamelaError, Program

__all__ = ["CostModel", "Costs", "Evaluation", "NormalForm", "PamelaError", "Program", "Simulation",
           "compile_file", "compile_process", "compile_program", "compile_text", "load", "normalise",
           "pamela_text", "parse", "simplify", "simulate_process"]
