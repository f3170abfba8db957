"""Extra-P's Talpas input (``extrap --talpas``): one measurement per line, fields separated by ``;``.

A line is ``{"parameters": {"x": 20}; "metric": "time"; "callpath": "compute"; "value": 82.0}``:
JSON once each ``;`` is read as ``,``. Every line names its call path and metric.
"""
from __future__ import annotations

from functools import partial

from perfcompose.data import measurement_lines

LAYOUT = measurement_lines.Layout(
    name="Talpas", params_key="parameters", required=("callpath", "metric"),
    decode=lambda line: line.replace(";", ","),
    example='{"parameters": {"x": 20}; "metric": "time"; "callpath": "compute"; "value": 82.0}')


def sniff(line: str) -> bool:
    """Whether a file whose first non-blank line is ``line`` is in this format."""
    record = measurement_lines.parse_object(line, LAYOUT)
    return (record is not None and isinstance(record.get("parameters"), dict) and "value" in record
            and ("callpath" in record or "metric" in record))


#: ``read(path, text=None)``: the experiment in the file
read = partial(measurement_lines.read, LAYOUT)
