"""``--json`` of ``perfcompose analyze``: the whole :class:`~perfcompose.analyze.result.Analysis`,
which :meth:`~perfcompose.analyze.result.Analysis.from_json` reads back."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from perfcompose.analyze.result import Analysis


def analysis_json(analysis: Analysis) -> str:
    """The analysis as indented JSON text."""
    return json.dumps(analysis.to_json(), indent=2, allow_nan=False) + "\n"


def write_json(analysis: Analysis, out: str | Path) -> None:
    """Write the JSON to ``out``; ``-`` is standard output."""
    text = analysis_json(analysis)
    if str(out) == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        Path(out).write_text(text, encoding="utf-8")
