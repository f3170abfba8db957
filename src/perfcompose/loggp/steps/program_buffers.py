"""A LogGP program read into the flat typed buffers the step kernels take, without NumPy: per step its kind (int32: 0
computation, 1 communication) and its messages' range (``msg_ptr``, int64), the messages' ``src`` and ``dst`` (int32),
``nbytes`` (float64) and ``order`` (int32, each sender's messages in send order by their index within the step), and the
computation steps' durations (float64, P per step): the layout of :func:`.loggopsim_steps.step_arrays`.

:func:`read_npz_buffers` reads the compact form (:mod:`.npzfile`; its format name and how to tell such a file are here,
for both) with the standard library's zip reader and parses each array's header itself. It takes what
:func:`.npzfile.read_program_npz` takes and checks what it checks, except what the kernels check themselves (processors
in range, each message once in its sender's order). :func:`read_json_buffers` reads a program JSON of plain numbers, its
number arrays tokenized by the compiled ``_cjson_tokens`` (:mod:`.json_array_slots`). For anything else (expressions,
anything the NumPy readers would refuse) both return None, and the NumPy reader reads the file and names what is wrong.
"""
from __future__ import annotations

import math
import re
import struct
import zipfile
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from operator import add, eq
from pathlib import Path
from typing import Any

from perfcompose.loggp.kernels.backend import as_items, extension
from perfcompose.loggp.params import UNITS
from perfcompose.loggp.steps.json_array_slots import ARRAY_KEYS, load_with_arrays, read_numbers

__all__ = ["ProgramBuffers", "read_npz_buffers", "read_json_buffers", "NPZ_FORMAT", "is_npz", "npy_header"]

#: the format name of the compact form of a program (:mod:`.npzfile`)
NPZ_FORMAT = "perfcompose-loggp-program/1"

#: the header NumPy writes for a C-ordered array of plain numbers or text
_NPY_HEADER = re.compile(rb"\{'descr': '([<>|=]?[a-zA-Z]\d*)', 'fortran_order': False, "
                         rb"'shape': \(((?:\d+, ?)*\d*)\), \}\s*")


def is_npz(path: Path) -> bool:
    """Whether ``path`` starts like a zip archive (an .npz file), whatever its name."""
    try:
        with open(path, "rb") as fh:
            return fh.read(4) == b"PK\x03\x04"
    except OSError:
        return False


def npy_header(header: bytes) -> tuple[str, tuple[int, ...]] | None:
    """The description and shape in the header of an array in NumPy's .npy form, or None where it is not the plain
    C-ordered form of a number or text array."""
    m = _NPY_HEADER.fullmatch(header)
    return None if m is None else (m[1].decode(), tuple(int(v) for v in m[2].split(b",") if v.strip()))


@dataclass(frozen=True, eq=False)
class ProgramBuffers:
    """A program as the step kernels take it (see the module's docstring), its unit and its number of steps."""

    P: int
    unit: str
    kinds: Any
    msg_ptr: Any
    src: Any
    dst: Any
    nbytes: Any
    order: Any
    durations: Any

    @property
    def steps(self) -> int:
        return len(self.kinds)

    @property
    def M(self) -> int:
        """How many messages the program sends."""
        return int(self.msg_ptr[-1])

    def computation(self) -> list[float]:
        """Each processor's computation time: its durations added step by step (as the simulators add them)."""
        P, d = self.P, self.durations
        total = [0.0] * P
        for at in range(0, len(d), P):
            total = list(map(add, total, d[at:at + P]))
        return total

    def operations(self) -> list[int]:
        """Each processor's sends, receives and computations of non-zero length."""
        P, d = self.P, self.durations
        rows = extension("_cmessage_rows")
        if rows is not None:
            tally = array("q", bytes(8 * P))
            rows.count_operations(self.src, self.dst, d, P, tally)
            return tally.tolist()
        counts = [0] * P
        for p in self.src:
            counts[p] += 1
        for p in self.dst:
            counts[p] += 1
        for at in range(0, len(d), P):
            counts = list(map(add, counts, (t > 0 for t in d[at:at + P])))
        return counts


#: the NumPy descriptions read here, as struct codes
_CODES = {"<i4": "i", "<i8": "q", "<f8": "d", "|i1": "b", "<i2": "h", "|u1": "B", "<u2": "H", "<u4": "I",
          "<u8": "Q", "<f4": "f"}


def _npy(data: bytes) -> tuple[str, tuple[int, ...], memoryview] | None:
    """The description, shape and data of an array in NumPy's .npy form, or None where it is not
    the plain C-ordered form of a number or text array."""
    if data[:6] != b"\x93NUMPY" or len(data) < 10 or data[6] not in (1, 2, 3):
        return None
    at = 10 if data[6] == 1 else 12
    size = struct.unpack("<H" if data[6] == 1 else "<I", data[8:at])[0]
    parsed = npy_header(data[at:at + size])
    return None if parsed is None else (*parsed, memoryview(data)[at + size:])


