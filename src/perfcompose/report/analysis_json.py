"""``--json`` of ``perfcompose analyze``: the whole :class:`~perfcompose.analyze.result.Analysis`,
which :meth:`~perfcompose.analyze.result.Analysis.from_json` reads back."""
from __future__ import annotations

import json

from perfcompose.analyze.result import Analysis


def analysis_json(analysis: Analysis) -> str:
    """The analysis as indented JSON text."""
    return json.dumps(analysis.to_json(), indent=2, allow_nan=False) + "\n"

