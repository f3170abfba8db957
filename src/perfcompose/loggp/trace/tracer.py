"""The MPI tracer built and run: ``pctrace.c`` compiled with the MPI's compiler wrapper, once per
MPI (kept in the cache folder), and preloaded into the ranks of a command. A traced run's folder
holds the ranks' traces, ``run.json`` (the command, its wall time, the span measured from the
traces) and ``schedule.goal`` (the run as a GOAL schedule, times in ns).

The wrapper is the one that belongs to the command's ``mpiexec``: beside it (``mpicc``), or named
like it (``mpiexec.openmpi`` -> ``mpicc.openmpi``); else the one beside this Python (the MPICH
wheel of the ``mpi`` extra puts one there), else ``mpicc`` on PATH.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

from platformdirs import user_cache_dir

from perfcompose.errors import InputError, PerfcomposeError
from perfcompose.loggp.goal.schedule import write_goal
from perfcompose.loggp.trace.options import TraceOptions
from perfcompose.loggp.trace.otf2_reader import read_otf2
from perfcompose.loggp.trace.protocol import rendezvous
from perfcompose.loggp.trace.records import read_traces
from perfcompose.loggp.trace.schedule import TracedSchedule, trace_schedule

__all__ = ["TracedRun", "find_mpicc", "run_traced", "RUN_FILE", "SCHEDULE_FILE", "trace_program", "schedule_folder"]

RUN_FILE, SCHEDULE_FILE = "run.json", "schedule.goal"
_INSTALL = ("install an MPI with its compiler wrapper (pip install 'perfcompose[mpi]', "
            "or apt-get install libopenmpi-dev)")


@dataclass(frozen=True)
class TracedRun:
    """A command run under the tracer: its exit status and wall time (seconds, launch included)."""

    command: tuple[str, ...]
    returncode: int
    wall: float
    mpicc: str


def _beside(launcher: str) -> str | None:
    """The compiler wrapper that belongs to the launcher ``launcher`` (first word of the command)."""
    found = shutil.which(launcher)
    if found is None:
        return None
    path = Path(found)
    suffix = path.name.partition(".")[2]  # mpiexec.openmpi -> openmpi
    names = ([f"mpicc.{suffix}"] if suffix and suffix not in ("hydra", "gforker") else []) + ["mpicc"]
    return sibling(path, names) or shutil.which(names[0])


def sibling(path: Path, names: Sequence[str]) -> str | None:
    """The first of ``names`` (other than ``path``'s own) beside ``path`` or beside the file it links to."""
    folders = dict.fromkeys((path.parent, path.resolve().parent))
    return next((str(f / n) for f in folders for n in names if n != path.name and (f / n).exists()), None)


def beside_python(name: str) -> str | None:
    """The program ``name`` beside this Python (the MPICH wheel of the ``mpi`` extra puts its own there), else on
    PATH; None where neither has it."""
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else shutil.which(name)


def find_mpicc(command: Sequence[str], given: str | None = None) -> str:
    """The MPI C compiler wrapper for ``command`` (see the module's docstring)."""
    if given:
        return given
    launcher = command[0] if command else ""
    found = (_beside(launcher) if "mpi" in Path(launcher).name else None) or beside_python("mpicc")
    if found is not None:
        return found
    raise InputError("no MPI compiler wrapper (mpicc) beside the command's mpiexec, this Python or on PATH",
                     hint=_INSTALL + "; or name one with --mpicc")


def build_cached(mpicc: str, sources: Sequence[Traversable], name: str, flags: Sequence[str], what: str,
                 failed: type[PerfcomposeError], cannot_run: str, hint: str) -> Path:
    """``sources[0]`` (which includes the others) built by ``mpicc`` with ``flags`` into the cache folder as ``name``
    (its ``{key}`` a hash of the wrapper, its MPI and the sources), once per wrapper, MPI and source; ``what`` names the
    result where the build fails (a ``failed``), ``cannot_run`` (formatted with the OS's ``reason``) and ``hint`` where
    the wrapper does not run."""
    try:
        show = subprocess.run([mpicc, "-show"], capture_output=True, text=True, timeout=60).stdout
    except OSError as exc:
        raise InputError(cannot_run.format(reason=exc.strerror), hint=hint) from None
    key = hashlib.sha256("\0".join([str(Path(shutil.which(mpicc) or mpicc).resolve()), show,
                                    *(s.read_text() for s in sources)]).encode()).hexdigest()
    chosen = os.environ.get("PERFCOMPOSE_CACHE_DIR", "").strip()  # the cache folder: this one, else the user's
    folder = chosen if chosen and chosen.lower() not in ("off", "0", "no") else user_cache_dir("perfcompose")
    built = Path(folder) / "tracer" / name.format(key=key[:20])
    if built.exists():
        return built
    built.parent.mkdir(parents=True, exist_ok=True)
    partial = built.with_name(f"{built.name}.{os.getpid()}.tmp")
    res = subprocess.run([mpicc, *flags, "-o", str(partial), str(sources[0])], capture_output=True, text=True,
                         timeout=300)
    if res.returncode != 0:
        partial.unlink(missing_ok=True)
        raise failed(f"{mpicc} could not build {what}:\n{res.stderr.strip()[-2000:]}")
    partial.replace(built)
    return built


def run_traced(command: Sequence[str], out: Path, *, mpicc: str | None = None,
               buffer: int = TraceOptions.buffer) -> TracedRun:
    """Run ``command`` (an ``mpiexec ...`` line) with the tracer preloaded (built once per compiler wrapper, MPI
    and source), traces into ``out``."""
    if not command:
        raise InputError("no command to trace", hint="perfcompose loggp trace -o DIR -- mpiexec -n 4 PROGRAM ARGS")
    wrapper = find_mpicc(command, mpicc)
    here = files("perfcompose.loggp.trace")
    lib = str(build_cached(wrapper, [here / "pctrace.c", here / "pctrace_calls.h"], "libpctrace-{key}.so",
                           ["-shared", "-fPIC", "-O2"], "the tracer", PerfcomposeError,
                           f"cannot run the MPI compiler wrapper {wrapper}: {{reason}}", _INSTALL))
    out.mkdir(parents=True, exist_ok=True)
    for old in (*out.glob("trace.*.bin"), *out.glob("comms.*.txt")):
        old.unlink()
    preload = " ".join(p for p in (lib, os.environ.get("LD_PRELOAD", "")) if p)
    env = {**os.environ, "LD_PRELOAD": preload, "PERFCOMPOSE_TRACE_DIR": str(out.resolve()),
           "PERFCOMPOSE_TRACE_BUFFER": str(buffer)}
    t0 = time.perf_counter()
    try:
        res = subprocess.run(list(command), env=env)
    except OSError as exc:
        raise InputError(f"cannot run {command[0]}: {exc.strerror}", hint="give the command after --, "
                         "e.g. -- mpiexec -n 4 ./program") from None
    return TracedRun(tuple(command), res.returncode, time.perf_counter() - t0, wrapper)


def schedule_folder(folder: Path, algorithms: Mapping[str, str] | None = None, *, write: bool = True,
                    eager: float | None = TraceOptions.eager) -> TracedSchedule:
    """The schedule of the traces in ``folder`` (messages above ``eager`` bytes by rendezvous),
    also written there as GOAL text (with ``write``); ``folder`` may instead be the anchor file of
    a Score-P OTF2 trace (``*.otf2``), the schedule then written beside it."""
    otf2 = folder.suffix == ".otf2"
    traces = read_otf2(folder) if otf2 else read_traces(folder)
    traced = trace_schedule(traces, algorithms)
    if eager is not None:
        schedule, src = rendezvous(traced.schedule, eager)
        traced = dataclasses.replace(traced, schedule=schedule, origin=traced.origin[src])
    if write:
        write_goal(traced.schedule, folder.with_name(SCHEDULE_FILE) if otf2 else folder / SCHEDULE_FILE)
    return traced


def trace_program(command: Sequence[str], out: Path, *, algorithms: Mapping[str, str] | None = None,
                  mpicc: str | None = None, buffer: int = TraceOptions.buffer,
                  eager: float | None = TraceOptions.eager) -> tuple[TracedRun, TracedSchedule]:
    """Run ``command`` under the tracer into ``out`` and write its run record and schedule there."""
    run = run_traced(command, out, mpicc=mpicc, buffer=buffer)
    if run.returncode != 0:
        raise PerfcomposeError(f"the traced command exited with status {run.returncode}: {' '.join(command)}")
    traced = schedule_folder(out, algorithms, eager=eager)
    record = {"command": list(run.command), "wall_s": run.wall, "measured_s": traced.measured,
              "ranks": traced.schedule.num_ranks, "mpicc": run.mpicc, "operations": traced.schedule.num_ops}
    (out / RUN_FILE).write_text(json.dumps(record, indent=1) + "\n")
    return run, traced

