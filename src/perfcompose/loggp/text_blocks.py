"""Text read a few megabytes at a time, in blocks of whole lines, for the readers that take a
block at once (the GOAL readers). No NumPy here, so that a reader without it can use it too."""
from __future__ import annotations

from collections.abc import Callable, Iterator

__all__ = ["line_blocks"]


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
