"""The calibration probe in C (``probe.c``) for the MPI a program runs on: built once per MPI with
that MPI's compiler wrapper (kept beside the tracer in the cache folder) and run on two ranks by
the mpiexec that belongs to the wrapper (``mpicc.openmpi`` -> ``mpiexec.openmpi``, ``mpicc`` ->
the ``mpiexec`` beside it), so that L, o, g and G describe the MPI the program itself uses."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from collections.abc import Callable
from importlib.resources import files
from pathlib import Path
from typing import Any

from perfcompose.errors import InputError
from perfcompose.loggp.calibrate.parameters import CalibrationError, CalibrationOptions, run_ranks
from perfcompose.loggp.trace.tracer import cache_folder

__all__ = ["build_probe", "mpiexec_for", "run_c_probe"]

_SOURCE = "probe.c"
_INSTALL = "install an MPI with its compiler wrapper (apt-get install libopenmpi-dev), or name it with --mpicc"


def mpiexec_for(mpicc: str) -> str:
    """The launcher of the MPI whose compiler wrapper is ``mpicc``."""
    found = shutil.which(mpicc)
    if found is None:
        raise InputError(f"--mpicc {mpicc}: no such compiler wrapper", hint=_INSTALL)
    path = Path(found)
    names = [path.name.replace("mpicc", "mpiexec", 1), path.name.replace("mpicc", "mpirun", 1)]
    for folder in dict.fromkeys((path.parent, path.resolve().parent)):
        for name in names:
            if name != path.name and (folder / name).exists():
                return str(folder / name)
    raise InputError(f"no mpiexec beside the compiler wrapper {found}", hint="name it with --mpiexec")


def build_probe(mpicc: str) -> Path:
    """``probe.c`` built by ``mpicc`` (once per wrapper, MPI and source)."""
    source = files("perfcompose.loggp.calibrate").joinpath(_SOURCE)
    try:
        show = subprocess.run([mpicc, "-show"], capture_output=True, text=True, timeout=60).stdout
    except OSError as exc:
        raise InputError(f"--mpicc {mpicc}: cannot run it ({exc.strerror})", hint=_INSTALL) from None
    key = hashlib.sha256("\0".join([str(Path(shutil.which(mpicc) or mpicc).resolve()), show,
                                    source.read_text()]).encode()).hexdigest()
    exe = cache_folder() / f"probe-{key[:20]}"
    if exe.exists():
        return exe
    exe.parent.mkdir(parents=True, exist_ok=True)
    partial = exe.with_name(f"{exe.name}.{os.getpid()}.tmp")
    res = subprocess.run([mpicc, "-O2", "-o", str(partial), str(source)], capture_output=True, text=True,
                         timeout=300)
    if res.returncode != 0:
        partial.unlink(missing_ok=True)
        raise CalibrationError(f"{mpicc} could not build the calibration probe:\n{res.stderr.strip()[-2000:]}")
    partial.replace(exe)
    return exe


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
