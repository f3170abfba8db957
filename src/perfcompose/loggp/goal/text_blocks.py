"""Text read a few megabytes at a time, in blocks of whole lines, for the readers that take a
block at once (the GOAL readers). No NumPy here, so that a reader without it can use it too."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import IO

__all__ = ["line_blocks", "reused_line_blocks"]


def line_blocks(read: Callable[[int], bytes], size: int = 1 << 18) -> Iterator[tuple[bytes, int]]:
    """Blocks of whole lines (about ``size`` bytes each) and the number of the first line of each."""
    rest = b""
    line = 1
    while True:
        more = read(size)
        data = rest + more
        if not more:
            if data:
                yield data if data.endswith(b"\n") else data + b"\n", line
            return
        cut = data.rfind(b"\n") + 1
        if cut == 0:
            rest = data
            continue
        block, rest = data[:cut], data[cut:]
        yield block, line
        line += block.count(b"\n")


def reused_line_blocks(fh: IO[bytes], size: int = 1 << 22) -> Iterator[bytes | memoryview]:
    """Whole lines of the file, about ``size`` bytes at a time, read into one buffer again and again (no new memory per
    block, no copy of it): a line cut at a block's end comes alone, put together with its start. Each block is valid
    until the next is asked for."""
    buf = bytearray(size)
    view = memoryview(buf)
    carry = b""  # the start of a line cut at the end of the block before
    while True:
        got = fh.readinto(view)  # type: ignore[attr-defined]
        if not got:
            if carry:
                yield carry + b"\n"
            return
        cut = buf.rfind(b"\n", 0, got) + 1
        if cut == 0:
            carry += bytes(view[:got])
            continue
        start = 0
        if carry:
            start = buf.find(b"\n", 0, cut) + 1
            yield carry + bytes(view[:start])
        if start < cut:
            yield view[start:cut]
        carry = bytes(view[cut:got])
