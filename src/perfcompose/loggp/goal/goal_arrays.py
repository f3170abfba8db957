"""The columns of a GOAL schedule assembled from those the compiled reader (:mod:`.goal_compiled`) gives block by block:
operations in rank order, and dependencies resolved from the numbers of their labels (``l17``, as perfcompose and
Schedgen write them) within each rank block. Where a rank, peer or label is out of place :func:`assemble` gives None,
and :mod:`.schedule`'s line reader reads the text and names the line of the error; labels are read back only where asked
for (error messages, writing the schedule).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from perfcompose.loggp.goal.lazy_sequence import LazySequence

__all__ = ["LazyLabels", "assemble"]


class LazyLabels(LazySequence[str]):
    """The labels of a schedule's operations, read from its text only when first asked for
    (``read`` gives them, or None where there are none: empty labels)."""

    def __init__(self, read: Callable[[], tuple[str, ...] | None], n: int) -> None:
        super().__init__(read, n)

    def _load(self) -> tuple[str, ...]:
        return self._read() or ("",) * self._n


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


def _by_required(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dependency pairs ordered by the operation required (``b``), those that require the same
    one in their order: the schedule's order of dependencies."""
    if b.size < 2 or (b[1:] >= b[:-1]).all():
        return a, b
    order = np.argsort(b, kind="stable")
    return a[order], b[order]


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
    (req_a, req_b), (ireq_a, ireq_b) = _by_required(req_a, req_b), _by_required(ireq_a, ireq_b)
    tag_t = np.int32 if tag.size == 0 or (tag.max() < 2 ** 31 and tag.min() >= -1) else np.int64
    return {"num_ranks": num_ranks, "op_ptr": op_ptr, "kind": placed(kind), "size": placed(c["size"]),
            "peer": placed(peer).astype(np.int32, copy=False), "tag": placed(tag).astype(tag_t, copy=False),
            "cpu": placed(c["cpu"]).astype(np.int32, copy=False), "nic": placed(c["nic"]).astype(np.int32, copy=False),
            "req_a": req_a, "req_b": req_b, "ireq_a": ireq_a, "ireq_b": ireq_b, "lines": placed(c["line"])}
