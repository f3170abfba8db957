"""GOAL text read by the compiled extension ``perfcompose.loggp.kernels._cgoal_text``, a few megabytes at a time,
straight into the schedule's columns: the columns of the line reader of :mod:`.schedule`, the reference.

It reads the form perfcompose and Schedgen write (one operation or dependency a line, labels of one letter and a
number); the columns read block by block are then assembled: operations in rank order, and dependencies resolved from
the numbers of their labels (``l17``) within each rank block. For anything else (a rank, peer or label out of place)
:func:`read_goal_compiled` returns None and the line reader reads the text and names the line of the error. Without the
extension (no C compiler at install) it returns None at once.
"""
from __future__ import annotations

from typing import IO, Any

import numpy as np

from perfcompose.loggp.goal.goal_buffers import reused_line_blocks, room_for
from perfcompose.loggp.goal.schedule import by_required
from perfcompose.loggp.kernels.backend import extension

__all__ = ["read_goal_compiled"]

_BLOCK = 1 << 22  #: bytes of text read at a time

#: the columns read, with their types
_COLUMNS = (("kind", np.int8), ("size", np.float64), ("peer", np.int32), ("tag", np.int64), ("cpu", np.int32),
            ("nic", np.int32), ("line", np.int32), ("block", np.int32), ("label", np.int32), ("dep_a", np.int32),
            ("dep_b", np.int32), ("dep_how", np.int8), ("dep_block", np.int32), ("rank", np.int64))
#: which room each column takes: an operation's, a dependency's or a rank block's
_ROOM = {**dict.fromkeys(("kind", "size", "peer", "tag", "cpu", "nic", "line", "block", "label"), "op"),
         **dict.fromkeys(("dep_a", "dep_b", "dep_how", "dep_block"), "dep"), "rank": "rank"}


def read_goal_compiled(fh: IO[bytes], size: int) -> dict[str, Any] | None:
    """The columns of a GOAL text of ``size`` bytes read from ``fh``, as :func:`assemble` gives them, or None where the
    extension is missing or the text is not of the form it reads."""
    ext = extension("_cgoal_text")
    if ext is None:
        return None
    room = dict(zip(("op", "dep", "rank"), room_for(size)))  # (NumPy takes the memory from the system as written)
    cols = {name: np.empty(room[_ROOM[name]], dtype) for name, dtype in _COLUMNS}
    used = {"op": 0, "dep": 0, "rank": 0}
    depth, num_ranks, blocks, letter, line = 0, -1, 0, -1, 1
    for data in reused_line_blocks(fh, _BLOCK):
        got = ext.read_block(data, line, depth, num_ranks, blocks, letter,
                             *(cols[name][used[_ROOM[name]]:] for name, _ in _COLUMNS))
        if got is None:
            return None
        n_ops, n_deps, n_ranks, depth, num_ranks, blocks, letter = got
        used["op"] += n_ops
        used["dep"] += n_deps
        used["rank"] += n_ranks
        line += bytes(data).count(b"\n")
    if depth != 0 or num_ranks < 1:
        return None
    for name in cols:
        cols[name] = cols[name][:used[_ROOM[name]]]
    tag = cols["tag"]
    if not tag.size or (tag.max() < 2 ** 31 and tag.min() >= -1):
        cols["tag"] = tag.astype(np.int32)
    del tag
    return assemble(cols, num_ranks)


def _resolve(lab: np.ndarray, block: np.ndarray, num_ref: np.ndarray, dep_block: np.ndarray) -> np.ndarray | None:
    """The operation each reference names: the one in the same block whose label has that
    number (None where one is undefined or a label defined twice)."""
    named = lab >= 0
    span = max(int(lab.max()) if lab.size else 0, int(num_ref.max()) if num_ref.size else 0) + 1
    def_key = block[named] * span + lab[named]
    order = np.argsort(def_key, kind="stable")
    sorted_keys = def_key[order]
    if sorted_keys.size > 1 and (sorted_keys[1:] == sorted_keys[:-1]).any():
        return None
    if not num_ref.size:
        return np.zeros(0, np.int64)
    if not sorted_keys.size:
        return None
    ref_key = dep_block.astype(np.int64) * span + num_ref
    pos = np.minimum(np.searchsorted(sorted_keys, ref_key), sorted_keys.size - 1)
    if (sorted_keys[pos] != ref_key).any():
        return None
    return np.flatnonzero(named)[order][pos]