def _numbers(got: tuple[str, tuple[int, ...], memoryview] | None, length: int) -> Any:
    """A vector of ``length`` numbers as a typed view, or None."""
    if got is None or got[1] != (length,) or got[0] not in _CODES:
        return None
    code = _CODES[got[0]]
    view = got[2]
    if len(view) != length * struct.calcsize(code):
        return None
    return as_items(view, code)


def _as(view: memoryview, code: str) -> Any:
    """``view`` as items of type ``code``: itself where it is, else a converted copy (None where an item does not
    fit)."""
    try:
        return view if view.format == code else array(code, view)
    except OverflowError:
        return None


def _text(got: tuple[str, tuple[int, ...], memoryview] | None) -> str | None:
    if got is None or got[1] != () or not got[0].startswith("<U"):
        return None
    return bytes(got[2]).decode("utf-32-le").rstrip("\0")


def _finite_non_negative(values: Sequence[float]) -> bool:
    return all(map(math.isfinite, values)) and (not values or min(values) >= 0)


def read_npz_buffers(path: Path | str) -> ProgramBuffers | None:
    """The program of an archive written by :func:`.npzfile.write_program_npz`, or None where it
    is not one, is not well formed, or holds anything the NumPy reader would refuse."""
    try:
        with zipfile.ZipFile(path) as archive:
            arrays = {n[:-4]: archive.read(n) for n in archive.namelist() if n.endswith(".npy")}
    except (OSError, zipfile.BadZipFile, EOFError, ValueError):
        return None
    if _text(_npy(arrays.get("format", b""))) != NPZ_FORMAT:
        return None
    P_got, kinds_got = _npy(arrays.get("P", b"")), _npy(arrays.get("kinds", b""))
    if P_got is None or P_got[1] != () or P_got[0] not in ("<i8", "<i4") or kinds_got is None:
        return None
    P = as_items(P_got[2], _CODES[P_got[0]])[0]
    unit = _text(_npy(arrays["unit"])) if "unit" in arrays else ""
    kinds = _numbers(kinds_got, kinds_got[1][0] if len(kinds_got[1]) == 1 else -1)
    if P < 1 or unit is None or kinds is None or kinds.format not in "bBhHiq" or not set(kinds) <= {0, 1}:
        return None
    src: list[Any] = []
    dst: list[Any] = []
    nbytes: list[Any] = []
    order: list[Any] = []
    durations: list[Any] = []
    msg_ptr = array("q", [0])
    for k, kind in enumerate(kinds):
        if kind == 0:
            d = _numbers(_npy(arrays.get(f"durations_{k}", b"")), P)
            if d is None or d.format not in "fdbBhHiIqQ" or not _finite_non_negative(d):
                return None
            durations.append(_as(d, "d"))  # any number fits a float64
            msg_ptr.append(msg_ptr[-1])
            continue
        got = _npy(arrays.get(f"src_{k}", b""))
        M = got[1][0] if got is not None and len(got[1]) == 1 else -1
        s, t, n, o = (_numbers(_npy(arrays.get(f"{name}_{k}", b"")), M) for name in ("src", "dst", "nbytes", "order"))
        if s is None or t is None or n is None or o is None or M < 0:
            return None
        if s.format not in "iq" or t.format not in "iq" or o.format not in "iq" or n.format not in "fdbBhHiIqQ":
            return None
        if not _finite_non_negative(n) or any(map(eq, s, t)):
            return None
        typed = _as(s, "i"), _as(t, "i"), _as(n, "d"), _as(o, "i")
        if any(v is None for v in typed):
            return None
        for parts, v in zip((src, dst, nbytes, order), typed):
            parts.append(v)
        msg_ptr.append(msg_ptr[-1] + M)
    del arrays
    return ProgramBuffers(P, unit, array("i", kinds), msg_ptr, *(_joined(parts, code) for parts, code in (
        (src, "i"), (dst, "i"), (nbytes, "d"), (order, "i"), (durations, "d"))))


def _joined(parts: list[Any], code: str) -> Any:
    """One buffer of the parts' items, in order."""
    if len(parts) == 1:
        return parts[0]
    joined = array(code)
    for part in parts:
        joined.frombytes(as_items(part, "B"))
    return joined


@dataclass(frozen=True, eq=False)
class _Numbers:
    """A JSON array of numbers (``width`` 0), of rows of ``width`` numbers, or of lists of numbers
    (``width`` -1, ``counts`` the lists' lengths), as float64 values."""

    values: Any
    width: int
    counts: list[int] | None = None


_ROWS = 3 * 8192  #: numbers of a step's messages read into Python at a time


