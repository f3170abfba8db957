"""GOAL text of the form perfcompose writes, read by the compiled extension ``_cgoal_text`` straight into the schedule's
own columns: no columns of lines, blocks or labels, no second pass over the operations, so that reading takes little
more memory than the schedule it gives; sizes are kept in float32 where every one is exact there (below 2^24 bytes or
time units).

The form: every rank's block once and in rank order, every operation labelled with its place in its block (``l0``,
``l1``, ...), tags below 2^31. The dependencies come out ordered by the operation required (as every reader gives them,
see :class:`.schedule.GoalSchedule`); an operation's line, asked for only by an error message, is read again from the
text when first asked for. For anything else :func:`read_goal_lean` returns None, and the reader of all columns
(:mod:`.goal_compiled`) reads the text.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import IO, Any

import numpy as np

from perfcompose.loggp.goal.goal_buffers import read_lean_columns
from perfcompose.loggp.goal.lazy_sequence import LazySequence
from perfcompose.loggp.kernels.backend import extension

__all__ = ["read_goal_lean", "LazyLines"]


class LazyLines(LazySequence[int]):
    """The line of each operation, read from the text only when first asked for."""

    dtype = np.dtype(np.int32)

    def __init__(self, read: Callable[[], np.ndarray], n: int) -> None:
        super().__init__(read, n)

    def _load(self) -> np.ndarray:
        return np.asarray(self._read(), dtype=np.int32)

    def __iter__(self) -> Iterator[int]:
        return iter(self._all().tolist())

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self._all() if dtype is None else self._all().astype(dtype)


def read_goal_lean(opener: Callable[[], IO[bytes]], size: int) -> dict[str, Any] | None:
    """The columns of a GOAL text of ``size`` bytes (``opener()`` opens it for reading) as :func:`.goal_arrays.assemble`
    gives them, or None where the extension is missing or the text is not of the form read here."""
    ext = extension("_cgoal_text")
    if ext is None:
        return None
    got = read_lean_columns(ext, opener, size, lambda n, code: np.zeros(n, code))
    if got is None:
        return None
    (kind, size_c, peer, tag, cpu, nic, dep_a, dep_b, dep_how, rank, block_ops), state = got
    _, num_ranks, _, n, m, nb, *_, any_cpu, any_nic = state
    per_rank = np.zeros(num_ranks, np.int64)
    per_rank[rank[:nb]] = block_ops[:nb]
    op_ptr = np.zeros(num_ranks + 1, np.int64)
    np.cumsum(per_rank, out=op_ptr[1:])
    del per_rank, rank, block_ops
    ireq_a, ireq_b = np.zeros(m, np.int32), np.zeros(m, np.int32)
    r = ext.split_requires(dep_a, dep_b, dep_how, m, ireq_a, ireq_b)
    req_a, req_b, ireq_a, ireq_b = dep_a[:r], dep_b[:r], ireq_a[:m - r], ireq_b[:m - r]

    def lines() -> np.ndarray:
        from perfcompose.loggp.goal.goal_compiled import read_goal_compiled

        with opener() as again:
            cols = read_goal_compiled(again.read, size)
        assert cols is not None  # the same text, read with all its columns
        return np.asarray(cols["lines"])

    return {"num_ranks": num_ranks, "op_ptr": op_ptr, "kind": kind[:n], "size": size_c[:n], "peer": peer[:n],
            "tag": tag[:n], "cpu": cpu[:n], "nic": nic[:n], "req_a": req_a, "req_b": req_b, "ireq_a": ireq_a,
            "ireq_b": ireq_b, "lines": LazyLines(lines, n)}
