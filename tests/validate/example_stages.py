"""The example stages (examples/stages) as modules, imported from their folder."""
from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

STAGES = Path(__file__).resolve().parents[2] / "examples" / "stages"


@contextmanager
def example_stages(name: str) -> Iterator[ModuleType]:
    """The module ``name`` of examples/stages, with that folder on the path while it is used."""
    sys.path.insert(0, str(STAGES))
    try:
        yield importlib.import_module(name)
    finally:
        sys.path.remove(str(STAGES))
