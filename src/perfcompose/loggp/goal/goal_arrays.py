"""GOAL text read with NumPy over its bytes, a few megabytes at a time: no Python object per line.

Each block of lines is split into words; every word is read as eight (or sixteen) bytes at once,
which tells keywords, numbers (decoded eight digits at a time) and labels apart. A word's type
together with the one before it (a number after ``tag`` is a tag) is checked against the pairs
the grammar allows, which checks every line's form without a loop over lines. Labels of one
letter and a number (``l17``, as perfcompose and Schedgen write them) are resolved by number
within each rank block.

:func:`read_goal_arrays` returns None for what it does not read this way (comments, other labels,
anything unusual or wrong), and :mod:`.schedule`'s line reader then reads the text and names the line
of any error; labels are read back only where asked for (error messages, writing the schedule).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from perfcompose.loggp.goal.lazy_sequence import LazySequence
from perfcompose.loggp.goal.text_blocks import line_blocks

__all__ = ["read_goal_arrays", "LazyLabels", "line_blocks", "assemble"]

_BLOCK = 1 << 18  #: bytes of text handled at a time (its tokens take about 30 times as much)

# byte classes
_B_WS, _B_NL, _B_WORD, _B_COLON, _B_OPEN, _B_CLOSE, _B_OTHER = range(7)
_BYTE = np.full(256, _B_OTHER, np.uint8)
for _c in b" \t\r":
    _BYTE[_c] = _B_WS
_BYTE[ord("\n")] = _B_NL
for _c in b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-":
    _BYTE[_c] = _B_WORD
_BYTE[ord(":")], _BYTE[ord("{")], _BYTE[ord("}")] = _B_COLON, _B_OPEN, _B_CLOSE
_BYTE_TABLE = _BYTE.tobytes()

# token types: keywords, then what a word is, then punctuation; numbers and labels get subtypes
(EOL, SEND, RECV, CALC, TO, FROM, TAG, CPU, NIC, REQ, IREQ, RANK, NUMR, COLON, OPEN, CLOSE,
 NUM, NUMB, LABEL, BAD) = range(20)
_KEYWORDS = {b"send": SEND, b"recv": RECV, b"calc": CALC, b"to": TO, b"from": FROM, b"tag": TAG, b"cpu": CPU,
             b"nic": NIC, b"requires": REQ, b"rank": RANK}
_LONG_KEYWORDS = {b"irequires": IREQ, b"num_ranks": NUMR}  # nine bytes: the ninth checked apart
_MASK = np.array([(1 << (8 * k)) - 1 if k < 8 else (1 << 64) - 1 for k in range(9)], dtype=np.uint64)

# subtypes: a number or label typed by the token before it
(N_SIZE, N_PEER, N_TAG, N_CPU, N_NIC, N_CALC, N_RANK, N_NUMR, L_FIRST, L_REF) = range(20, 30)
_NUM_AFTER = {TO: N_PEER, FROM: N_PEER, TAG: N_TAG, CPU: N_CPU, NIC: N_NIC, CALC: N_CALC, RANK: N_RANK,
              NUMR: N_NUMR}
_PAIRS = [(EOL, EOL), (EOL, L_FIRST), (EOL, SEND), (EOL, RECV), (EOL, CALC), (EOL, RANK), (EOL, NUMR),
          (EOL, CLOSE), (CLOSE, EOL), (RANK, N_RANK), (N_RANK, OPEN), (OPEN, EOL), (NUMR, N_NUMR), (N_NUMR, EOL),
          (L_FIRST, COLON), (COLON, SEND), (COLON, RECV), (COLON, CALC), (L_FIRST, REQ), (L_FIRST, IREQ),
          (REQ, L_REF), (IREQ, L_REF), (L_REF, EOL), (SEND, N_SIZE), (RECV, N_SIZE), (N_SIZE, TO),
          (N_SIZE, FROM), (TO, N_PEER), (FROM, N_PEER), (N_PEER, TAG), (N_PEER, CPU), (N_PEER, NIC), (N_PEER, EOL),
          (TAG, N_TAG), (N_TAG, CPU), (N_TAG, NIC), (N_TAG, EOL), (CPU, N_CPU), (N_CPU, NIC), (N_CPU, EOL),
          (NIC, N_NIC), (N_NIC, EOL), (CALC, N_CALC), (N_CALC, CPU), (N_CALC, EOL)]
_CLASS_KIND = np.zeros(8, np.uint8)  # the token of a punctuation byte's class (words are typed apart)
_CLASS_KIND[[_B_NL, _B_COLON, _B_OPEN, _B_CLOSE]] = EOL, COLON, OPEN, CLOSE
_ALLOWED = np.zeros((32, 32), np.bool_)
for _a, _b in _PAIRS:
    _ALLOWED[_a, _b] = True


def _pack(word: bytes) -> int:
    return int.from_bytes(word[:8].ljust(8, b"\0"), "little")


_KW_PACKED = np.array(sorted(_pack(k) for k in _KEYWORDS), dtype=np.uint64)
_KW_TYPE = np.array([_KEYWORDS[k] for k in sorted(_KEYWORDS, key=_pack)], dtype=np.uint8)
_SWAR = [(0x0F0F0F0F0F0F0F0F, 2561, 8), (0x00FF00FF00FF00FF, 6553601, 16),
         (0x0000FFFF0000FFFF, 42949672960001, 32)]


def _windows(data: bytes) -> np.ndarray:
    """Element i: the eight bytes from offset i as one little-endian integer (zero-padded)."""
    padded = np.frombuffer(data + b"\0" * 16, np.uint8)
    return np.ndarray((len(data) + 8,), dtype="<u8", buffer=padded, offset=0, strides=(1,))


_HIGH = np.uint64(0x8080808080808080)


def _all_digits(w: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Whether the first ``length`` bytes of each packed word are decimal digits (bytes below
    0x80: the sums below carry into no other byte)."""
    m = _MASK[np.clip(length, 0, 8)] & _HIGH
    at_least_0 = (w + np.uint64(0x5050505050505050)) & m
    above_9 = (w + np.uint64(0x4646464646464646)) & m
    return (at_least_0 == m) & (above_9 == 0) & (length > 0)


