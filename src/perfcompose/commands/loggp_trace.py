"""``perfcompose loggp trace`` (an MPI program run under the tracer, its schedule written) and
``perfcompose loggp check`` (a traced run's schedule simulated beside the measured time)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from perfcompose.commands.common import console, err_console, user_errors
from perfcompose.loggp.options import LogGOPSimOptions, LogGPFiles, LogGPParameters
from perfcompose.loggp.trace.options import TraceOptions
from perfcompose.option_fields import cli_option, default_of, help_of

__all__ = ["trace", "check"]


def _algorithms(items: list[str] | None) -> dict[str, str]:
    from perfcompose.errors import InputError

    out = {}
    for item in items or []:
        name, eq, alg = item.partition("=")
        if not eq or not name or not alg:
            raise InputError(f"--algorithm {item}: expected COLLECTIVE=ALGORITHM", hint="e.g. allreduce=reduce-bcast")
        out[name.strip()] = alg.strip()
    return out


def _params(params_file: Path | None, L: float | None, o: float | None, g: float | None, G: float | None) -> Any:
    from perfcompose.loggp.params import given_params

    return given_params(params_file, {"L": L, "o": o, "g": g, "G": G},
                        spell=lambda names: " ".join(f"--{k}" for k in names),
                        hint="give --params FILE (from 'perfcompose loggp calibrate') or --L --o --g --G [us]")


def _show_check(traced: Any, params: Any, S: float | None) -> None:
    from perfcompose.loggp.options import LOGGOPSIM_S
    from perfcompose.loggp.trace.check import check_schedule

    c = check_schedule(traced, params, S=LOGGOPSIM_S if S is None else S)
    unit = params.unit or "us"
    console.print(f"LogGP L={params.L:.4g} {unit}, o={params.o:.4g} {unit}, g={params.g:.4g} {unit}, "
                  f"G={params.G:.4g} {unit}/B; LogGOPSim rules, {c.ranks} ranks", highlight=False)
    console.print(f"measured  {c.measured * 1e3:10.3f} ms  (first MPI_Init end to last MPI_Finalize start)",
                  highlight=False)
    console.print(f"simulated {c.simulated * 1e3:10.3f} ms  (ratio {c.ratio:.3f})", highlight=False)
    console.print(f"rank {c.last} ends the simulated run; {c.outside_calc * 100:.1f} % of its time is "
                  "communication and waiting", highlight=False)


@user_errors
def trace(command: list[str] = typer.Argument(..., help="The MPI command, after --: mpiexec -n 4 PROGRAM ARGS."),
          out: Path = typer.Option(default_of(TraceOptions, "out"), "--out", "-o", help=help_of(TraceOptions, "out")),
          check: bool = cli_option(TraceOptions, "check"),
          algorithm: list[str] | None = cli_option(TraceOptions, "algorithm"),
          mpicc: str | None = cli_option(TraceOptions, "mpicc"),
          buffer: int = cli_option(TraceOptions, "buffer"),
          params_file: Path | None = cli_option(LogGPFiles, "params"),
          L: float | None = cli_option(LogGPParameters, "L"),
          o: float | None = cli_option(LogGPParameters, "o"),
          g: float | None = cli_option(LogGPParameters, "g"),
          G: float | None = cli_option(LogGPParameters, "G"),
          S: float | None = cli_option(LogGOPSimOptions, "S"),
          ) -> None:
    """The tracer is built once per MPI with its compiler wrapper and preloaded into every rank.
    OUT receives each rank's trace, run.json (the command's wall time and the span measured from
    the traces) and schedule.goal (the run as GOAL text, times in ns: computation between calls as
    calc, collectives as point-to-point algorithms). Parameters given one by one are in us.
    """
    from perfcompose.loggp.trace.folder import trace_program

    algorithms = _algorithms(algorithm)
    params = _params(params_file, L, o, g, G) if check else None
    run, traced = trace_program(command, out, algorithms=algorithms, mpicc=mpicc, buffer=buffer)
    s = traced.schedule
    err_console.print(f"{s.num_ranks} ranks traced in {run.wall:.3f} s (wall, launch included); "
                      f"{s.num_ops:,} operations written to {out / 'schedule.goal'}")
    if params is not None:
        _show_check(traced, params, S)


@user_errors
def check(folder: Path = typer.Argument(..., help="Folder of a traced run (from 'perfcompose loggp trace')."),
          algorithm: list[str] | None = cli_option(TraceOptions, "algorithm"),
          params_file: Path | None = cli_option(LogGPFiles, "params"),
          L: float | None = cli_option(LogGPParameters, "L"),
          o: float | None = cli_option(LogGPParameters, "o"),
          g: float | None = cli_option(LogGPParameters, "g"),
          G: float | None = cli_option(LogGPParameters, "G"),
          S: float | None = cli_option(LogGOPSimOptions, "S"),
          ) -> None:
    """The schedule is built again from the traces (so --algorithm may choose other collectives)
    and written to FOLDER/schedule.goal. Parameters given one by one are in us."""
    from perfcompose.loggp.trace.folder import schedule_folder

    params = _params(params_file, L, o, g, G)
    _show_check(schedule_folder(folder, _algorithms(algorithm)), params, S)
