"""GOAL text read by the compiled extension ``perfcompose.loggp.kernels._cgoal_text``, a few megabytes at a time,
straight into the schedule's columns (assembled by :mod:`.goal_arrays`): the columns of the line reader of
:mod:`.schedule`, the reference.

It reads the form perfcompose and Schedgen write (one operation or dependency a line, labels of one letter and a
number); for anything else :func:`read_goal_compiled` returns None and the line reader reads the text. Without the
extension (no C compiler at install) it returns None at once.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from perfcompose.loggp.goal.goal_arrays import assemble
from perfcompose.loggp.goal.text_blocks import line_blocks
from perfcompose.loggp.kernels.backend import extension

__all__ = ["read_goal_compiled", "compiled_reader"]

_BLOCK = 1 << 22  #: bytes of text read at a time

#: the columns read, with their types
_COLUMNS = (("kind", np.int8), ("size", np.float64), ("peer", np.int32), ("tag", np.int64), ("cpu", np.int32),
            ("nic", np.int32), ("line", np.int32), ("block", np.int32), ("label", np.int32), ("dep_a", np.int32),
            ("dep_b", np.int32), ("dep_how", np.int8), ("dep_block", np.int32), ("rank", np.int64))
#: which room each column takes: an operation's, a dependency's or a rank block's
_ROOM = {**dict.fromkeys(("kind", "size", "peer", "tag", "cpu", "nic", "line", "block", "label"), "op"),
         **dict.fromkeys(("dep_a", "dep_b", "dep_how", "dep_block"), "dep"), "rank": "rank"}


def compiled_reader() -> Any:
    """The extension, or None where it is not built."""
    return extension("_cgoal_text")


def read_goal_compiled(read: Callable[[int], bytes], size: int) -> dict[str, Any] | None:
    """The columns of a GOAL text of ``size`` bytes read through ``read(n)`` (as a file's read),
    as :func:`.goal_arrays.assemble` gives them, or None where the extension is missing or
    the text is not of the form it reads."""
    ext = compiled_reader()
    if ext is None:
        return None
    # room for as many operations, dependencies and ranks as so many bytes can hold (a line of
    # each takes at least 7, 15 and 9 bytes); NumPy takes the memory from the system as it is
    # written, so what stays unused costs address space only
    room = {"op": size // 7 + 2, "dep": size // 15 + 2, "rank": size // 9 + 2}
    cols = {name: np.empty(room[_ROOM[name]], dtype) for name, dtype in _COLUMNS}
    used = {"op": 0, "dep": 0, "rank": 0}
    depth, num_ranks, blocks, letter = 0, -1, 0, -1
    for data, first_line in line_blocks(read, _BLOCK):
        got = ext.read_block(data, first_line, depth, num_ranks, blocks, letter,
                             *(cols[name][used[_ROOM[name]]:] for name, _ in _COLUMNS))
        if got is None:
            return None
        n_ops, n_deps, n_ranks, depth, num_ranks, blocks, letter = got
        used["op"] += n_ops
        used["dep"] += n_deps
        used["rank"] += n_ranks
    if depth != 0 or num_ranks < 1:
        return None
    for name in cols:
        cols[name] = cols[name][:used[_ROOM[name]]]
    tag = cols["tag"]
    if not tag.size or (tag.max() < 2 ** 31 and tag.min() >= -1):
        cols["tag"] = tag.astype(np.int32)
    del tag
    return assemble(cols, num_ranks)
