"""Extra-P's JSON Lines input (``extrap --json`` on a ``.jsonl`` file): one measurement per line.

A line is ``{"params": {"x": 4, "y": 10}, "callpath": "main", "metric": "time", "value": 1.5}``;
``callpath`` and ``metric`` may be left out, and ``value`` may be a list of repetitions.
"""
from __future__ import annotations

from functools import partial

from perfcompose.data import measurement_lines

LAYOUT = measurement_lines.Layout(
    name="JSON Lines", params_key="params", required=(), decode=lambda line: line,
    example='{"params": {"x": 4}, "callpath": "main", "metric": "time", "value": 1.5}')


def sniff(line: str) -> bool:
    """Whether a file whose first non-blank line is ``line`` is in this format."""
    record = measurement_lines.parse_object(line, LAYOUT)
    return record is not None and "params" in record


#: ``read(path, text=None)``: the experiment in the file
read = partial(measurement_lines.read, LAYOUT)
