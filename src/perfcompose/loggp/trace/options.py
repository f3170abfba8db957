"""The options of ``perfcompose loggp trace`` and ``loggp check``, declared once."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from perfcompose.option_fields import option

__all__ = ["TraceOptions"]


@dataclass(frozen=True)
class TraceOptions:
    """Where a traced run goes, how it is built and how its collectives are expanded."""

    out: Path = option(Path("trace"), "Folder for the traces, run.json and schedule.goal.", flag="--out")
    check: bool = option(False, "Also simulate the schedule (--params or --L --o --g --G) and set its makespan "
                                "beside the measured time.")
    algorithm: list[str] | None = option(None, "COLLECTIVE=ALGORITHM, e.g. allreduce=reduce-bcast (repeatable): "
                                               "bcast, reduce, gather, scatter: binomial|linear; allreduce: "
                                               "recursive-doubling|reduce-bcast; barrier: dissemination; "
                                               "allgather: ring; alltoall: pairwise; reduce_scatter: pairwise; "
                                               "scan: recursive-doubling.")
    mpicc: str | None = option(None, "MPI compiler wrapper that builds the tracer (default: the one of the "
                                     "command's mpiexec, else beside this Python, else on PATH).")
    buffer: int = option(65536, "Records each rank keeps in memory before it appends them to its trace.",
                         minimum=16)
