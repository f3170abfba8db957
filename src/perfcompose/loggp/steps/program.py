"""Programs of alternating computation and communication steps (paper 002, section 2), and their JSON reader.

A communication step is a directed graph of messages ``(src, dst, bytes)`` plus each processor's send order; a
computation step gives every processor a duration. The reader reports a malformed program with the file, line and column
of the offending value.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from perfcompose.errors import InputError
from perfcompose.finite import is_finite_number, is_number
from perfcompose.loggp.jsonfile import JsonText, as_text, load_json_program
from perfcompose.loggp.params import UNITS
from perfcompose.loggp.steps.json_arrays import JsonLists, JsonNumbers, readonly, token_offset

__all__ = ["CommStep", "CompStep", "Program", "Problem", "read_program", "parse_program", "located_error",
           "program_to_json", "stable_order"]

_EXAMPLE = ('{"P": 2, "steps": [{"kind": "comp", "durations": [5, 3]}, '
            '{"kind": "comm", "messages": [[0, 1, 100]], "send_order": [[0], []]}]}')


class Problem(Exception):
    """A validation failure at a JSON path, turned into a located InputError by the reader."""

    def __init__(self, message: str, path: tuple[str | int, ...] = (), hint: str | None = None,
                 node: JsonNumbers | JsonLists | None = None, index: tuple[int, ...] = ()):
        super().__init__(message)
        self.message, self.path, self.hint = message, path, hint
        #: the array read from the file that ``path`` leads into, and the index inside it
        self.node, self.index = node, index

    def at(self, message: str, prefix: tuple[str | int, ...], step: dict[str, Any] | None = None) -> Problem:
        """The same problem under ``prefix`` with another message; the array node of ``step``
        it points into is found where not known yet."""
        node, index = self.node, self.index
        key = str(self.path[0]) if self.path else ""
        if node is None and step is not None and isinstance(step.get(key), (JsonNumbers, JsonLists)):
            node, index = step[key], tuple(int(i) for i in self.path[1:])
        return Problem(message, prefix + self.path, self.hint, node, index)

    @property
    def described(self) -> str:
        """The message after the JSON path it is at (``['steps'][0]: ...``)."""
        where = "".join(f"[{k!r}]" for k in self.path)
        return f"{where}: {self.message}" if where else self.message


def _first(mask: np.ndarray) -> int | None:
    """The first index where ``mask`` holds, or None."""
    found = np.flatnonzero(mask)
    return int(found[0]) if found.size else None


def _is_int(v: Any) -> bool:
    return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())


@dataclass(frozen=True, eq=False)
class CommStep:
    """One communication step: ``M`` messages among ``P`` processors and each sender's order.

    ``order[send_ptr[p]:send_ptr[p+1]]`` are the ids of the messages processor ``p`` sends, in
    the order it sends them (a CSR layout, so the simulator needs no Python objects).
    """

    P: int
    src: np.ndarray
    dst: np.ndarray
    nbytes: np.ndarray
    order: np.ndarray
    send_ptr: np.ndarray

    @property
    def M(self) -> int:
        return int(self.src.shape[0])

    def send_order(self, p: int) -> tuple[int, ...]:
        """The message ids processor ``p`` sends, in order."""
        return tuple(int(m) for m in self.order[self.send_ptr[p]:self.send_ptr[p + 1]])

    @classmethod
    def from_messages(cls, P: int, messages: Sequence[Sequence[float]] | np.ndarray,
                      send_order: Sequence[Sequence[int]] | None = None) -> CommStep:
        """Build a step from ``[[src, dst, bytes], ...]``; without ``send_order`` each processor
        sends its messages in the order of their ids."""
        try:
            return cls._build(P, messages, send_order)
        except Problem as p:
            raise InputError(p.described, hint=p.hint) from None

    @classmethod
    def from_arrays(cls, P: int, src: np.ndarray, dst: np.ndarray, nbytes: np.ndarray,
                    order: np.ndarray | None = None) -> CommStep:
        """Build a step from arrays (fast path for generated patterns). ``order``, if given, lists
        all message ids once, each sender's ids in its send order; by default, id order."""
        src = np.ascontiguousarray(src, dtype=np.int64)
        dst = np.ascontiguousarray(dst, dtype=np.int64)
        nbytes = np.ascontiguousarray(nbytes, dtype=np.float64)
        _check_arrays(P, src, dst, nbytes)
        if order is None:
            order = stable_order(src, P)
        else:
            order = np.ascontiguousarray(order, dtype=np.int64)
            if not _is_permutation(order, src.shape[0]):
                raise InputError("the send order must list every message id exactly once")
            senders = src[order]
            if senders.size and not (senders[1:] >= senders[:-1]).all():  # not yet grouped by sender
                order = order[stable_order(senders, P)]
        counts = np.bincount(src, minlength=P)
        send_ptr = np.zeros(P + 1, dtype=np.int64)
        np.cumsum(counts, out=send_ptr[1:])
        return cls(P, readonly(src), readonly(dst), readonly(nbytes), readonly(order.astype(np.int64, copy=False)),
                   readonly(send_ptr))

    @classmethod
    def _build(cls, P: int, messages: Any, send_order: Any) -> CommStep:
        msgs = _message_array(messages)
        for j, name in enumerate(("src", "dst")):   # whole processor numbers, before the cast to integers
            col = msgs[:, j]
            if (k := _first(~((col >= 0) & (col < P) & (col == np.floor(col))))) is not None:
                raise Problem(f"message {k}: {name} {col[k]:g} is not a processor (P = {P})", ("messages", k, j),
                               hint=f"processors are numbered 0 to {P - 1}")
        src = msgs[:, 0].astype(np.int64)
        dst = msgs[:, 1].astype(np.int64)
        nbytes = msgs[:, 2].astype(np.float64)
        _check_arrays(P, src, dst, nbytes, located=True)
        if send_order is None:
            return cls.from_arrays(P, src, dst, nbytes)
        order = _order_array(P, src, send_order)
        return cls.from_arrays(P, src, dst, nbytes, order)


