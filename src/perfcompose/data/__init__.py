"""Measurements: the :class:`Experiment` type and its file formats.

>>> from perfcompose.data import load
>>> experiment = load("examples/qsort.json")  # doctest: +SKIP
"""
from perfcompose.data.experiment import AGGREGATES, Experiment, Point, Series
from perfcompose.data.io import FORMATS, detect, dumps, load, save

__all__ = ["Experiment", "Point", "Series", "AGGREGATES", "FORMATS", "load", "save", "dumps", "detect"]
