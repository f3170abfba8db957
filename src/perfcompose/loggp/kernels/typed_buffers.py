"""Typed buffers without NumPy, for the compiled readers and kernels (which take any C-contiguous
buffer of the right item type): memory mapped anonymously, so that room reserved but never
written costs address space only, as NumPy's ``empty`` does.

>>> column = empty(4, "d")
>>> column[1] = 2.5
>>> column.format, len(column), column[1]
('d', 4, 2.5)
"""
from __future__ import annotations

import mmap
import struct
from typing import Any

__all__ = ["empty", "as_items"]


def as_items(buffer: Any, code: str) -> Any:
    """The bytes of ``buffer`` seen as items of the struct type ``code`` (no copy)."""
    view: Any = memoryview(buffer)
    return view.cast("B").cast(code)


def empty(n: int, code: str) -> Any:
    """Room for ``n`` items of the struct type ``code`` ('b' int8, 'i' int32, 'q' int64, 'd' float64),
    zero until written."""
    return as_items(mmap.mmap(-1, max(n, 1) * struct.calcsize(code)), code)[:n]

