"""LogGP programs in a compact binary form: a NumPy ``.npz`` archive of plain arrays.

A program with millions of messages is read here at the speed of the disk (no text to parse, no Python object per
message), as LogGOPSim reads its binary schedules. The archive holds ``format`` (``perfcompose-loggp-program/1``),
``P``, ``unit``, ``kinds`` (per step: 0 computation, 1 communication), and per step ``k`` either ``durations_k`` or
``src_k``, ``dst_k``, ``nbytes_k`` and ``order_k`` (every message id once, each sender's in its send order). Every array
is checked as the JSON reader checks a program; a bad one is an InputError naming the file, the step and the array.
Programs whose durations and sizes are expressions stay JSON. The arrays of an uncompressed archive are read straight
from their place in the file (a program of many small steps holds thousands of them, and NumPy's reader spends a third
of a millisecond on each one's header); a compressed one is read by NumPy.
"""
from __future__ import annotations

import struct
import zipfile
import zlib
from io import BufferedReader
from pathlib import Path

import numpy as np

from perfcompose.errors import InputError
from perfcompose.loggp.steps.program import CommStep, CompStep, Program
from perfcompose.loggp.steps.program_buffers import NPZ_FORMAT, is_npz, npy_header

__all__ = ["NPZ_FORMAT", "write_program_npz", "read_program_npz", "is_npz"]

_HINT = "write it with 'perfcompose loggp convert PROGRAM.json PROGRAM.npz' (or write_program_npz)"


def write_program_npz(program: Program, path: Path) -> None:
    """Write ``program`` as an uncompressed .npz archive (fast to read back)."""
    arrays: dict[str, np.ndarray] = {"format": np.array(NPZ_FORMAT), "P": np.array(program.P, dtype=np.int64),
                                     "unit": np.array(program.unit or "")}
    kinds = []
    for k, s in enumerate(program.steps):
        if isinstance(s, CompStep):
            kinds.append(0)
            arrays[f"durations_{k}"] = np.asarray(s.durations, dtype=np.float64)
        else:
            assert isinstance(s, CommStep)
            kinds.append(1)
            narrow = np.int32 if program.P < 2 ** 31 else np.int64
            arrays[f"src_{k}"] = s.src.astype(narrow)
            arrays[f"dst_{k}"] = s.dst.astype(narrow)
            arrays[f"nbytes_{k}"] = np.asarray(s.nbytes, dtype=np.float64)
            arrays[f"order_{k}"] = s.order.astype(np.int64)
    arrays["kinds"] = np.asarray(kinds, dtype=np.int8)
    with open(path, "wb") as fh:
        np.savez(fh, **arrays)  # type: ignore[arg-type]


class _Archive:
    """The arrays of an .npz archive by name, each read at its offset in the file where it is
    stored uncompressed in NumPy's plain header form (its CRC checked), else by NumPy."""

    def __init__(self, path: Path) -> None:
        self._zip = zipfile.ZipFile(path)
        self._fh: BufferedReader = open(path, "rb")
        self.files = {n[:-4] for n in self._zip.namelist() if n.endswith(".npy")}

    def __enter__(self) -> _Archive:
        return self

    def __exit__(self, *exc: object) -> None:
        self._fh.close()
        self._zip.close()

    def __getitem__(self, name: str) -> np.ndarray:
        info = self._zip.getinfo(name + ".npy")
        if info.compress_type == zipfile.ZIP_STORED:
            array = self._stored(info)
            if array is not None:
                return array
        with self._zip.open(info) as member:
            return np.lib.format.read_array(member, allow_pickle=False)

    def _stored(self, info: zipfile.ZipInfo) -> np.ndarray | None:
        fh = self._fh
        fh.seek(info.header_offset)
        local = fh.read(30)
        if len(local) != 30 or local[:4] != b"PK\x03\x04":
            raise zipfile.BadZipFile(f"bad local header of {info.filename}")
        name_len, extra_len = struct.unpack("<HH", local[26:30])
        fh.seek(info.header_offset + 30 + name_len + extra_len)
        magic = fh.read(10)
        if magic[:6] != b"\x93NUMPY" or magic[6] not in (1, 2, 3):
            return None
        if magic[6] == 1:
            size, head = struct.unpack("<H", magic[8:10])[0], magic
        else:
            more = fh.read(2)
            size, head = struct.unpack("<I", magic[8:10] + more)[0], magic + more
        header = fh.read(size)
        parsed = npy_header(header)
        if parsed is None or np.dtype(parsed[0]).hasobject:
            return None
        array = np.empty(parsed[1], np.dtype(parsed[0]))
        data = memoryview(array.reshape(-1).view(np.uint8))  # type: ignore[arg-type]
        if fh.readinto(data) != data.nbytes or len(head) + size + data.nbytes != info.file_size:
            raise EOFError(f"{info.filename} is cut short")
        if zlib.crc32(data, zlib.crc32(header, zlib.crc32(head))) != info.CRC:
            raise zipfile.BadZipFile(f"bad CRC-32 for file {info.filename!r}")
        return array