def _numbers(win: np.ndarray, packed: np.ndarray, start: np.ndarray, length: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
    """Whether ``length`` bytes from each ``start`` are decimal digits, and their values;
    ``packed`` holds the first eight of them (the rest are read from ``win``)."""
    short = length <= 8
    ok = _all_digits(packed, np.minimum(length, 8))
    value = _digits(packed, np.clip(length, 0, 8))
    if not short.all():
        long = np.flatnonzero(~short)
        ok[long] = _digit_words(win, start[long], length[long])
        value[long] = _number(win, start[long], length[long])
    return ok & (length >= 1), np.where(ok, value, 0)


def _digit_words(win: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Whether ``length`` (1 to 16) bytes from each ``start`` are all decimal digits."""
    low = _all_digits(win[start], np.minimum(length, 8))
    long = length > 8
    low[long] &= _all_digits(win[start[long] + 8], length[long] - 8)
    return low & (length >= 1)


def _number(win: np.ndarray, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """The values of ``length`` (1 to 16) decimal digits from each ``start``."""
    long = length > 8
    value = _digits(win[start + np.where(long, length - 8, 0)], np.minimum(length, 8))
    if long.any():
        value[long] += _digits(win[start[long]], length[long] - 8) * 10 ** 8
    return value


def _digits(w: np.ndarray, length: np.ndarray) -> np.ndarray:
    """The value of words of 1 to 8 decimal digits packed as in :func:`_windows`."""
    x = (w - np.uint64(0x3030303030303030)) & _MASK[length]
    x = x << (np.uint64(8) * (np.uint64(8) - length.astype(np.uint64)))
    with np.errstate(over="ignore"):
        for mask, mul, shift in _SWAR:
            x = ((x & np.uint64(mask)) * np.uint64(mul)) >> np.uint64(shift)
    return x.astype(np.int64)


class _Block:
    """The tokens of one block of whole lines, typed and checked."""

    def __init__(self, data: bytes, first_line: int) -> None:
        self.ok = False
        buf = np.frombuffer(data, np.uint8)
        cls = np.frombuffer(data.translate(_BYTE_TABLE), np.uint8)  # a table lookup without index arrays
        if (cls == _B_OTHER).any():
            return
        word = cls == _B_WORD
        start = word.copy()
        start[1:] &= ~word[:-1]
        ev = np.flatnonzero(start | (cls == _B_NL) | (cls >= _B_COLON))
        ecls = cls[ev]
        is_word = ecls == _B_WORD
        ws = ev[is_word]
        ends = np.flatnonzero(word & ~np.concatenate((word[1:], [False]))) + 1
        length = ends - ws
        if length.size and length.max() > 16:
            return
        win = _windows(data)
        w = win[ws] & _MASK[np.minimum(length, 8)]
        first = (w & np.uint64(0xFF)).astype(np.uint8)
        digit_first = (first >= 48) & (first <= 57)
        letter = ((first | 0x20) >= ord("a")) & ((first | 0x20) <= ord("z"))
        wtype = np.full(ws.shape[0], BAD, np.uint8)
        wtype[letter] = LABEL
        kw = np.minimum(np.searchsorted(_KW_PACKED, w), len(_KW_PACKED) - 1)
        kw_hit = letter & (_KW_PACKED[kw] == w) & (length <= 8)
        wtype[kw_hit] = _KW_TYPE[kw][kw_hit]
        nine = np.flatnonzero(length == 9)
        for name, typ in _LONG_KEYWORDS.items():
            wtype[nine[(w[nine] == np.uint64(_pack(name))) & (buf[ws[nine] + 8] == name[8])]] = typ
        value = np.zeros(ws.shape[0], np.int64)
        # numbers: all digits, or digits and a final 'b' (a size); -1 (any source, any tag)
        d = np.flatnonzero(digit_first)
        numb = buf[ends[d] - 1] == ord("b")
        n_len = length[d] - numb
        ok, value[d] = _numbers(win, w[d], ws[d], n_len)
        wtype[d[ok & ~numb]] = NUM
        wtype[d[ok & numb]] = NUMB
        minus = np.flatnonzero((first == ord("-")) & (length == 2))
        minus = minus[(w[minus] >> np.uint64(8)) == ord("1")]
        wtype[minus] = NUM
        value[minus] = -1
        # a label: one letter and a number (l17), without leading zeros
        lab = np.flatnonzero(wtype == LABEL)
        lab_len = length[lab] - 1
        lab_ok, lab_num = _numbers(win, w[lab] >> np.uint64(8), ws[lab] + 1, lab_len)
        lab_ok &= (lab_len == 1) | (((w[lab] >> np.uint64(8)) & np.uint64(0xFF)) != 48)
        if lab_ok.any() and lab_num[lab_ok].max() >= 2 ** 31:
            return
        kind = _CLASS_KIND[ecls]
        kind[is_word] = wtype
        prev = np.concatenate(([EOL], kind[:-1]))
        typed = kind.copy()
        nums = (kind == NUM) | (kind == NUMB)
        after = np.zeros(32, np.uint8)
        for k, v in _NUM_AFTER.items():
            after[k] = v
        after[SEND] = after[RECV] = N_SIZE
        typed[nums] = after[prev[nums]]
        typed[(kind == NUMB) & (typed != N_SIZE)] = BAD
        typed[(kind == NUM) & (typed == N_SIZE)] = BAD
        labels = kind == LABEL
        typed[labels] = np.where(prev[labels] == EOL, L_FIRST,
                                 np.where((prev[labels] == REQ) | (prev[labels] == IREQ), L_REF, BAD))
        if not _ALLOWED[np.concatenate(([EOL], typed[:-1])), typed].all():
            return
        minus_typed = typed[np.flatnonzero(is_word)[minus]]
        if ((minus_typed != N_PEER) & (minus_typed != N_TAG)).any():
            return  # -1 is any source or tag, nothing else (the line reader says so)
        if typed.size and typed[-1] != EOL:
            return
        self.typed, self.value, self.word, self.length = typed, np.zeros(ev.shape[0], np.int64), w, length
        self.value[is_word] = value
        self.labnum = np.full(ev.shape[0], -1, np.int32)
        self.labnum[np.flatnonzero(is_word)[lab[lab_ok]]] = lab_num[lab_ok]
        self.letter = np.zeros(ev.shape[0], np.uint8)
        self.letter[is_word] = first
        eol = typed == EOL
        self.line = np.cumsum(eol, dtype=np.int32)  # 1-based line of each token
        self.line -= eol
        self.line += first_line
        self.data, self.ok = data, True


class LazyLabels(LazySequence[str]):
    """The labels of a schedule's operations, read from its text only when first asked for
    (``read`` gives them, or None where there are none: empty labels)."""

    def __init__(self, read: Callable[[], tuple[str, ...] | None], n: int) -> None:
        super().__init__(read, n)

    def _load(self) -> tuple[str, ...]:
        return self._read() or ("",) * self._n


def read_goal_arrays(read: Callable[[int], bytes]) -> dict[str, Any] | None:
    """The columns of a GOAL text read through ``read(n)`` (as a file's read), or None where the
    text is not of the form read here (see the module's docstring)."""
    parts: dict[str, list[np.ndarray]] = {k: [] for k in (
        "kind", "size", "peer", "tag", "cpu", "nic", "line", "block", "label",
        "dep_a", "dep_b", "dep_how", "dep_block", "rank")}
    depth = 0
    num_ranks = -1
    blocks_seen = 0
    letter = -1  # every label is this letter and a number
    for data, first_line in line_blocks(read):
        if b"/" in data:
            return None
        b = _Block(data, first_line)
        if not b.ok:
            return None
        t, v = b.typed, b.value
        # rank blocks: 'rank R {' opens, '}' closes; nothing but rank lines outside, num_ranks first
        opens, closes = t == OPEN, t == CLOSE
        level = depth + np.cumsum(opens.astype(np.int64) - closes)
        if level.size and (level.min() < 0 or level.max() > 1):
            return None
        inside = level - opens  # before each token
        op_kinds = (t >= SEND) & (t <= CALC)
        if (inside[op_kinds | (t == REQ) | (t == IREQ)] != 1).any() or (inside[(t == RANK) | (t == NUMR)] != 0).any():
            return None
        numr = np.flatnonzero(t == N_NUMR)
        if numr.size:
            if num_ranks >= 0 or numr.size > 1 or blocks_seen or (t[:numr[0]] == RANK).any():
                return None
            num_ranks = int(v[numr[0]])
        elif num_ranks < 0 and (t == RANK).any():
            return None
        block_of = blocks_seen + np.cumsum(t == RANK) - 1  # the rank block of each token
        parts["rank"].append(v[t == N_RANK])
        blocks_seen += int((t == RANK).sum())
        depth = int(level[-1]) if level.size else depth
        # operations: the kind's token, the size after it, the peer, and tag, cpu, nic where given
        k_at = np.flatnonzero(op_kinds)
        line_of_op = b.line[k_at]
        n_ops = k_at.shape[0]
        kind = np.select([t[k_at] == SEND, t[k_at] == RECV], [0, 1], 2).astype(np.int8)
        parts["kind"].append(kind)
        parts["size"].append(v[k_at + 1].astype(np.float64))
        comm = kind != 2
        peer = np.zeros(n_ops, np.int32)
        peer[comm] = v[k_at[comm] + 3]
        parts["peer"].append(peer)
        op_index = np.cumsum(op_kinds) - 1  # the operation each token's line holds
        for name, typ in (("tag", N_TAG), ("cpu", N_CPU), ("nic", N_NIC)):
            at = np.flatnonzero(t == typ)
            wide = typ == N_TAG and at.size and (v[at].max() >= 2 ** 31 or v[at].min() < -1)
            col = np.zeros(n_ops, np.int64 if wide else np.int32)
            col[op_index[at]] = v[at]
            parts[name].append(col)
        if (kind[op_index[t == N_NIC]] == 2).any():
            return None  # a calc takes no nic
        if ((t[k_at[comm] + 2] == TO) != (kind[comm] == 0)).any():
            return None  # 'send ... from' or 'recv ... to': the line reader says so
        parts["line"].append(line_of_op.astype(np.int32))
        parts["block"].append(block_of[k_at].astype(np.int32))
        labelled = (k_at >= 2) & (t[np.maximum(k_at - 1, 0)] == COLON)
        d_at = np.flatnonzero((t >= REQ) & (t <= IREQ))
        at = np.concatenate((k_at[labelled] - 2, d_at - 1, d_at + 1))
        numbers, letters = b.labnum[at], b.letter[at]
        if (numbers < 0).any():
            return None
        if letters.size:
            letter = int(letters[0]) if letter < 0 else letter
            if (letters != letter).any():
                return None
        lab = np.full(n_ops, -1, np.int32)
        n_lab, n_dep = int(labelled.sum()), d_at.shape[0]
        lab[labelled] = numbers[:n_lab]
        parts["label"].append(lab)
        # dependencies: 'a requires b', by the numbers of their labels
        parts["dep_a"].append(numbers[n_lab:n_lab + n_dep].astype(np.int32))
        parts["dep_b"].append(numbers[n_lab + n_dep:].astype(np.int32))
        parts["dep_how"].append((t[d_at] == IREQ).astype(np.int8))
        parts["dep_block"].append(block_of[d_at].astype(np.int32))
        del b, t, v
    if depth != 0 or num_ranks < 1:
        return None
    cols = {}
    for k in list(parts):
        cols[k] = np.concatenate(parts.pop(k))
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


def _by_required(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dependency pairs ordered by the operation required (``b``), those that require the same
    one in their order: the schedule's order of dependencies."""
    if b.size < 2 or (b[1:] >= b[:-1]).all():
        return a, b
    order = np.argsort(b, kind="stable")
    return a[order], b[order]


def assemble(c: dict[str, np.ndarray], num_ranks: int) -> dict[str, Any] | None:
    """The schedule's columns from those read block by block: operations in rank order and
    dependencies as operation indices; None where a rank, peer or label is out of place (the
    line reader names it)."""
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