def _labelled_in_order(lab: np.ndarray, block: np.ndarray, block_start: np.ndarray) -> bool:
    """Whether every operation's label number is its place in its block (``l0``, ``l1``, ...),
    checked a million operations at a time (the temporaries stay small)."""
    step = 1 << 20
    for lo in range(0, lab.shape[0], step):
        hi = min(lo + step, lab.shape[0])
        place = np.arange(lo, hi, dtype=block_start.dtype) - block_start[block[lo:hi]]
        if not (lab[lo:hi] == place).all():
            return False
    return True


def assemble(c: dict[str, np.ndarray], num_ranks: int) -> dict[str, Any] | None:
    """The schedule's columns from those read block by block: operations in rank order and dependencies as operation
    indices; None where a rank, peer or label is out of place (the line reader names it)."""
    ranks = c["rank"].astype(np.int64)
    nb = ranks.shape[0]
    if nb and (ranks.max() >= num_ranks or np.bincount(ranks, minlength=num_ranks).max() > 1):
        return None
    kind, block = c["kind"], c["block"]
    n = kind.shape[0]
    comm = kind != 2
    peer, tag = c["peer"], c["tag"]
    if n and ((peer[comm] >= num_ranks).any() or (peer[kind == 0] < 0).any() or (tag[kind == 0] < 0).any()):
        return None
    if n and (block < 0).any():
        return None
    # an operation's key: its block and its label's number; each key defined once
    lab = c.pop("label")
    dep_a, dep_b, dep_block = c.pop("dep_a"), c.pop("dep_b"), c.pop("dep_block")
    nb_ops = np.bincount(block, minlength=nb) if nb else np.zeros(0, np.int64)
    block_start = np.zeros(nb + 1, np.int64)
    np.cumsum(nb_ops, out=block_start[1:])
    index = np.int32 if n < 2 ** 31 - 1 else np.int64  # operation numbers (and their temporaries)
    if n and _labelled_in_order(lab, block, block_start.astype(index)):
        # every operation labelled with its place in its block (l0, l1, ...): no search
        room = nb_ops.astype(index)[dep_block]
        if dep_a.size and ((dep_a >= room).any() or (dep_b >= room).any()):
            return None
        del room
        first = block_start.astype(index)[dep_block]
        a_op, b_op = first + dep_a.astype(index, copy=False), first + dep_b.astype(index, copy=False)
        del first
    else:
        ref_op = _resolve(lab, block, np.concatenate((dep_a, dep_b)), np.concatenate((dep_block, dep_block)))
        if ref_op is None:
            return None
        a_op, b_op = ref_op[:dep_a.shape[0]], ref_op[dep_a.shape[0]:]
    del lab, dep_a, dep_b, dep_block
    # rank order: the blocks sorted by their rank
    by_rank = np.zeros(num_ranks, np.int64)
    by_rank[ranks] = nb_ops
    op_ptr = np.zeros(num_ranks + 1, np.int64)
    np.cumsum(by_rank, out=op_ptr[1:])
    if (np.diff(ranks) >= 0).all():  # blocks in rank order: an operation's place is its index
        perm = None
        a_op, b_op = a_op.astype(index, copy=False), b_op.astype(index, copy=False)
    else:
        first_of_block = op_ptr[:-1][ranks]
        where = (first_of_block[block] + (np.arange(n) - block_start[block])).astype(index)
        perm = np.empty(n, np.int64)
        perm[where] = np.arange(n)
        a_op, b_op = where[a_op], where[b_op]
        del where

    def placed(a: np.ndarray) -> np.ndarray:
        return a if perm is None else a[perm]

    how = c["dep_how"]
    if how.any():
        req_a, req_b, ireq_a, ireq_b = a_op[how == 0], b_op[how == 0], a_op[how == 1], b_op[how == 1]
    else:  # requires only (as perfcompose writes): the pairs as they are
        req_a, req_b, ireq_a, ireq_b = a_op, b_op, a_op[:0], b_op[:0]
    (req_a, req_b), (ireq_a, ireq_b) = by_required(req_a, req_b), by_required(ireq_a, ireq_b)
    return {"num_ranks": num_ranks, "op_ptr": op_ptr, "kind": placed(kind), "size": placed(c["size"]),
            "peer": placed(peer).astype(np.int32, copy=False), "tag": placed(tag),
            "cpu": placed(c["cpu"]).astype(np.int32, copy=False), "nic": placed(c["nic"]).astype(np.int32, copy=False),
            "req_a": req_a, "req_b": req_b, "ireq_a": ireq_a, "ireq_b": ireq_b, "lines": placed(c["line"])}
