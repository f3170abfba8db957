"""Parsing a JSON text fast: orjson where it reads the text (several times faster on a 100 MB
profile), Python's ``json`` where it does not (``NaN``, and errors with a line), with the cyclic
garbage collector paused while millions of objects are made (:func:`paused_gc` halves the time);
:class:`KeyLines` finds the lines of keys for error messages (json keeps no positions).

>>> loads('{"values": [1, 2.5]}')
{'values': [1, 2.5]}
>>> loads('[NaN]')[0] != loads('[NaN]')[0]
True
"""
from __future__ import annotations

import gc
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson


def loads(text: str) -> Any:
    """The JSON value of ``text``; raises :class:`json.JSONDecodeError` (with its line) where the
    standard library, too, cannot read it."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text, parse_constant=float)


@contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic garbage collector held off within the block (and on again after, if it was on)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


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
        if key not in self._lines:  # one pass over the text, counting newlines between occurrences
            self._lines[key], line, pos = [], 1, 0
            for match in re.finditer(rf'"{re.escape(key)}"\s*:', self._text):
                line += self._text.count("\n", pos, match.start())
                pos = match.start()
                self._lines[key].append(line)
        lines = self._lines[key]
        return lines[index] if 0 <= index < len(lines) else None
