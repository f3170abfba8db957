"""The calibration probe in C (``probe.c``) for the MPI a program runs on: built once per MPI with
that MPI's compiler wrapper (kept beside the tracer in the cache folder) and run on two ranks by
the mpiexec that belongs to the wrapper (``mpicc.openmpi`` -> ``mpiexec.openmpi``, ``mpicc`` ->
the ``mpiexec`` beside it), so that L, o, g and G describe the MPI the program itself uses."""
from __future__ import annotations

import shutil
from collections.abc import Callable
from importlib.resources import files
from pathlib import Path
from typing import Any

from perfcompose.errors import InputError
from perfcompose.loggp.calibrate.parameters import CalibrationError, CalibrationOptions, run_ranks
from perfcompose.loggp.trace.tracer import build_cached, sibling

__all__ = ["build_probe", "mpiexec_for", "run_c_probe"]

_SOURCE = "probe.c"
_INSTALL = "install an MPI with its compiler wrapper (apt-get install libopenmpi-dev), or name it with --mpicc"


def mpiexec_for(mpicc: str) -> str:
    """The launcher of the MPI whose compiler wrapper is ``mpicc``."""
    found = shutil.which(mpicc)
    if found is None:
        raise InputError(f"--mpicc {mpicc}: no such compiler wrapper", hint=_INSTALL)
    path = Path(found)
    near = sibling(path, [path.name.replace("mpicc", "mpiexec", 1), path.name.replace("mpicc", "mpirun", 1)])
    if near is None:
        raise InputError(f"no mpiexec beside the compiler wrapper {found}", hint="name it with --mpiexec")
    return near


def build_probe(mpicc: str) -> Path:
    """``probe.c`` built by ``mpicc`` (once per wrapper, MPI and source)."""
    return build_cached(mpicc, [files("perfcompose.loggp.calibrate").joinpath(_SOURCE)], "probe-{key}", ["-O2"],
                        "the calibration probe", CalibrationError, f"--mpicc {mpicc}: cannot run it ({{reason}})",
                        _INSTALL)


def run_c_probe(out: Path, o: CalibrationOptions, *, timeout: float = 600,
                progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Build ``probe.c`` with ``o.mpicc``, run it on two local ranks and return its raw figures (as
    :mod:`.mpi_probe` writes them, with ``"probe": "C"``)."""
    assert o.mpicc is not None, "the C probe is built by an MPI compiler wrapper"
    exe = build_probe(o.mpicc)
    launcher = o.mpiexec or mpiexec_for(o.mpicc)
    args = ["--out", str(out), "--reps", str(o.reps), "--train", str(o.train), "--sizes", o.sizes]
    return run_ranks([launcher, "-n", "2", str(exe), *args], out, timeout=timeout, progress=progress,
                     what=f"C probe ({Path(o.mpicc).name}, {Path(launcher).name})")