def stable_order(keys: np.ndarray, n: int) -> np.ndarray:
    """The indices that sort ``keys`` (integers in [0, n)) keeping equal keys in their order: a
    radix sort in linear time where the keys fit 16 bits (NumPy's for small integer types)."""
    if n <= 1 << 16:
        return np.argsort(keys.astype(np.uint16), kind="stable")
    return np.argsort(keys, kind="stable")


def _is_permutation(order: np.ndarray, M: int) -> bool:
    """Whether ``order`` lists 0..M-1, each once (in linear time)."""
    if order.shape != (M,):
        return False
    if M == 0:
        return True
    if order.min() < 0 or order.max() >= M:
        return False
    return bool((np.bincount(order, minlength=M) == 1).all())


def _message_array(messages: Any) -> np.ndarray:
    if isinstance(messages, JsonNumbers):
        messages = messages.values
    if isinstance(messages, np.ndarray):
        if messages.ndim != 2 or (messages.size and messages.shape[1] != 3):
            raise Problem("messages must be a list of [src, dst, bytes]", ("messages",))
        return messages.reshape(-1, 3).astype(np.float64)
    if not isinstance(messages, (list, tuple)):
        raise Problem("messages must be a list of [src, dst, bytes]", ("messages",))
    try:
        arr = np.array(messages, dtype=np.float64)
        if arr.ndim == 2 and arr.shape[1] == 3 or arr.size == 0:
            return arr.reshape(-1, 3)
    except (TypeError, ValueError, OverflowError):
        pass
    for k, m in enumerate(messages):  # find the first malformed one, to point at it
        if not isinstance(m, (list, tuple)) or len(m) != 3:
            raise Problem(f"message {k} must be [src, dst, bytes]", ("messages", k),
                           hint="e.g. [0, 1, 1024]: processor 0 sends 1024 bytes to processor 1")
        for j, v in enumerate(m):
            if not is_number(v):
                raise Problem(f"message {k}: {('src', 'dst', 'bytes')[j]} must be a number, got {v!r}",
                               ("messages", k, j))
            if abs(v) > 1e300:
                raise Problem(f"message {k}: {('src', 'dst', 'bytes')[j]} is too large for a number of "
                               "processors or bytes", ("messages", k, j))
    raise Problem("messages must be a list of [src, dst, bytes]", ("messages",))


