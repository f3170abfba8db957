"""Shared helpers: the examples folder and writing (bad) input files into tmp_path."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"

# example file -> the format it is written in
EXAMPLE_FORMATS = {
    "qsort.json": "perfcompose",
    "tasks.csv": "csv",
    "tasks.txt": "extrap-text",
    "kernel.extrap.json": "extrap-json",
}

# the file name perfcompose.data.save maps to each format
SUFFIX = {"perfcompose": "json", "csv": "csv", "extrap-text": "txt", "extrap-json": "extrap.json"}


@pytest.fixture
def examples_dir() -> Path:
    return EXAMPLES


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
