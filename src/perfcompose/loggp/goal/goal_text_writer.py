"""GOAL text of a schedule made by NumPy a block of lines at a time, without a Python object per line: each line is a
row of bytes in a matrix, written four bytes (one 32-bit column of every line) at a time, with zero bytes where a line
is shorter; the rows, zero bytes left out, are the text. A number is written four digits at a time, looked up in a table
of the numbers below 10,000.

Every line, whatever it says, is made of the same slots in the same order: words (each slot's words in a table, a code
per line choosing one, or none), numbers (in decimal, or none) and labels (where the schedule's own are written): ``l3:
send 8b to 1 tag 0`` fills the slots ``l``, 3, ``: send ``, 8, ``b to ``, 1, `` tag ``, 0 and a newline; ``l3 requires
l1``, ``rank 2 {`` and ``}`` fill a few of them. So a block of lines of any mix of kinds takes the same few column
operations.

The lines, in order: per rank a ``rank R {`` line, its operations, its dependencies (requires before irequires, each in
the schedule's order) and ``}`` with a blank line; the text is that of the grammar described in :mod:`.schedule`.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

__all__ = ["goal_blocks"]

_ROWS = 1 << 16  #: lines made at a time
_HEAD, _OP, _DEP, _FOOT = range(4)


def _quads(words: Sequence[bytes], right: bool = False) -> np.ndarray:
    """Words as rows of 32-bit columns (four bytes each, in the machine's order), zero bytes
    after the shorter ones (before them with ``right``)."""
    width = max(4, -(-max(len(w) for w in words) // 4) * 4)
    out = np.zeros((len(words), width), np.uint8)
    for i, w in enumerate(words):
        at = width - len(w) if right else 0
        out[i, at:at + len(w)] = np.frombuffer(w, np.uint8)
    return out.view(np.uint32)


#: the numbers below 10^4 right-aligned without leading zeros, then with them: a number's lowest
#: group of four digits (with them where a higher group follows); in _UPPER, a higher group, 0 is
#: nothing (a group that is 0 without leading zeros has only zeros above it)
_GROUPS = _quads([str(i).encode() for i in range(10 ** 4)] + [f"{i:04d}".encode() for i in range(10 ** 4)],
                 right=True)[:, 0]
_UPPER = _GROUPS.copy()
_UPPER[0] = 0
_MINUS = _quads([b"-"], right=True)[0, 0]
# the word slots, in the order of a line; code 0 is no word
_W0 = _quads([b"", b"l", b"rank ", b"}\n\n"])
_W1 = _quads([b"", b": send ", b": recv ", b": calc ", b" requires ", b" irequires ", b" {\n", b" requires l",
              b" irequires l"])
_W2 = _quads([b"", b"b to ", b"b from ", b"\n"])
_W3, _W4, _W5, _W6 = (_quads([b"", w]) for w in (b" tag ", b" cpu ", b" nic ", b"\n"))
_LEAD = np.array([2, 1, 1, 3])  #: _W0's code of a head, an operation, a dependency (``l``), a foot


class _Row:
    """The rows of a block of lines being written, a slot at a time from the left, in 32-bit columns."""

    def __init__(self, n: int, width: int) -> None:
        self.rows = np.zeros((n, width), np.uint32)
        self.col = 0

    def _room(self, w: int) -> np.ndarray:
        """The next ``w`` columns."""
        if self.col + w > self.rows.shape[1]:
            grown = np.zeros((self.rows.shape[0], self.col + w + 2), np.uint32)
            grown[:, :self.col] = self.rows[:, :self.col]
            self.rows = grown
        self.col += w
        return self.rows[:, self.col - w:self.col]

    def word(self, table: np.ndarray, code: np.ndarray) -> None:
        """A word slot: each line's word by its code."""
        used = np.flatnonzero(np.bincount(code, minlength=table.shape[0]))
        w = int((table[used] != 0).any(0).nonzero()[0].max(initial=-1)) + 1
        cols = self._room(w)
        for j in range(w):
            cols[:, j] = table[int(used[0]), j] if used.shape[0] == 1 else table[:, j][code]

    def number(self, values: np.ndarray, present: np.ndarray | None = None) -> None:
        """A number slot: each line's integer in decimal (``present``: on which lines)."""
        v = np.asarray(values, np.int64)
        neg = v < 0
        if present is not None:
            neg &= present
        signed = bool(neg.any())
        q = (np.where(neg, -(v + 1), v).astype(np.uint64) + neg) if signed else v.astype(np.uint64)  # |v|
        if present is not None:
            q *= present
        top = int(q.max()) if q.size else 0
        if top < 2 ** 32:  # (division of 32-bit integers is several times faster)
            q = q.astype(np.uint32)
        groups = -(-len(str(top)) // 4)
        cols = self._room(groups + signed)
        if signed:
            cols[:, 0] = _MINUS * neg
        ten4 = q.dtype.type(10 ** 4)
        for j in range(groups + signed - 1, signed - 1, -1):
            if j == signed:  # the highest group: what is left
                low, q = q, q[:0]
            else:
                q, low = np.divmod(q, ten4)
                low += np.minimum(q, 1) * ten4  # with its leading zeros where a higher group follows
            cols[:, j] = (_GROUPS if j == groups + signed - 1 else _UPPER)[low]
        if present is not None:
            cols[:, groups + signed - 1] *= present  # no 0 where there is no number

    def label(self, names: np.ndarray, present: np.ndarray) -> None:
        """A label slot: each line's label (32-bit columns, zero bytes after) where present."""
        cols = self._room(names.shape[1])
        cols[:] = names * present[:, None]

    def text(self) -> bytes:
        """The bytes of the rows, zero bytes left out."""
        rows = self.rows[:, :self.col] if self.col < self.rows.shape[1] else self.rows
        return rows.tobytes().translate(None, b"\0")


class _Lines:
    """What the lines are made of: every column of the schedule that is written."""

    def __init__(self, op_ptr: np.ndarray, ops: tuple[np.ndarray, ...], deps: tuple[np.ndarray, ...],
                 dep_ptr: np.ndarray, labels: np.ndarray | None) -> None:
        self.op_ptr, self.dep_ptr = op_ptr, dep_ptr
        # (a line that is no operation or dependency reads those of index 0, which must exist)
        self.kind, self.size, self.peer, self.tag, self.cpu, self.nic = (c if c.shape[0] else np.zeros(1, c.dtype)
                                                                          for c in ops)
        self.dep_a, self.dep_b, self.dep_how = (c if c.shape[0] else np.zeros(1, c.dtype) for c in deps)
        self.labels = labels if labels is None or labels.shape[0] else np.zeros((1, 1), np.uint32)
        P = op_ptr.shape[0] - 1
        self.base = 2 * np.arange(P + 1, dtype=np.int64) + op_ptr + dep_ptr  # each rank's first line

    @property
    def count(self) -> int:
        return int(self.base[-1])

    def _names(self, ops: np.ndarray, present: np.ndarray) -> np.ndarray:
        assert self.labels is not None
        return self.labels[np.where(present, ops, 0)]

    def block(self, lo: int, hi: int) -> bytes:
        """The text of lines ``lo`` to ``hi`` (exclusive)."""
        line = np.arange(lo, hi, dtype=np.int64)
        rank = np.searchsorted(self.base, line, side="right") - 1
        at = line - self.base[rank]
        n_ops = self.op_ptr[rank + 1] - self.op_ptr[rank]
        n_deps = self.dep_ptr[rank + 1] - self.dep_ptr[rank]
        what = np.where(at == 0, _HEAD, np.where(at <= n_ops, _OP, np.where(at <= n_ops + n_deps, _DEP, _FOOT)))
        is_op, is_dep = what == _OP, what == _DEP
        op = np.where(is_op, self.op_ptr[rank] + at - 1, 0)  # the operation of each line (0: none)
        dep = np.where(is_dep, self.dep_ptr[rank] + at - 1 - n_ops, 0)  # the dependency of each line
        a, b = np.where(is_op, op, self.dep_a[dep]), self.dep_b[dep]
        named = is_op | is_dep
        kind = self.kind[op].astype(np.intp)
        how = self.dep_how[dep].astype(np.intp)
        talks = is_op & (kind != 2)
        cpu, nic = self.cpu[op], self.nic[op]
        with_cpu, with_nic = is_op & (cpu != 0), talks & (nic != 0)
        out = _Row(hi - lo, 18)  # an operation's line takes about 17 columns
        own = self.labels is not None
        head = what == _HEAD
        out.word(_W0, np.where(named & own, 0, _LEAD[what]))
        if own:
            out.label(self._names(a, named), named)
        out.number(np.where(head, rank, a - self.op_ptr[rank]), head if own else named | head)
        # ': send ' ... by the kind; ' requires ' (' requires l' before a number), ' irequires ' ...; ' {\n'
        out.word(_W1, np.where(is_op, 1 + kind, np.where(is_dep, 4 + how + 3 * (not own), 6 * head)))
        rank_b = np.searchsorted(self.op_ptr, b, side="right") - 1
        if own:
            out.label(self._names(b, is_dep), is_dep)
            out.number(self.size[op], is_op)
        else:
            out.number(np.where(is_dep, b - self.op_ptr[rank_b], self.size[op]), named)
        out.word(_W2, np.where(is_dep, 3, np.where(talks, 1 + kind, 0)))
        out.number(self.peer[op], talks)
        out.word(_W3, talks.astype(np.intp))
        out.number(self.tag[op], talks)
        if with_cpu.any():
            out.word(_W4, with_cpu.astype(np.intp))
            out.number(cpu, with_cpu)
        if with_nic.any():
            out.word(_W5, with_nic.astype(np.intp))
            out.number(nic, with_nic)
        out.word(_W6, is_op.astype(np.intp))
        return out.text()


def goal_blocks(num_ranks: int, op_ptr: np.ndarray, kind: np.ndarray, size: np.ndarray, peer: np.ndarray,
                tag: np.ndarray, cpu: np.ndarray, nic: np.ndarray, deps: tuple[np.ndarray, ...],
                labels: Sequence[str] | None) -> Iterator[bytes]:
    """The GOAL text of a schedule's columns (``size`` integers, ``deps`` its ``req_a, req_b, ireq_a, ireq_b``;
    ``labels`` where each operation has one to write), a block of lines at a time."""
    req_a, req_b, ireq_a, ireq_b = deps
    rank_of = np.repeat(np.arange(num_ranks, dtype=np.int64), np.diff(op_ptr))
    dep_a, dep_b = np.concatenate([req_a, ireq_a]), np.concatenate([req_b, ireq_b])
    dep_how = np.concatenate([np.zeros(req_a.shape[0], np.int8), np.ones(ireq_a.shape[0], np.int8)])
    dep_rank = rank_of[dep_a]
    del rank_of
    order = np.lexsort((dep_how, dep_rank))  # by the rank of the dependent operation, requires first
    dep_ptr = np.searchsorted(dep_rank[order], np.arange(num_ranks + 1)).astype(np.int64)
    names = None
    if labels is not None:  # as 32-bit columns, zero bytes after each
        raw = np.array([lb.encode() for lb in labels], dtype=bytes)
        quads = max(1, -(-raw.dtype.itemsize // 4))
        names = raw.astype(f"S{4 * quads}").view(np.uint32).reshape(-1, quads)
    lines = _Lines(np.asarray(op_ptr, np.int64), (kind, size, peer, tag, cpu, nic),
                   (dep_a[order], dep_b[order], dep_how[order]), dep_ptr, names)
    yield f"num_ranks {num_ranks}\n\n".encode()
    for lo in range(0, lines.count, _ROWS):
        yield lines.block(lo, min(lo + _ROWS, lines.count))