def _check_arrays(P: int, src: np.ndarray, dst: np.ndarray, nbytes: np.ndarray, located: bool = False) -> None:
    def fail(k: int, j: int, message: str, hint: str | None = None) -> None:
        if located:
            raise Problem(message, ("messages", k, j), hint)
        raise InputError(message, hint=hint)

    for j, (arr, name) in enumerate(((src, "src"), (dst, "dst"))):
        if (k := _first((arr < 0) | (arr >= P))) is not None:
            fail(k, j, f"message {k}: {name} {arr[k]} is not a processor (P = {P})",
                 f"processors are numbered 0 to {P - 1}")
    if (k := _first(src == dst)) is not None:
        fail(k, 1, f"message {k}: processor {src[k]} sends to itself",
             "a local transfer is not a message; leave it out of the step")
    if (k := _first(~np.isfinite(nbytes) | (nbytes < 0))) is not None:
        fail(k, 2, f"message {k}: bytes = {nbytes[k]} must be a finite non-negative number")


def _order_array(P: int, src: np.ndarray, send_order: Any) -> np.ndarray:
    """The send order (lists, or read as arrays) as one array of message ids, each sender's in the order it sends
    them; every id must be listed once, by its sender."""
    M = src.shape[0]
    if not isinstance(send_order, (list, tuple, JsonLists)) or len(send_order) != P:
        raise Problem(f"send_order must be a list of {P} lists (one per processor)", ("send_order",),
                       hint="send_order[p] lists the ids of the messages processor p sends, in order")
    if not isinstance(send_order, JsonLists):
        for p, ids in enumerate(send_order):
            if not isinstance(ids, (list, tuple)):
                raise Problem(f"send_order[{p}] must be a list of message ids", ("send_order", p))
            for j, m in enumerate(ids):
                if not _is_int(m):
                    raise Problem(f"send_order[{p}][{j}] = {m!r} is not a message id", ("send_order", p, j))
                if not 0 <= m < M:  # before the ids become 64-bit integers
                    raise Problem(f"message id {int(m)} is out of range (the step has {M} messages)",
                                   ("send_order", p, j), hint=f"ids index the step's messages, 0 to {M - 1}")
        send_order = JsonLists(np.array([int(m) for ids in send_order for m in ids], dtype=np.int64),
                               np.array([len(ids) for ids in send_order], dtype=np.int64))
    flat, counts = send_order.flat, send_order.counts
    owner = np.repeat(np.arange(P, dtype=np.int64), counts)
    first = np.zeros(P + 1, np.int64)
    np.cumsum(counts, out=first[1:])

    def where(i: int) -> tuple[str | int, ...]:
        p = int(owner[i])
        return ("send_order", p, i - int(first[p]))

    if (i := _first((flat < 0) | (flat >= M))) is not None:
        raise Problem(f"message id {int(flat[i])} is out of range (the step has {M} messages)", where(i),
                       hint=f"ids index the step's messages, 0 to {M - 1}")
    if (i := _first(src[flat] != owner)) is not None:
        m = int(flat[i])
        raise Problem(f"message {m} is sent by processor {src[m]}, not {int(owner[i])}", where(i),
                       hint=f"list it in send_order[{src[m]}]")
    seen = np.bincount(flat, minlength=M)
    if (m := _first(seen > 1)) is not None:
        i = int(np.flatnonzero(flat == m)[1])
        raise Problem(f"message {m} appears twice in the send order", where(i),
                       hint="each message is sent exactly once")
    if (m := _first(seen == 0)) is not None:
        raise Problem(f"message {m} (from processor {src[m]}) is missing from the send order",
                       ("send_order", int(src[m])), hint=f"add {m} to send_order[{src[m]}]")
    return flat


