"""Extra-P's Talpas input (``extrap --talpas``): one measurement per line, fields separated by ``;``.

A line is ``{"parameters": {"x": 20}; "metric": "time"; "callpath": "compute"; "value": 82.0}``:
JSON once each ``;`` is read as ``,``. Every line names its call path and metric.
"""
from __future__ import annotations

from pathlib import Path

from perfcompose.data import measurement_lines
from perfcompose.data.experiment import Experiment

LAYOUT = measurement_lines.Layout(
    name="Talpas", params_key="parameters", required=("callpath", "metric"),
    decode=lambda line: line.replace(";", ","),
    example='{"parameters": {"x": 20}; "metric": "time"; "callpath": "compute"; "value": 82.0}')


def sniff(line: str) -> bool:
    """Whether a file whose first non-blank line is ``line`` is in this format."""
    record = measurement_lines.parse_object(line, LAYOUT)
    return (record is not None and isinstance(record.get("parameters"), dict) and "value" in record
            and ("callpath" in record or "metric" in record))


def read(path: Path, text: str | None = None) -> Experiment:
    text = path.read_text() if text is None else text
    return measurement_lines.read(path, text, LAYOUT)
