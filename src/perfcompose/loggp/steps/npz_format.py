"""The compact form of a LogGP program (:mod:`.npzfile`): its format name and how to tell such a
file. No NumPy here, so that a reader without it (:mod:`.program_buffers`) can check both."""
from __future__ import annotations

from pathlib import Path

__all__ = ["NPZ_FORMAT", "is_npz"]

NPZ_FORMAT = "perfcompose-loggp-program/1"


def is_npz(path: Path) -> bool:
    """Whether ``path`` starts like a zip archive (an .npz file), whatever its name."""
    try:
        with open(path, "rb") as fh:
            return fh.read(4) == b"PK\x03\x04"
    except OSError:
        return False