@dataclass(frozen=True, eq=False)
class CompStep:
    """One computation step: how long each processor computes."""

    durations: np.ndarray

    @classmethod
    def of(cls, durations: Iterable[float]) -> CompStep:
        d = np.array(list(durations), dtype=np.float64)
        if d.ndim != 1 or not np.all(np.isfinite(d)) or np.any(d < 0):
            raise InputError("computation durations must be finite non-negative numbers")
        return cls(readonly(d))


@dataclass(frozen=True, eq=False)
class Program:
    """Alternating computation and communication steps on ``P`` processors; times in ``unit``
    (empty: whatever unit the user works in, the parameters' unit)."""

    P: int
    steps: tuple[CompStep | CommStep, ...]
    unit: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.P, int) or self.P < 1:
            raise InputError(f"P must be a positive integer, got {self.P!r}")
        for k, s in enumerate(self.steps):
            n = s.P if isinstance(s, CommStep) else s.durations.shape[0]
            if n != self.P:
                raise InputError(f"step {k} is for {n} processors, the program for {self.P}")


# ---------------------------------------------------------------------------------------------
# the JSON reader


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _locate(text: str, path: Sequence[str | int]) -> int:
    """The offset in ``text`` of the JSON value at ``path`` (as far as it exists)."""
    decoder = json.JSONDecoder()

    def past(i: int) -> int:
        """Past the value at ``i`` and the comma after it."""
        i = _skip_ws(text, decoder.raw_decode(text, i)[1])
        return _skip_ws(text, i + 1) if text[i:i + 1] == "," else i

    i = _skip_ws(text, 0)
    for key in path:
        if text[i:i + 1] == "{" and isinstance(key, str):
            i = _skip_ws(text, i + 1)
            while text[i:i + 1] == '"':
                name, i = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
                i = _skip_ws(text, _skip_ws(text, i) + 1)  # past the colon
                if name == key:
                    break
                i = past(i)
            else:  # no such key
                break
        elif text[i:i + 1] == "[" and isinstance(key, int):
            start, i = i, _skip_ws(text, i + 1)
            for _ in range(key):
                if text[i:i + 1] in ("]", ""):
                    return start
                i = past(i)
        else:
            break
    return i


def located_error(text: str | JsonText, path: Path | str, problem: Problem, shift: int = 0) -> InputError:
    """``problem`` as an InputError at its place in ``text``; ``shift`` moves the column right
    (to a character inside a string value, such as the error in an expression)."""
    data, at = b"", -1
    if problem.node is not None and isinstance(text, JsonText):  # inside an array read by NumPy
        data = text.data()
        at = token_offset(lambda: data, problem.node, problem.index)
    if at < 0:
        chars = as_text(text) or ""
        offset = _locate(chars, problem.path) + shift
        data, at = chars.encode(), len(chars[:offset].encode())
    start, end = data.rfind(b"\n", 0, at) + 1, data.find(b"\n", at)
    shown = data[start:end if end >= 0 else len(data)].decode("utf-8", errors="replace")
    return InputError(problem.described, path=path, line=data.count(b"\n", 0, at) + 1,
                      column=len(data[start:at].decode("utf-8", errors="replace")) + 1,
                      source_line=shown if len(shown) <= 160 else None, hint=problem.hint)


