"""Shared fixtures: writing (bad) input files into tmp_path. Hypothesis runs with its "ci" profile."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import settings

# Every run of the suite tries the same examples (derived from each test), with no deadline, no
# example database and no "too slow" health check: a property's outcome depends neither on the
# run nor on how busy the machine is. `pytest --hypothesis-profile=default` explores new examples.
settings.load_profile("ci")


@pytest.fixture
def write_file(tmp_path: Path) -> Callable[[str, str | bytes], Path]:
    """Write text (or bytes) to ``tmp_path / name`` and return the path."""

    def write(name: str, content: str | bytes) -> Path:
        path = tmp_path / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_bytes(content.encode())  # byte-exact: no newline translation
        return path

    return write
