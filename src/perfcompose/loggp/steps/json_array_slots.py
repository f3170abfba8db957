"""The large number arrays of a JSON program found in its bytes and read apart, the rest of the document handed to
:mod:`json`: each array that a reader takes is replaced by a placeholder, and the placeholder in the parsed document by
what the reader made of it. No NumPy here: the NumPy reader (:mod:`.json_arrays`) and the typed-buffer reader
(:mod:`.program_buffers`) bring their own array readers."""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from perfcompose.loggp.kernels.backend import extension

__all__ = ["ARRAY_KEYS", "load_with_arrays", "read_numbers", "mapped"]

#: arrays read apart, by key: rows of this many numbers (0: a flat list; -1: lists of ids)
ARRAY_KEYS = {b"messages": 3, b"durations": 0, b"send_order": -1}
_KEY = re.compile(rb'"(messages|durations|send_order)"[ \t\r\n]*:[ \t\r\n]*\[')
_PLACEHOLDER = "\x00perfcompose array {}"


def mapped(node: Any, leaf: Callable[[Any], Any]) -> Any:
    """``node`` with its objects and lists copied and every other value ``v`` in it replaced by ``leaf(v)``."""
    if isinstance(node, dict):
        return {k: mapped(v, leaf) for k, v in node.items()}
    if isinstance(node, list):
        return [mapped(v, leaf) for v in node]
    return leaf(node)


def load_with_arrays(data: bytes, read_array: Callable[[bytes, int], tuple[Any, int] | None]) -> Any:
    """The value of the JSON document ``data``, each array under a key of :data:`ARRAY_KEYS` that
    ``read_array(key, offset of its '[')`` takes (it returns the value and the offset past the
    array's ']') replaced by that value. Raises :class:`json.JSONDecodeError` (or
    UnicodeDecodeError) as ``json.loads`` would, but with offsets that may not be the file's."""
    if b"\\" in data or b"\x00" in data:  # escapes could hide a key in a string: leave it all to json
        return json.loads(data)
    pieces: list[bytes] = []
    arrays: dict[str, Any] = {}
    done = 0
    for m in _KEY.finditer(data):
        if m.start() < done:
            continue
        open_at = m.end() - 1
        read = read_array(m.group(1), open_at)
        if read is None:
            continue
        array, end = read
        name = _PLACEHOLDER.format(len(arrays))
        arrays[name] = array
        pieces += [data[done:open_at], json.dumps(name).encode()]
        done = end
    if not arrays:
        return json.loads(data)
    pieces.append(data[done:])
    return mapped(json.loads(b"".join(pieces)), lambda v: arrays.get(v, v) if isinstance(v, str) else v)


def _listed(item: bytes, count: int) -> bytes:
    """The token kinds of a JSON array of ``count`` items whose kinds are ``item``."""
    return b"\x02" + (item + b"\x04") * (count - 1) + item + b"\x03" if count else b"\x02\x03"


#: the token kinds of the compiled tokenizer (1 number, 2 '[', 3 ']', 4 ',') of a JSON array of lists of numbers
_LISTS = re.compile(rb"\x02(?:\x02(?:\x01(?:\x04\x01)*)?\x03(?:\x04\x02(?:\x01(?:\x04\x01)*)?\x03)*)?\x03")


def read_numbers(key: bytes, data: bytes, open_at: int) -> tuple[bytes, list[int] | None, int] | None:
    """The numbers (float64 bytes) of the array under ``key`` that opens at ``data[open_at]``, tokenized in one pass by
    the compiled ``_cjson_tokens``, the length of each of its lists where :data:`ARRAY_KEYS` says it holds lists (else
    None), and the offset past its ']'; None where it holds anything but numbers in the shape the key's arrays have, or
    where the extension is not built (:mod:`json` then reads it)."""
    tokens = extension("_cjson_tokens")
    got = None if tokens is None else tokens.tokenize(data, open_at)
    if got is None:
        return None
    kinds, values, end = got
    width = ARRAY_KEYS[key]
    if width < 0:  # lists of message ids: how many in each list
        if not _LISTS.fullmatch(kinds):
            return None
        lists = kinds[2:-2].split(b"\x03\x04\x02") if len(kinds) > 2 else []
        return values, [(len(one) + 1) // 2 for one in lists], end
    count = len(values) // 8
    if width == 0:
        return (values, None, end) if kinds == _listed(b"\x01", count) else None
    ok = count % width == 0 and kinds == _listed(_listed(b"\x01", width), count // width)
    return (values, None, end) if ok else None
