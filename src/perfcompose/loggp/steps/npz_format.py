"""The compact form of a LogGP program (:mod:`.npzfile`): its format name and how to tell such a
file. No NumPy here, so that a reader without it (:mod:`.program_buffers`) can check both."""
from __future__ import annotations

import re
from pathlib import Path

__all__ = ["NPZ_FORMAT", "is_npz", "npy_header"]

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
