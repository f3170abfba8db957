"""``perfcompose loggp trace`` (an MPI program run under the tracer, its schedule written),
``perfcompose loggp check`` (a traced run's schedule simulated beside the measured time) and
``perfcompose loggp whatif`` (the same schedule over a sweep of L, o, g and G, and on another network)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfcompose.commands.common import (
    Table,
    bar_after,
    cli_command,
    console,
    err_console,
    json_option,
    progress,
    write_json,
)
from perfcompose.errors import InputError
from perfcompose.limits import check_steps
from perfcompose.loggp.options import LOGGOPSIM_S, LogGOPSimOptions, LogGPFiles, LogGPParameters
from perfcompose.loggp.params import convert_time, given_params, read_params
from perfcompose.loggp.trace.options import TraceOptions, WhatIfOptions
from perfcompose.option_fields import cli_option, option, shared


def _algorithms(items: list[str] | None) -> dict[str, str]:
    out = {}
    for item in items or []:
        name, eq, alg = item.partition("=")
        if not eq or not name or not alg:
            raise InputError(f"--algorithm {item}: expected COLLECTIVE=ALGORITHM", hint="e.g. allreduce=reduce-bcast")
        out[name.strip()] = alg.strip()
    return out


@dataclass(frozen=True)
class ScheduleCommand(LogGPParameters, LogGPFiles):
    """The options of every command that simulates a traced run's schedule: how its collectives are
    expanded, the LogGP parameters and LogGOPSim's rendezvous threshold."""

    algorithm: list[str] | None = shared(cli_option(TraceOptions, "algorithm"))
    eager: float | None = shared(cli_option(TraceOptions, "eager"))
    S: float | None = shared(cli_option(LogGOPSimOptions, "S"))


@dataclass(frozen=True)
class TraceCommand(ScheduleCommand, TraceOptions):
    command: list[str] = option(..., "The MPI command, after --: mpiexec -n 4 PROGRAM ARGS.", argument=True)
    out: Path = shared(cli_option(TraceOptions, "out", aliases=("-o",)))


@dataclass(frozen=True)
class CheckCommand(ScheduleCommand):
    folder: Path = option(..., "Folder of a traced run (from 'perfcompose loggp trace'), or the "
                               "anchor file of a Score-P trace (traces.otf2).", argument=True)


def _params(opts: ScheduleCommand, high: float = 1.0) -> Any:
    """The parameters given, each checked where it was given (its option, or the file) against
    what a simulation in ns can take, also once scaled by ``high`` (whatif's largest factor)."""
    from perfcompose.loggp.trace.whatif import check_range

    given = {k: getattr(opts, k) for k in "LogG"}
    params = given_params(opts.params, {k: check_range(k, v, "us", high, f"--{k}") for k, v in given.items()},
                          spell=lambda names: " ".join(f"--{k}" for k in names),
                          hint="give --params FILE (from 'perfcompose loggp calibrate') or --L --o --g --G [us]")
    for k, v in given.items():
        if v is None:
            check_range(k, getattr(params, k), params.unit or "us", high, f"{opts.params}: {k}")
    return params


def _show_check(traced: Any, params: Any, S: float | None) -> None:
    from perfcompose.loggp.trace.whatif import check_schedule

    c = check_schedule(traced, params, S=LOGGOPSIM_S if S is None else S)
    unit = params.unit or "us"
    console.print(f"LogGP L={params.L:.4g} {unit}, o={params.o:.4g} {unit}, g={params.g:.4g} {unit}, "
                  f"G={params.G:.4g} {unit}/B; LogGOPSim rules, {c.ranks} ranks", highlight=False)
    console.print(f"measured  {c.measured * 1e3:10.3f} ms  (first MPI_Init end to last MPI_Finalize start)",
                  highlight=False)
    console.print(f"simulated {c.simulated * 1e3:10.3f} ms  (ratio {c.ratio:.3f})", highlight=False)
    console.print(f"rank {c.last} ends the simulated run; {c.outside_calc * 100:.1f} % of its time is "
                  "communication and waiting", highlight=False)


@cli_command(TraceCommand)
def trace(opts: TraceCommand) -> None:
    """The tracer is built once per MPI with its compiler wrapper and preloaded into every rank.
    OUT receives each rank's trace, run.json (the command's wall time and the span measured from
    the traces) and schedule.goal (the run as GOAL text, times in ns: computation between calls as
    calc, collectives as point-to-point algorithms). Parameters given one by one are in us.
    """
    from perfcompose.loggp.trace.tracer import trace_program

    algorithms = _algorithms(opts.algorithm)
    params = _params(opts) if opts.check else None
    run, traced = trace_program(opts.command, opts.out, algorithms=algorithms, mpicc=opts.mpicc, buffer=opts.buffer,
                                eager=opts.eager)
    s = traced.schedule
    err_console.print(f"{s.num_ranks} ranks traced in {run.wall:.3f} s (wall, launch included); "
                      f"{s.num_ops:,} operations written to {opts.out / 'schedule.goal'}")
    if params is not None:
        _show_check(traced, params, opts.S)


@cli_command(CheckCommand)
def check(opts: CheckCommand) -> None:
    """The schedule is built again from the traces (so --algorithm may choose other collectives)
    and written to FOLDER/schedule.goal. Parameters given one by one are in us."""
    from perfcompose.loggp.trace.tracer import schedule_folder

    params = _params(opts)
    _show_check(schedule_folder(opts.folder, _algorithms(opts.algorithm), eager=opts.eager), params, opts.S)


def _per_byte(unit: str, name: str) -> str:
    return f"{unit}/B" if name == "G" else unit


