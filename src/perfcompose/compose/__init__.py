"""Compositional modeling: terms of the pattern language and the models they compose to.

>>> from perfcompose import Model
>>> qsort = Model.parse("1034.17*x*log2(x)", unit="ns")
>>> str(compose("tpool_4(qsort)", {"qsort": qsort}))
'258.5425*x*log2(x)'

A design file predicted once, for every renderer of :mod:`perfcompose.report`::

    prediction = predict_design("examples/designs/pipeline.toml", x=[1024, 4096])
"""
from perfcompose.compose.calibrated import CalibratedComposer, Overheads
from perfcompose.compose.components import ComponentError, parse_component
from perfcompose.compose.design import Design, DesignError, load_design
from perfcompose.compose.explore import Alternative, Exploration, explore, split_threads
from perfcompose.compose.kinds import mapreduce_model, pipe_model, seq_model, shuffle_model, tpool_model
from perfcompose.compose.laws import LawCheck, check_laws
from perfcompose.compose.operators import Composer, compose
from perfcompose.compose.parser import TermSyntaxError, parse_term
from perfcompose.compose.prediction import Prediction, predict_design
from perfcompose.compose.terms import Component, MapReduce, Pipe, Seq, Shuffle, Term, TPool, pipe, seq, tpool

__all__ = [
    "Alternative", "CalibratedComposer", "Component", "ComponentError", "Composer", "Design", "DesignError",
    "Exploration", "LawCheck", "MapReduce", "Overheads", "Pipe", "Prediction", "Seq", "Shuffle", "TPool", "Term",
    "TermSyntaxError", "check_laws", "compose", "explore", "load_design", "mapreduce_model", "parse_component",
    "parse_term", "pipe", "pipe_model", "predict_design", "seq", "seq_model", "shuffle_model", "split_threads",
    "tpool", "tpool_model",
]
