"""Line numbers of keys in a JSON text, for error messages (json keeps no positions); each key is
scanned once, so locating every point stays linear in the file size."""
from __future__ import annotations

import re


class KeyLines:
    """The lines on which ``"key":`` occurs in ``text``, in order, found lazily per key.

    >>> KeyLines('{"a": 1,\\n "b": {"a": 2}}').line("a", 1)
    2
    """

    def __init__(self, text: str) -> None:
        self._text = text
        self._lines: dict[str, list[int]] = {}

    def line(self, key: str, index: int) -> int | None:
        """Line (1-based) of the ``index``-th occurrence of ``key``, or None where there is none."""
        lines = self._lines.get(key)
        if lines is None:
            lines = self._lines[key] = self._scan(key)
        return lines[index] if 0 <= index < len(lines) else None

    def _scan(self, key: str) -> list[int]:
        """One pass over the text: the line of each occurrence, counting newlines between them."""
        out: list[int] = []
        line, pos = 1, 0
        for match in re.finditer(rf'"{re.escape(key)}"\s*:', self._text):
            line += self._text.count("\n", pos, match.start())
            pos = match.start()
            out.append(line)
        return out