def read_program_npz(path: Path | str) -> Program:
    """Read a program written by :func:`write_program_npz`."""
    path = Path(path)
    try:
        archive = _Archive(path)
    except OSError as exc:
        raise InputError(f"cannot read the program: {exc.strerror or exc}", path=path) from None
    except (ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise InputError(f"not a LogGP program archive: {exc}", path=path, hint=_HINT) from None
    with archive:
        def get(name: str, what: str) -> np.ndarray:
            if name not in archive.files:
                raise InputError(f"the archive has no array {name!r} ({what})", path=path, hint=_HINT)
            try:
                return archive[name]
            except (ValueError, OSError, zipfile.BadZipFile, EOFError) as exc:
                raise InputError(f"array {name!r} cannot be read: {exc}", path=path, hint=_HINT) from None

        fmt = get("format", "the format name")
        if fmt.shape != () or str(fmt) != NPZ_FORMAT:
            raise InputError(f"format {str(fmt)[:60]!r} is not {NPZ_FORMAT!r}", path=path, hint=_HINT)
        P_arr = get("P", "the number of processors")
        if P_arr.shape != () or P_arr.dtype.kind not in "iu" or int(P_arr) < 1:
            raise InputError("P must be one integer, at least 1", path=path)
        P = int(P_arr)
        unit = str(get("unit", "the time unit")) if "unit" in archive.files else ""
        kinds = get("kinds", "the kind of every step")
        if kinds.ndim != 1 or kinds.dtype.kind not in "iu" or not np.isin(kinds, (0, 1)).all():
            raise InputError("'kinds' must list 0 (computation) or 1 (communication) per step", path=path)
        steps: list[CompStep | CommStep] = []
        for k, kind in enumerate(kinds.tolist()):
            where = f"step {k}"
            if kind == 0:
                d = get(f"durations_{k}", f"{where}'s durations")
                if d.shape != (P,) or d.dtype.kind not in "fiu" or not np.all(np.isfinite(d)) or (d < 0).any():
                    raise InputError(f"{where}: durations_{k} must be {P} finite, non-negative numbers", path=path)
                steps.append(CompStep.of(d.astype(np.float64)))
                continue
            arrs = [get(f"{name}_{k}", f"{where}'s messages") for name in ("src", "dst", "nbytes", "order")]
            M = arrs[0].shape[0] if arrs[0].ndim == 1 else -1
            for name, a in zip(("src", "dst", "nbytes", "order"), arrs):
                if a.ndim != 1 or a.shape[0] != M or a.dtype.kind not in ("fiu" if name == "nbytes" else "iu"):
                    raise InputError(f"{where}: {name}_{k} must be a vector of {max(M, 0)} "
                                     f"{'numbers' if name == 'nbytes' else 'integers'}", path=path)
            try:
                steps.append(CommStep.from_arrays(P, arrs[0], arrs[1], arrs[2], arrs[3]))
            except InputError as exc:
                raise InputError(f"{where}: {exc.reason}", path=path, hint=exc.hint) from None
    try:
        return Program(P, tuple(steps), unit=unit)
    except InputError as exc:
        raise InputError(exc.reason, path=path, hint=exc.hint) from None
