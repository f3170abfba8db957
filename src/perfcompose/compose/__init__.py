"""Compositional modeling: terms of the pattern language and the models they compose to."""
from perfcompose.compose.parser import TermSyntaxError, parse_term
from perfcompose.compose.terms import (Component, MapReduce, Pipe, Seq, Shuffle, Term, TPool, pipe, seq,
                                       tpool)

__all__ = ["Component", "MapReduce", "Pipe", "Seq", "Shuffle", "Term", "TPool", "TermSyntaxError",
           "parse_term", "pipe", "seq", "tpool"]
from perfcompose.compose.operators import (Composer, compose, mapreduce_model, pipe_model, seq_model,  # noqa: E402
                                           shuffle_model, tpool_model)

__all__ += ["Composer", "compose", "mapreduce_model", "pipe_model", "seq_model", "shuffle_model", "tpool_model"]
from perfcompose.compose.laws import LawCheck, check_laws  # noqa: E402

__all__ += ["LawCheck", "check_laws"]
