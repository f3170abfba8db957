"""GOAL text read by the compiled extension ``perfcompose.loggp._cgoal_text``, a few megabytes at
a time: the same columns as the NumPy reader of :mod:`.goal_arrays`, about twenty times faster.

It reads the form perfcompose and Schedgen write (one operation or dependency a line, labels of
one letter and a number); for anything else :func:`read_goal_compiled` returns None and the NumPy
reader, then the line reader, read the text. Without the extension (no C compiler at install, or
``PERFCOMPOSE_KERNELS=numba``) it returns None at once.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from perfcompose.loggp.backend import extension
from perfcompose.loggp.goal_arrays import assemble, line_blocks

__all__ = ["read_goal_compiled", "compiled_reader"]

_BLOCK = 1 << 22  #: bytes of text read at a time

#: the columns of one block: name and type
_COLUMNS = (("kind", np.int8), ("size", np.float64), ("peer", np.int32), ("tag", np.int64), ("cpu", np.int32),
            ("nic", np.int32), ("line", np.int32), ("block", np.int32), ("label", np.int32), ("dep_a", np.int32),
            ("dep_b", np.int32), ("dep_how", np.int8), ("dep_block", np.int32), ("rank", np.int64))
_OPS = ("kind", "size", "peer", "tag", "cpu", "nic", "line", "block", "label")
_DEPS = ("dep_a", "dep_b", "dep_how", "dep_block")


def compiled_reader() -> Any:
    """The extension, or None where it is not built (or Numba is asked for)."""
    return extension("_cgoal_text")


def read_goal_compiled(read: Callable[[int], bytes]) -> dict[str, Any] | None:
    """The columns of a GOAL text read through ``read(n)`` (as a file's read), as
    :func:`.goal_arrays.read_goal_arrays` gives them, or None where the extension is missing or
    the text is not of the form it reads."""
    ext = compiled_reader()
    if ext is None:
        return None
    parts: dict[str, list[np.ndarray]] = {name: [] for name, _ in _COLUMNS}
    room = 0
    buffers: dict[str, np.ndarray] = {}
    depth, num_ranks, blocks, letter = 0, -1, 0, -1
    for data, first_line in line_blocks(read, _BLOCK):
        lines = data.count(b"\n")
        if lines > room:  # the columns are reused from block to block
            room = lines
            buffers = {name: np.empty(room, dtype) for name, dtype in _COLUMNS}
        got = ext.read_block(data, first_line, depth, num_ranks, blocks, letter,
                             *(buffers[name] for name, _ in _COLUMNS))
        if got is None:
            return None
        n_ops, n_deps, n_ranks, depth, num_ranks, blocks, letter = got
        for name in _OPS:
            column = buffers[name][:n_ops]
            if name == "tag" and (not n_ops or (column.max() < 2 ** 31 and column.min() >= -1)):
                column = column.astype(np.int32)
            parts[name].append(column.copy())
        for name in _DEPS:
            parts[name].append(buffers[name][:n_deps].copy())
        parts["rank"].append(buffers["rank"][:n_ranks].copy())
    del buffers
    if depth != 0 or num_ranks < 1:
        return None
    cols = {}
    for name in list(parts):
        cols[name] = np.concatenate(parts.pop(name))
    return assemble(cols, num_ranks)
