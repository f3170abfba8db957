"""Tables of test cases kept in TOML files beside the tests that read them (data, not code): a
file holds a ``case`` array of tables (or several arrays, named), each table naming the test's
arguments, and optionally an ``id``."""
from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest


def read_cases(path: Path, key: str = "case") -> list[dict[str, Any]]:
    """The cases of the TOML file ``path`` (its array ``key``), as tables of argument name -> value."""
    with open(path, "rb") as f:
        return tomllib.load(f)[key]


def cases(path: Path, *names: str) -> list[Any]:
    """The cases of ``path`` as ``pytest.param``s of the arguments ``names`` (None where a case
    leaves one out), each with its id where it has one."""
    return [pytest.param(*(case.get(name) for name in names), id=case.get("id")) for case in read_cases(path)]
