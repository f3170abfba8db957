"""Reading the JSON files of LogGP: programs, parameter files and model records alike."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from perfcompose.errors import InputError

__all__ = ["load_json", "load_json_program", "JsonText", "as_text"]


class JsonText:
    """The text of a JSON file, kept as given or read again from ``path`` only where an error
    is to be located (a large program's text is not kept beside its arrays)."""

    def __init__(self, path: Path, text: str | None = None) -> None:
        self.path, self._text = path, text

    def text(self) -> str:
        if self._text is None:
            self._text = self.path.read_bytes().decode("utf-8", errors="replace")
        return self._text

    def data(self) -> bytes:
        return self._text.encode() if self._text is not None else self.path.read_bytes()


def as_text(text: str | JsonText | None) -> str | None:
    """The text itself (read again where it was not kept)."""
    return text.text() if isinstance(text, JsonText) else text


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


def load_json_program(path: Path, text: str | None = None, *, what: str,
                      hint: str | None = None) -> tuple[JsonText, Any]:
    """Like :func:`load_json`, with the large number arrays of a program (its messages, durations and send orders) read
    as NumPy arrays (:mod:`.steps.json_arrays`); the text is read again only to locate an error."""
    from perfcompose.loggp.steps.json_arrays import load_json_arrays

    if text is None:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise InputError(f"cannot read the {what}: {exc.strerror}", path=path) from None
    else:
        data = text.encode()
    try:
        doc = load_json_arrays(data)
    except UnicodeDecodeError:
        raise InputError(f"the {what} is not UTF-8 text", path=path) from None
    except json.JSONDecodeError:  # the offsets may be those of the document without its arrays
        del data
        _, doc = load_json(path, text, what=what, hint=hint)
        raise InputError(f"the {what} reads as JSON only in parts", path=path) from None  # not reached
    return JsonText(path, text), doc
