"""Traces written by hand, in the tracer's own file format, for the trace tests."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from perfcompose.loggp.trace.records import HEADER, MAGIC, RECORD, RankTrace, call_number


def records(calls: list[tuple]) -> np.ndarray:
    """Records from ``(call, t0_us, t1_us, peer, tag, bytes, request, comm)`` tuples (trailing
    fields may be left out); the trace begins with MPI_Init (0 to 1 us)."""
    rows = [("init", 0, 1), *calls]
    out = np.zeros(len(rows), RECORD)
    for k, row in enumerate(rows):
        name, t0, t1, *rest = row
        peer, tag, nbytes, request, comm = [*rest, *[-2, 0, 0, 0, 0][len(rest):]]
        out[k] = (call_number(name), peer, tag, comm, nbytes, request, t0 * 1e-6, t1 * 1e-6)
    return out


def rank_trace(rank: int, size: int, calls: list[tuple], comms: dict[int, tuple[int, ...]] | None = None) -> RankTrace:
    return RankTrace(rank, size, records(calls), comms or {0: tuple(range(size))}, Path(f"trace.{rank}.bin"))


def write_trace(folder: Path, trace: RankTrace, *, cut: int = 0) -> None:
    """Write ``trace`` as the tracer does (``cut`` bytes short)."""
    head = MAGIC + np.array([trace.rank, trace.size, RECORD.itemsize, 0], "<i4").tobytes()
    assert len(head) == HEADER
    data = head + trace.records.tobytes()
    (folder / f"trace.{trace.rank}.bin").write_bytes(data[:len(data) - cut])
    (folder / f"comms.{trace.rank}.txt").write_text(
        "".join(f"{k} {' '.join(map(str, m))}\n" for k, m in trace.comms.items()))
