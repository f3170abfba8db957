"""Reading the JSON files of LogGP: programs, parameter files and model records alike."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from perfcompose.errors import InputError

__all__ = ["load_json"]


def load_json(path: Path, text: str | None = None, *, what: str, hint: str | None = None) -> tuple[str, Any]:
    """The text of a JSON file (read unless given) and its value; an unreadable file, one that is
    not UTF-8 and invalid JSON are InputErrors naming ``what`` it is and where."""
    if text is None:
        try:
            text = path.read_text()
        except OSError as exc:
            raise InputError(f"cannot read the {what}: {exc.strerror}", path=path) from None
        except UnicodeDecodeError:
            raise InputError(f"the {what} is not UTF-8 text", path=path) from None
    try:
        return text, json.loads(text)
    except json.JSONDecodeError as exc:
        lines = text.splitlines()
        src = lines[exc.lineno - 1] if 0 < exc.lineno <= len(lines) else None
        raise InputError(f"not valid JSON: {exc.msg}", path=path, line=exc.lineno, column=exc.colno,
                         source_line=src if src is not None and len(src) <= 160 else None, hint=hint) from None
