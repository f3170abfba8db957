"""A traced run's folder: the ranks' traces, ``run.json`` (the command, its wall time, the span
measured from the traces) and ``schedule.goal`` (the run as a GOAL schedule, times in ns)."""
from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from perfcompose.loggp.goal.schedule import write_goal
from perfcompose.loggp.trace.options import TraceOptions
from perfcompose.loggp.trace.otf2_reader import read_otf2
from perfcompose.loggp.trace.protocol import rendezvous
from perfcompose.loggp.trace.records import read_traces
from perfcompose.loggp.trace.schedule import TracedSchedule, trace_schedule
from perfcompose.loggp.trace.tracer import TracedRun, TracerError, run_traced

__all__ = ["RUN_FILE", "SCHEDULE_FILE", "trace_program", "schedule_folder"]

RUN_FILE, SCHEDULE_FILE = "run.json", "schedule.goal"


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
        raise TracerError(f"the traced command exited with status {run.returncode}: {' '.join(command)}")
    traced = schedule_folder(out, algorithms, eager=eager)
    record = {"command": list(run.command), "wall_s": run.wall, "measured_s": traced.measured,
              "ranks": traced.schedule.num_ranks, "mpicc": run.mpicc, "operations": traced.schedule.num_ops}
    (out / RUN_FILE).write_text(json.dumps(record, indent=1) + "\n")
    return run, traced

