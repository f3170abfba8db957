"""The traces the MPI tracer (``pctrace.c``) writes, read back with NumPy.

A run traced into a folder holds, per rank R, ``trace.R.bin`` (a 24-byte header, then one
record per MPI call: :data:`RECORD`) and ``comms.R.txt`` (each communicator the rank used: its
id and its members' world ranks). :func:`read_traces` checks that every rank of the run is there
and that every trace runs from MPI_Init to MPI_Finalize; a trace that does not is a located error.
A record of calls that only poll (``probe``, ``test``, ``wait_none``) stands for a run of them:
``bytes`` holds the nanoseconds spent inside them, ``request`` their number.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import Path

import numpy as np

from perfcompose.errors import InputError

__all__ = ["RECORD", "MAGIC", "HEADER", "RankTrace", "call_names", "call_number", "check_span", "describe",
           "read_traces"]

MAGIC = b"PCTRACE2"
HEADER = 24  #: the magic, then int32 rank, size, record size, reserved
RECORD = np.dtype([("call", "<i4"), ("peer", "<i4"), ("tag", "<i4"), ("comm", "<i4"), ("bytes", "<i8"),
                   ("request", "<i8"), ("t0", "<f8"), ("t1", "<f8")])
_RERUN = "trace the program again with 'perfcompose loggp trace'"


@cache
def call_names() -> tuple[str, ...]:
    """The tracer's call names in the order of its ``enum call`` (``init``, ``finalize``, ``send``, ...)."""
    source = files("perfcompose.loggp.trace").joinpath("pctrace.c").read_text()
    body = re.search(r"enum call \{(.*?)\};", source, re.S)
    assert body is not None, "pctrace.c declares enum call"
    return tuple(n.strip().removeprefix("CALL_").lower() for n in body[1].split(",") if n.strip())


def call_number(name: str) -> int:
    """The number the tracer writes for the call ``name``."""
    return call_names().index(name)


#: how an error names a call: the MPI function the record comes from
_MPI_NAME = {"done": "MPI_Wait/Test", "sendrecv_send": "MPI_Sendrecv", "sendrecv_recv": "MPI_Sendrecv",
             "probe": "MPI_Probe", "test": "MPI_Test", "wait_none": "MPI_Waitany"}


@dataclass(frozen=True, eq=False)
class RankTrace:
    """One rank's trace: its records in call order and its communicators (id -> world ranks)."""

    rank: int
    size: int
    records: np.ndarray
    comms: dict[int, tuple[int, ...]]
    path: Path


def describe(trace: RankTrace, i: int) -> str:
    """``rank 1, call 57 (MPI_Recv, peer 0, tag 5, 8000 B)``: a record as an error names it."""
    r = trace.records[i]
    name = call_names()[int(r["call"])] if 0 <= int(r["call"]) < len(call_names()) else f"#{int(r['call'])}"
    what = _MPI_NAME.get(name, "MPI_" + name.capitalize())
    if int(r["peer"]) >= 0:
        what += f", peer {int(r['peer'])}, tag {int(r['tag'])}"
    return f"rank {trace.rank}, call {i} ({what}, {int(r['bytes'])} B)"


def _comms(path: Path, rank: int) -> dict[int, tuple[int, ...]]:
    try:
        lines = path.read_text().splitlines()
    except OSError:
        raise InputError(f"rank {rank}'s communicators are missing", path=path,
                         hint="the rank did not reach MPI_Finalize; " + _RERUN) from None
    out = {}
    for k, line in enumerate(lines):
        try:
            first, *members = (int(w) for w in line.split())
        except ValueError:
            raise InputError("cannot read this line of communicators", path=path, line=k + 1,
                             source_line=line, hint=_RERUN) from None
        out[first] = tuple(members)
    return out


def _read_one(path: Path) -> RankTrace:
    data = path.read_bytes()
    if len(data) < HEADER or data[:8] != MAGIC:
        raise InputError("not a trace of perfcompose's MPI tracer", path=path, hint=_RERUN)
    rank, size, width, _ = np.frombuffer(data, "<i4", 4, 8).tolist()
    if width != RECORD.itemsize:
        raise InputError(f"records of {width} bytes, not {RECORD.itemsize}: written by another tracer version",
                         path=path, hint=_RERUN)
    body = len(data) - HEADER
    whole = body // RECORD.itemsize
    records = np.frombuffer(data, RECORD, whole, HEADER)
    trace = RankTrace(rank, size, records, {}, path)
    if body % RECORD.itemsize:
        last = f" after {describe(trace, whole - 1)}" if whole else ""
        raise InputError(f"rank {rank}'s trace is cut off{last}", path=path, hint=_RERUN)
    check_span(trace, _RERUN)
    return RankTrace(rank, size, records, _comms(path.with_name(f"comms.{rank}.txt"), rank), path)


def check_span(trace: RankTrace, rerun: str) -> None:
    """Refuse a rank's trace that does not run from MPI_Init to MPI_Finalize (``rerun``: how to trace again)."""
    records, rank = trace.records, trace.rank
    if not len(records) or int(records[0]["call"]) != call_number("init"):
        raise InputError(f"rank {rank}'s trace does not start with MPI_Init", path=trace.path, hint=rerun)
    if int(records[-1]["call"]) != call_number("finalize"):
        raise InputError(f"rank {rank}'s trace ends at {describe(trace, len(records) - 1)}, before MPI_Finalize",
                         path=trace.path, hint="the rank stopped early or its trace was cut; " + rerun)


def read_traces(folder: Path) -> tuple[RankTrace, ...]:
    """Every rank's trace in ``folder``, in rank order; a missing, cut or foreign one is an error."""
    paths = sorted(folder.glob("trace.*.bin"))
    if not paths:
        raise InputError("no traces (trace.RANK.bin) here", path=folder, hint=_RERUN)
    traces = {t.rank: t for t in map(_read_one, paths)}
    size = next(iter(traces.values())).size
    for t in traces.values():
        if t.size != size:
            raise InputError(f"rank {t.rank}'s trace is of a run of {t.size} ranks, rank "
                             f"{next(iter(traces))}'s of {size}", path=t.path, hint="keep one run's traces per folder")
    missing = [r for r in range(size) if r not in traces]
    if missing:
        raise InputError(f"rank {missing[0]}'s trace is missing (trace.{missing[0]}.bin): {len(traces)} of the "
                         f"run's {size} ranks are here", path=folder, hint=_RERUN)
    return tuple(traces[r] for r in range(size))
