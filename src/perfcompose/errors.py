"""The errors perfcompose shows to people: each says where the problem is and what to do.

Every user-facing failure is a :class:`PerfcomposeError`; the CLI prints its message and exits
with status 2, so no traceback reaches the user.
"""
from __future__ import annotations

from pathlib import Path


class PerfcomposeError(Exception):
    """Base class of every error a user can act on."""


def _location(path: str | Path | None, line: int | None, column: int | None) -> str:
    parts = []
    if path is not None:
        parts.append(str(path))
    if line is not None:
        parts.append(f"line {line}")
        if column is not None:
            parts.append(f"column {column}")
    return ", ".join(parts)


class InputError(PerfcomposeError):
    """A problem in something the user wrote, located by file, line and column where known.

    When the offending source line is known, the message shows it with a caret under the column.
    """

    def __init__(self, message: str, *, path: str | Path | None = None, line: int | None = None,
                 column: int | None = None, source_line: str | None = None, hint: str | None = None):
        self.path, self.line, self.column = path, line, column
        self.reason, self.hint = message, hint
        where = _location(path, line, column)
        text = f"{where}: {message}" if where else message
        if source_line is not None:
            text += "\n    " + source_line.rstrip("\n")
            if column is not None:
                text += "\n    " + " " * max(0, column - 1) + "^"
        if hint:
            text += f"\n  hint: {hint}"
        super().__init__(text)


class ModelSyntaxError(InputError):
    """A model expression that cannot be parsed."""


class ModelError(PerfcomposeError):
    """A model used in a way it does not support (missing parameter, not PMNF, not serialisable)."""


class DataFormatError(InputError):
    """A malformed experiment file: missing fields, bad numbers, duplicate points, ..."""


class UnknownFormatError(PerfcomposeError):
    """A file whose format perfcompose cannot recognise."""


class FitError(PerfcomposeError):
    """Data that cannot support the requested fit (too few points, no variation in a parameter)."""