def _json_array(key: bytes, data: bytes, open_at: int) -> tuple[_Numbers, int] | None:
    got = read_numbers(key, data, open_at)
    return None if got is None else (_Numbers(as_items(got[0], "d"), ARRAY_KEYS[key], got[1]), got[2])


def _processors(values: list[float], P: int) -> Any:
    """Whole numbers from 0 to P - 1 as int32, or None."""
    if not all(map(float.is_integer, values)) or (values and (min(values) < 0 or max(values) >= P)):
        return None
    return array("i", map(int, values))


def read_json_buffers(path: Path | str) -> ProgramBuffers | None:
    """A program JSON of plain numbers without send orders (see the module's docstring), or None."""
    if extension("_cjson_tokens") is None:
        return None
    try:
        data = Path(path).read_bytes()
        doc = load_with_arrays(data, lambda key, at: _json_array(key, data, at))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or not set(doc) <= {"P", "steps", "unit"}:
        return None
    P, unit, steps = doc.get("P"), doc.get("unit", ""), doc.get("steps")
    if type(P) is not int or P < 1 or not isinstance(unit, str) or (unit and unit not in UNITS):
        return None
    if not isinstance(steps, list):
        return None
    kinds, src, dst, nbytes, order, durations = array("i"), array("i"), array("i"), array("d"), array("i"), array("d")
    msg_ptr = array("q", [0])
    for s in steps:
        if not isinstance(s, dict):
            return None
        if s.get("kind") == "comp" and set(s) == {"kind", "durations"}:
            d = s["durations"]
            if not isinstance(d, _Numbers) or d.width or len(d.values) != P or min(d.values) < 0:
                return None
            kinds.append(0)
            durations.frombytes(as_items(d.values, "B"))
            msg_ptr.append(msg_ptr[-1])
            continue
        m, send_order = s.get("messages"), s.get("send_order")
        if s.get("kind") != "comm" or not {"kind", "messages"} <= set(s) <= {"kind", "messages", "send_order"}:
            return None
        if not isinstance(m, _Numbers) or m.width != 3:
            return None
        first = len(src)
        split = _split_rows(m.values, P, src, dst, nbytes, order if send_order is None else None)
        if split is False or (split is None and not _rows_in_python(m.values, P, src, dst, nbytes)):
            return None
        M = len(src) - first
        if not M:
            return None
        kinds.append(1)
        if send_order is None:  # each sender's in message order (the splitter wrote them)
            if split is None:
                order.extend(sorted(range(M), key=src[first:].__getitem__))
        elif not _send_order(send_order, P, M, order):
            return None
        msg_ptr.append(msg_ptr[-1] + M)
    return ProgramBuffers(P, unit, kinds, msg_ptr, src, dst, nbytes, order, durations)


def _split_rows(values: Any, P: int, src: Any, dst: Any, nbytes: Any, order: Any | None) -> bool | None:
    """Append a step's message rows to the columns through the compiled splitter, and where
    ``order`` is given each sender's messages in message order; False where the rows are not
    messages between processors 0 to P - 1, None where the splitter is not built."""
    splitter = extension("_cmessage_rows")
    if splitter is None:
        return None
    M = len(values) // 3
    if len(values) != 3 * M:
        return False
    columns = (array("i", bytes(4 * M)), array("i", bytes(4 * M)), array("d", bytes(8 * M)), array("i", bytes(4 * M)))
    if not splitter.split_rows(values, P, *columns):
        return False
    for column, out in zip(columns, (src, dst, nbytes, order)):
        if out is not None:
            out.extend(column)
    return True


def _rows_in_python(values: Any, P: int, src: Any, dst: Any, nbytes: Any) -> bool:
    """:func:`_split_rows` without the compiled splitter (a few thousand rows at a time)."""
    for lo in range(0, len(values), _ROWS):
        rows = values[lo:lo + _ROWS].tolist()
        s_src, s_dst = _processors(rows[0::3], P), _processors(rows[1::3], P)
        s_bytes = rows[2::3]
        if s_src is None or s_dst is None or any(map(eq, s_src, s_dst)) or min(s_bytes) < 0:
            return False
        src.extend(s_src)
        dst.extend(s_dst)
        nbytes.extend(s_bytes)
    return True


def _send_order(lists: Any, P: int, M: int, order: Any) -> bool:
    """Append a step's ``send_order`` (P lists of message ids, each sender's in the order sent) to ``order``; False
    where it is not such lists (whether each lists its sender's messages once, the kernel checks)."""
    if not isinstance(lists, _Numbers) or lists.width != -1 or len(lists.counts or ()) != P:
        return False
    ids = _processors(lists.values.tolist(), M)  # whole numbers from 0 to M - 1
    if ids is None or len(ids) != M:
        return False
    order.extend(ids)
    return True
