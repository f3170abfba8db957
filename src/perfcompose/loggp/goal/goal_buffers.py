"""A GOAL schedule read into plain typed buffers, without NumPy: the form perfcompose and Schedgen write (every rank's
block once and in rank order, each operation labelled with its place in its block), read by the compiled
``_cgoal_text.read_lean`` straight into the schedule's columns (the NumPy reader of :mod:`.schedule` takes them as
arrays). For anything else, or where the extension is not built, :func:`lean_buffers` returns None and the readers of
:mod:`.schedule`, whose line reader names the line of any error, read the schedule."""
from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import IO, Any

from perfcompose.loggp.kernels.backend import empty, extension

__all__ = ["GoalBuffers", "COLUMNS", "read_goal_buffers", "lean_buffers", "reused_line_blocks", "room_for"]

_BLOCK = 1 << 20  #: bytes of text read at a time, into one buffer
_START = (0, -1, -1, 0, 0, 0, 0, 0, -1, 0, 0)  #: the reader's state before the first line
#: the columns of :class:`GoalBuffers` that :class:`.schedule.GoalSchedule` holds too
COLUMNS = ("op_ptr", "kind", "size", "peer", "tag", "cpu", "nic", "req_a", "req_b", "ireq_a", "ireq_b")


@dataclass(frozen=True, eq=False)
class GoalBuffers:
    """A schedule's columns as :class:`.schedule.GoalSchedule` holds them (operations in rank order, ``op_ptr`` their
    offsets by rank, dependencies as operation indices) in typed buffers (kind int8, size float32 where every size is
    exact there else float64, peer/tag/cpu/nic/req int32, op_ptr int64), with how many CPUs and NICs its ranks use, how
    many operations and how many sends it has."""

    num_ranks: int
    op_ptr: Any
    kind: Any
    size: Any
    peer: Any
    tag: Any
    cpu: Any
    nic: Any
    req_a: Any
    req_b: Any
    ireq_a: Any
    ireq_b: Any
    n_cpu: int
    n_nic: int
    num_ops: int
    sends: int


def read_goal_buffers(path: Path | str) -> GoalBuffers | None:
    """The schedule in ``path`` in typed buffers, or None where it is not of the form read here
    (or the extension is not built)."""
    return lean_buffers(lambda: open(path, "rb"), Path(path).stat().st_size)


def _offsets(num_ranks: int, ranks: Any, counts: Any) -> Any:
    """Where each rank's operations start, given how many each rank in ``ranks`` has (the others none)."""
    per_rank = [0] * num_ranks
    for r, k in zip(ranks, counts):
        per_rank[r] = k
    return array("q", accumulate(per_rank, initial=0))


def lean_buffers(opener: Callable[[], IO[bytes]], size: int, alloc: Callable[[int, str], Any] = empty,
                 offsets: Callable[..., Any] = _offsets) -> GoalBuffers | None:
    """The schedule in a GOAL text of ``size`` bytes (``opener()`` opens it for reading) in typed buffers, or None;
    ``alloc(n, code)`` makes each column as :func:`.backend.empty` does, ``offsets`` computes ``op_ptr`` as
    :func:`_offsets` does."""
    ext = extension("_cgoal_text")
    if ext is None or not hasattr(ext, "read_lean"):
        return None
    got = _read_lean_columns(ext, opener, size, alloc)
    if got is None:
        return None
    (kind, size_c, peer, tag, cpu, nic, dep_a, dep_b, dep_how, rank, block_ops), state = got
    _, num_ranks, _, n, m, nb, *_, any_cpu, any_nic = state
    op_ptr = offsets(num_ranks, rank[:nb], block_ops[:nb])
    ireq_a, ireq_b = alloc(m, "i"), alloc(m, "i")  # (room never written costs address space only)
    r = ext.split_requires(dep_a, dep_b, dep_how, m, ireq_a, ireq_b)
    n_cpu = 1 + max(cpu[:n]) if any_cpu else 1
    n_nic = 1 + max(nic[:n]) if any_nic else 1
    return GoalBuffers(num_ranks, op_ptr, kind[:n], size_c[:n], peer[:n], tag[:n], cpu[:n], nic[:n], dep_a[:r],
                       dep_b[:r], ireq_a[:m - r], ireq_b[:m - r], n_cpu, n_nic, n, bytes(kind[:n]).count(0))


def _read_lean_columns(ext: Any, opener: Callable[[], IO[bytes]], size: int, alloc: Callable[[int, str], Any]
                       ) -> tuple[tuple[Any, ...], tuple[Any, ...]] | None:
    """The columns ``_cgoal_text.read_lean`` fills from a GOAL text of ``size`` bytes (kind, size, peer, tag, cpu, nic,
    dep_a, dep_b, dep_how, rank, block_ops) and its final state; None where the text is not of its form or not whole.
    Sizes are float32 where every one is exact there (below 2^24), else the text is read again in float64."""
    for code in "fd":
        columns = _room(size, code, alloc)
        with opener() as fh:
            state: Any = _START
            for data in reused_line_blocks(fh, _BLOCK):
                state = ext.read_lean(data, state, *columns)
                if state is False or state == 1:
                    break
        if state is False:
            return None
        if state != 1:  # (1: a size float32 does not hold exactly: read again in float64)
            closed, num_ranks = state[0] == 0, state[1]
            return (columns, state) if closed and num_ranks >= 1 else None
    raise AssertionError("float64 holds every size read")


def room_for(size: int) -> tuple[int, int, int]:
    """Room for as many operations, dependencies and rank blocks as ``size`` bytes of GOAL text can hold (a line of each
    takes at least 7, 15 and 9 bytes); room never written costs address space only."""
    return size // 7 + 2, size // 15 + 2, size // 9 + 2


def _room(size: int, code: str, alloc: Callable[[int, str], Any]) -> tuple[Any, ...]:
    ops, deps, blocks = room_for(size)
    return (*(alloc(ops, c) for c in ("b", code, "i", "i", "i", "i")), *(alloc(deps, c) for c in "iib"),
            alloc(blocks, "q"), alloc(blocks, "q"))


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