def parse_program(data: Any) -> Program:
    if not isinstance(data, dict):
        raise Problem("a program is a JSON object with P and steps", (), hint=f"e.g. {_EXAMPLE}")
    for key in data:
        if key not in ("P", "steps", "unit"):
            raise Problem(f"unknown key {key!r}", (key,), hint="a program has P, steps and optionally unit")
    if "P" not in data:
        raise Problem("missing P (the number of processors)", (), hint=f"e.g. {_EXAMPLE}")
    P = data["P"]
    if not _is_int(P) or P < 1:
        raise Problem(f"P must be a positive integer, got {P!r}", ("P",))
    P = int(P)
    unit = data.get("unit", "")
    if not isinstance(unit, str) or (unit and unit not in UNITS):
        raise Problem(f"unknown time unit {unit!r}", ("unit",), hint=f"use one of {', '.join(UNITS)}")
    steps_raw = data.get("steps")
    if not isinstance(steps_raw, list):
        raise Problem("steps must be a list of computation and communication steps", ("steps",),
                       hint=f"e.g. {_EXAMPLE}")
    steps: list[CompStep | CommStep] = []
    for k, s in enumerate(steps_raw):
        at: tuple[str | int, ...] = ("steps", k)
        if not isinstance(s, dict):
            raise Problem(f"step {k} must be an object with a kind", at)
        kind = s.get("kind")
        if kind == "comp":
            extra = [key for key in s if key not in ("kind", "durations")]
            if extra:
                raise Problem(f"unknown key {extra[0]!r} in computation step {k}", at + (extra[0],))
            d = s.get("durations")
            if isinstance(d, JsonNumbers) and d.values.shape == (P,):
                if (p := _first(~np.isfinite(d.values) | (d.values < 0))) is not None:
                    v = float(d.values[p])
                    raise Problem(f"step {k}: duration of processor {p} is {int(v) if v.is_integer() else v!r}; "
                                   "it must be a "
                                   "non-negative number", at + ("durations", p), node=d, index=(p,))
                steps.append(CompStep(d.values))
                continue
            if not isinstance(d, list) or len(d) != P:
                raise Problem(f"step {k}: durations must be a list of {P} numbers (one per processor)",
                               at + ("durations",) if "durations" in s else at)
            for p, v in enumerate(d):
                if not is_finite_number(v) or v < 0:
                    raise Problem(f"step {k}: duration of processor {p} is {v!r}; it must be a "
                                   "non-negative number", at + ("durations", p))
            steps.append(CompStep(readonly(np.array(d, dtype=np.float64))))
        elif kind == "comm":
            extra = [key for key in s if key not in ("kind", "messages", "send_order")]
            if extra:
                raise Problem(f"unknown key {extra[0]!r} in communication step {k}", at + (extra[0],))
            if "messages" not in s:
                raise Problem(f"step {k}: a communication step needs messages", at)
            try:
                steps.append(CommStep._build(P, s["messages"], s.get("send_order")))
            except Problem as p:
                raise p.at(f"step {k}: {p.message}", at, s) from None
        else:
            raise Problem(f"step {k}: kind must be 'comp' or 'comm', got {kind!r}",
                           at + ("kind",) if "kind" in s else at)
    return Program(P, tuple(steps), unit)


def read_program(path: Path | str, text: str | None = None) -> Program:
    """Read a program JSON file; every problem is an InputError naming the file and location."""
    path = Path(path)
    source, data = load_json_program(path, text, what="program", hint=f"a program looks like {_EXAMPLE}")
    try:
        return parse_program(data)
    except Problem as p:
        raise located_error(source, path, p) from None


def program_to_json(program: Program) -> dict[str, Any]:
    """The JSON form of a program (what :func:`read_program` reads)."""
    steps: list[dict[str, Any]] = []
    for s in program.steps:
        if isinstance(s, CompStep):
            steps.append({"kind": "comp", "durations": [float(v) for v in s.durations]})
        else:
            msgs = [[int(a), int(b), (int(c) if float(c).is_integer() else float(c))]
                    for a, b, c in zip(s.src, s.dst, s.nbytes)]
            steps.append({"kind": "comm", "messages": msgs,
                          "send_order": [list(s.send_order(p)) for p in range(s.P)]})
    out: dict[str, Any] = {"P": program.P, "steps": steps}
    if program.unit:
        out["unit"] = program.unit
    return out
