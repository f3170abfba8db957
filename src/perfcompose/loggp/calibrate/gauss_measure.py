"""The blocked Gaussian elimination of section 5 measured: :mod:`.gauss_mpi` run on local MPI ranks
(``mpiexec``), its record read back. This process starts the ranks and imports no MPI itself."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from perfcompose.loggp.calibrate.parameters import run_mpi

__all__ = ["measure"]


def measure(n: int, block_sizes: list[int], *, layouts: tuple[str, ...] = ("row-cyclic", "diagonal"), reps: int = 3,
            ranks: int | None = None, mpiexec: str | None = None, timeout: float = 1800,
            progress=None) -> dict:  # noqa: ANN001
    """Run :func:`.gauss_mpi.main` on ``ranks`` local MPI ranks (default: one per core) and return its
    record: per block size and layout the measured total and computation time [us]."""
    P = ranks or os.cpu_count() or 2
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "gauss.json"
        args = ["--n", str(n), "--blocks", ",".join(map(str, block_sizes)), "--layouts", ",".join(layouts),
                "--reps", str(reps), "--out", str(out)]
        return run_mpi("perfcompose.loggp.calibrate.gauss_mpi", args, out, ranks=P, mpiexec=mpiexec, timeout=timeout,
                       progress=progress)
