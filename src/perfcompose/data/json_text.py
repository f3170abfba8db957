"""Parsing a JSON text fast: orjson where it reads the text, Python's ``json`` where it does not.

Python's cyclic garbage collector runs again and again while a parser creates millions of lists
and numbers, none of which can be garbage yet; :func:`paused_gc` holds it off while a file is read
(it roughly halves the time of parsing a large profile).

A profile of 30,000 series is a JSON text of about 100 MB; orjson parses it several times faster
than the standard library. It refuses what JSON does not allow but Python's ``json`` reads
(``NaN``, ``Infinity``) and reports errors without a line; there the standard library parses the
text again, so the readers keep their checks and located messages.

>>> loads('{"values": [1, 2.5]}')
{'values': [1, 2.5]}
>>> loads('[NaN]')[0] != loads('[NaN]')[0]
True
"""
from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson

__all__ = ["loads", "paused_gc"]


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
