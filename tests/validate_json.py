"""The document ``perfcompose validate --json`` writes, read as the tests check it."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def read_validate_json(path: Path) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The whole document, and its configurations' records by the configuration they are of."""
    doc = json.loads(path.read_text())
    return doc, {rec["configuration"]: rec for rec in doc["configurations"]}
