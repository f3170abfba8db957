"""JSON programs read with their large number arrays as NumPy arrays, in linear time and memory.

A program's ``messages`` (rows of three numbers), ``durations`` and ``send_order`` (lists of message ids) hold almost
all of its bytes. :func:`load_json_arrays` finds each such array in the file's bytes, tokenizes it in one compiled pass
(the extension ``_cjson_tokens``; no Python object per number; where it is not built, :mod:`json` reads the whole
document, the reference) and hands :mod:`json` only the rest of the document, with each array replaced by a placeholder
that is then swapped for a :class:`JsonNumbers` or :class:`JsonLists`. An array that holds anything but plain numbers
(an expression string, ``null``, a row of another length) is left to :mod:`json`, so every document reads to the same
values as ``json.loads`` gives, only lighter.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from perfcompose.loggp.steps.json_array_slots import ARRAY_KEYS, load_with_arrays, mapped, read_numbers

__all__ = ["JsonNumbers", "JsonLists", "load_json_arrays", "plain", "token_offset", "readonly"]

# byte classes: whitespace, part of a number, '[', ']', ',', anything else
_WS, _NUM, _OPEN, _CLOSE, _COMMA, _OTHER = range(6)
_CLASS = np.full(256, _OTHER, np.uint8)
for _c in b" \t\r\n":
    _CLASS[_c] = _WS
for _c in b"0123456789-+.eE":
    _CLASS[_c] = _NUM
_CLASS[ord("[")], _CLASS[ord("]")], _CLASS[ord(",")] = _OPEN, _CLOSE, _COMMA


@dataclass(frozen=True, eq=False)
class JsonNumbers:
    """A JSON array of numbers (``width`` 0) or of rows of ``width`` numbers, as a read-only
    float64 array; ``start``/``end`` are its byte offsets in the file (to locate errors)."""

    values: np.ndarray
    start: int = -1
    end: int = -1


@dataclass(frozen=True, eq=False)
class JsonLists:
    """A JSON array of lists of integers: ``flat`` all of them in order, ``counts`` per list."""

    flat: np.ndarray
    counts: np.ndarray
    start: int = -1
    end: int = -1

    def __len__(self) -> int:
        return int(self.counts.shape[0])


def readonly(a: np.ndarray) -> np.ndarray:
    """``a``, made read-only (the arrays a program is read into are not written again)."""
    a.setflags(write=False)
    return a


def _read_array(key: bytes, data: bytes, open_at: int) -> tuple[JsonNumbers | JsonLists, int] | None:
    got = read_numbers(key, data, open_at)
    if got is None:
        return None
    raw, counts, end = got
    values = np.frombuffer(raw, np.float64)
    if counts is None:
        width = ARRAY_KEYS[key]
        return JsonNumbers(readonly(values if width == 0 else values.reshape(-1, width)), open_at, end), end
    if not (values == np.floor(values)).all():
        return None
    return JsonLists(readonly(values.astype(np.int64)), readonly(np.array(counts, np.int64)), open_at, end), end


def load_json_arrays(data: bytes) -> Any:
    """The value of the JSON document ``data`` with its number arrays under the keys ``messages``, ``durations`` and
    ``send_order`` as :class:`JsonNumbers`/:class:`JsonLists`. Raises :class:`json.JSONDecodeError` (or
    UnicodeDecodeError) as ``json.loads`` would, but with offsets that may not be the file's: a caller locating the
    error reads it again with ``json.loads``."""
    return load_with_arrays(data, lambda key, open_at: _read_array(key, data, open_at))


def plain(node: Any) -> Any:
    """``node`` with every array of this module as JSON lists (for writing back)."""
    if isinstance(node, (dict, list)):
        return mapped(node, plain)
    if isinstance(node, JsonNumbers):
        values = node.values
        ints = values == np.floor(values)
        if ints.all() and (np.abs(values) < 2 ** 53).all():
            return values.astype(np.int64).tolist()
        return values.tolist()
    if isinstance(node, JsonLists):
        bounds = np.concatenate(([0], np.cumsum(node.counts))).tolist()
        flat = node.flat.tolist()
        return [flat[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    return node


def token_offset(read: Callable[[], bytes], node: JsonNumbers | JsonLists, index: tuple[int, ...]) -> int:
    """The byte offset of the number at ``index`` (row and column, or list and position, or one
    index) inside ``node``, or of the row or list itself, from the file's bytes."""
    if node.start < 0:
        return -1
    buf = np.frombuffer(read(), np.uint8)[node.start:node.end]
    cls = _CLASS[buf]
    num = cls == _NUM
    is_start = num.copy()
    is_start[1:] &= ~num[:-1]
    opens = np.flatnonzero((cls == _OPEN) & (np.cumsum((cls == _OPEN).astype(np.int64) - (cls == _CLOSE)) == 2))
    numbers = np.flatnonzero(is_start)
    if not index:
        return node.start
    if isinstance(node, JsonNumbers) and node.values.ndim == 1:
        return node.start + int(numbers[index[0]]) if index[0] < numbers.size else node.start
    if index[0] >= opens.size:
        return node.start
    row_at = int(opens[index[0]])
    if len(index) == 1:
        return node.start + row_at
    first = int(np.searchsorted(numbers, row_at))
    k = first + index[1]
    return node.start + int(numbers[k]) if k < numbers.size else node.start + row_at

