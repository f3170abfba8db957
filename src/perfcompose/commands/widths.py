"""The width output is laid out at where it does not go to a terminal (a file, a pipe): wide
enough that no number, model or message is broken across lines. Kept free of Rich, so that
the plain tables of :mod:`.loggp.tables` lay out as Rich does without importing it."""
from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

#: the width of output to a file or a pipe
WIDE = 1000


def piped_width(stream: Any, environ: Mapping[str, str] | None = None) -> int | None:
    """:data:`WIDE` where ``stream`` is no terminal and COLUMNS sets no width; None otherwise
    (a terminal, or COLUMNS: Rich then takes that width itself)."""
    env = os.environ if environ is None else environ
    if env.get("COLUMNS", "").isdigit() or stream is None:
        return None
    try:
        return None if stream.isatty() else WIDE
    except (AttributeError, ValueError):
        return None
