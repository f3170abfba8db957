"""Whole-profile analysis: every call path x metric fitted, composed along the call tree, and
ranked by how fast its share grows toward a target point.

>>> from perfcompose.analyze import analyze
>>> analysis = analyze("examples/callpaths.txt", {"p": 4096})  # doctest: +SKIP
"""
from perfcompose.analyze.analysis import analyze, check_target
from perfcompose.analyze.callpaths import CallTree, call_tree
from perfcompose.analyze.result import Analysis, CallNode, Composition, Estimate, MetricAnalysis, Ranked
from perfcompose.analyze.values import MetricValues, read_values

__all__ = ["analyze", "check_target", "Analysis", "CallNode", "Composition", "Estimate", "MetricAnalysis", "Ranked",
           "CallTree", "call_tree", "MetricValues", "read_values"]