def _tolerated(t: Any, unit: str) -> str:
    """A tolerance as text: the factor and the parameter's value then (for G, also the bandwidth)."""
    if t.factor is None:
        return "-"
    text = f"{t.factor:.3g}x ({t.value:.4g} {_per_byte(unit, t.parameter)}"
    if t.parameter == "G" and t.value > 0:
        text += f", {1e-9 / convert_time(t.value, unit, 's'):.3g} GB/s"
    return text + ")"


def _show_whatif(w: Any, high: float, network: Path | None) -> None:
    from perfcompose.loggp.trace.whatif import PARAMETERS

    p, unit = w.params, w.params.unit or "us"
    console.print(f"LogGP L={p.L:.4g} {unit}, o={p.o:.4g} {unit}, g={p.g:.4g} {unit}, G={p.G:.4g} {unit}/B; "
                  f"LogGOPSim rules; simulated makespan {w.base * 1e3:.3f} ms", highlight=False)
    sweep = Table("factor", *(f"{n} [ms]" for n in PARAMETERS),
                  title="Makespan, one parameter scaled, the others held")
    for k, f in enumerate(w.sweeps[0].factors):
        sweep.add_row(f"{f:.3g}", *(f"{s.makespans[k] * 1e3:.3f}" for s in w.sweeps))
    console.print(sweep)
    slowdowns = sorted({t.slowdown for t in w.tolerances})
    tol = Table("parameter", *(f"+{s * 100:g} %" for s in slowdowns),
                title=f"Factor (value) at which the run slows by (-: not within {high:g}x, or 0)")
    for name in PARAMETERS:
        tol.add_row(name, *(_tolerated(t, unit) for s in slowdowns for t in w.tolerances
                            if t.parameter == name and t.slowdown == s))
    console.print(tol)
    if w.other is not None and w.other_makespan is not None:
        o, u = w.other, w.other.unit or "us"
        console.print(f"{network}: L={o.L:.4g} {u}, o={o.o:.4g} {u}, g={o.g:.4g} {u}, G={o.G:.4g} {u}/B; "
                      f"simulated makespan {w.other_makespan * 1e3:.3f} ms ({w.other_makespan / w.base:.3f}x)",
                      highlight=False)


def _whatif_json(w: Any, ranks: int) -> dict[str, Any]:
    from dataclasses import asdict

    return {"ranks": ranks, "params": asdict(w.params), "makespan_s": w.base,
            "sweeps": [{"parameter": s.parameter, "factors": list(s.factors), "makespans_s": list(s.makespans)}
                       for s in w.sweeps],
            "tolerances": [{"parameter": t.parameter, "slowdown": t.slowdown, "factor": t.factor, "value": t.value,
                            "unit": _per_byte(w.params.unit or "us", t.parameter), "makespan_s": t.makespan}
                           for t in w.tolerances],
            "other": None if w.other is None else {"params": asdict(w.other), "makespan_s": w.other_makespan}}


@dataclass(frozen=True)
class WhatIfCommand(CheckCommand, WhatIfOptions):
    json_out: Path | None = shared(json_option("the makespan of every sweep point, the tolerances and the other "
                                               "network's makespan"))


@cli_command(WhatIfCommand)
def whatif(opts: WhatIfCommand) -> None:
    """The schedule is built once from the traces and simulated with each parameter scaled by
    each factor; the factor at which the run slows by each --slowdown is then found to 0.1 %.
    Parameters given one by one are in us."""
    from perfcompose.loggp.trace.tracer import schedule_folder
    from perfcompose.loggp.trace.whatif import check_range, sweep_factors, what_if

    if opts.high <= opts.low:
        raise InputError(f"--high {opts.high:g} must be above --low {opts.low:g}")
    params = _params(opts, opts.high)
    other = read_params(opts.network) if opts.network is not None else None
    if other is not None:
        for k in ("L", "o", "g", "G"):
            check_range(k, getattr(other, k), other.unit or "us", 1.0, f"--network {opts.network}: {k}")
    shares = [s / 100 for s in (opts.slowdown or [1.0, 5.0, 10.0])]
    if any(not 0 < s < 100 for s in shares):
        raise InputError("--slowdown takes a share in % above 0", hint="e.g. --slowdown 5")
    traced = schedule_folder(opts.folder, _algorithms(opts.algorithm), write=False, eager=opts.eager)
    # a simulation (of at least a thousand steps) per sweep point and per step of each tolerance's search (about 20)
    check_steps(4.0 * (opts.points + 20 * len(shares)) * max(traced.schedule.num_ops, 1000),
                f"{opts.points:,} sweep points x 4 parameters of a schedule of {traced.schedule.num_ops:,} operations "
                "(--points)")
    with bar_after(progress()) as report:
        w = what_if(traced, params, sweep_factors(opts.low, opts.high, opts.points), shares, other=other,
                    S=LOGGOPSIM_S if opts.S is None else opts.S, progress=report)
    _show_whatif(w, opts.high, opts.network)
    if opts.plot is not None:
        from perfcompose.report.figures import save
        from perfcompose.report.loggp import whatif_figure

        title = f"{opts.folder.name}: {traced.schedule.num_ranks} ranks, base makespan {w.base * 1e3:.4g} ms"
        save(whatif_figure(w, title=title, other=opts.network.name if opts.network else ""), opts.plot)
        console.print(f"plot written to {opts.plot}", highlight=False)
    if opts.json_out is not None:
        write_json(opts.json_out, _whatif_json(w, traced.schedule.num_ranks), "what-if")
