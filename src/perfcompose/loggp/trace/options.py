"""The options of ``perfcompose loggp trace``, ``loggp check`` and ``loggp whatif``, declared once."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from perfcompose.option_fields import option

__all__ = ["TraceOptions", "WhatIfOptions"]


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
    eager: float | None = option(None, "Write messages above this many bytes into the schedule as a rendezvous (a "
                                       "1-byte request to send and clear to send before the data), as the MPI "
                                       "library sends them above its eager limit (Open MPI over shared memory: "
                                       "4096; ompi_info --param btl vader --level 9); unlike --S, LogGOPSim then "
                                       "simulates the same handshake. Default: every message at once, as Schedgen "
                                       "writes them.", minimum=0)
    buffer: int = option(65536, "Records each rank keeps in memory before it appends them to its trace.",
                         minimum=16)


@dataclass(frozen=True)
class WhatIfOptions:
    """How far each LogGP parameter is scaled, which slowdowns are looked for, and another network."""

    low: float = option(0.1, "Smallest factor each of L, o, g and G is scaled by.", minimum=1e-6)
    high: float = option(100.0, "Largest factor each of L, o, g and G is scaled by.", minimum=1.0)
    points: int = option(31, "Factors from --low to --high, evenly spaced on a log scale (and 1).", minimum=2)
    slowdown: list[float] | None = option(None, "Slowdown in % to find the tolerated factor of each parameter "
                                                "for (repeatable; default 1, 5 and 10).")
    network: Path | None = option(None, "Parameter file of another network (as loggp calibrate writes it) to "
                                        "simulate the same schedule on.")
    plot: Path | None = option(None, "Write a plot of the sweeps (and the other network) here.")
