"""A JSON Lines checkpoint: records appended one line at a time, read back after any interruption.

Every record is one ``write`` of one line and an ``fsync``, so an interrupted measurement (Ctrl-C,
kill -9) loses no finished record. Reading back keeps every good line: a last fragment without
its newline is a write torn by kill -9 and is cut off; a corrupt line in the middle is skipped,
and its line number is given to the caller, who warns about it. The file is locked with
``fcntl.flock`` while open, so a second process on the same checkpoint is refused instead of
interleaving its records with the first one's.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "run.jsonl"
>>> with Checkpoint.open(path, busy=lambda: RuntimeError("busy")) as c:
...     c.append({"x": 1})
>>> with Checkpoint.open(path, busy=lambda: RuntimeError("busy")) as c:
...     list(c.lines())
[(1, {'x': 1})]
"""
from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Self


def _record(line: bytes) -> dict[str, Any] | None:
    """One record (a JSON object), or None where the line is not one (a corrupt line)."""
    try:
        rec = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return rec if isinstance(rec, dict) else None


class Checkpoint(AbstractContextManager["Checkpoint"]):
    """An open, locked JSONL checkpoint; use :meth:`open` (a context manager that closes it)."""

    def __init__(self, path: Path, fd: int):
        self.path = path
        self.fd = fd

    @classmethod
    def open(cls, path: Path | str, *, busy: Callable[[], Exception], restart: bool = False) -> Self:
        """Open (creating it and its folder) and lock the checkpoint at ``path``; ``restart``
        empties it. When another process holds it, the error ``busy()`` is raised."""
        import fcntl

        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise busy() from None
        if restart:
            os.ftruncate(fd, 0)
        return cls(path, fd)

    @property
    def empty(self) -> bool:
        return os.fstat(self.fd).st_size == 0

    def lines(self) -> Iterator[tuple[int, dict[str, Any] | None]]:
        """``(line number, record)`` for every non-blank complete line, the record None where the
        line is corrupt; once all are read, a torn last fragment is cut off the file (a reader
        that stops early, refusing the file, leaves it as it is)."""
        raw = self.path.read_bytes()
        complete = raw[:raw.rfind(b"\n") + 1]
        for k, line in enumerate(complete.split(b"\n")[:-1]):
            if line.strip():
                yield k + 1, _record(line)
        if len(complete) < len(raw):
            os.ftruncate(self.fd, len(complete))

    def append(self, record: Mapping[str, Any]) -> None:
        """Add one record as one line, on disk before this returns."""
        os.write(self.fd, (json.dumps(record) + "\n").encode())
        os.fsync(self.fd)

    def close(self) -> None:
        os.close(self.fd)

    def __exit__(self, *_: object) -> None:
        self.close()


def read_records(checkpoint: Checkpoint) -> tuple[list[dict[str, Any]], list[int]]:
    """The good records of a checkpoint in order, and the numbers of the corrupt lines skipped."""
    lines = list(checkpoint.lines())
    return [rec for _, rec in lines if rec is not None], [line for line, rec in lines if rec is None]
