"""``perfcompose loggp``: LogGP simulation of communication, programs, calibration (paper 002).

``simulate`` lives in :mod:`.loggp_simulate` (GOAL schedules in :mod:`.loggp_goal`), ``gauss`` in
:mod:`.loggp_gauss`; ``convert`` and ``calibrate`` here."""
from __future__ import annotations

import json
from pathlib import Path

import typer

from perfcompose.commands.common import Table, console, err_console, progress, user_errors
from perfcompose.commands.loggp_gauss import gauss
from perfcompose.commands.loggp_inputs import at_point
from perfcompose.commands.loggp_simulate import simulate
from perfcompose.errors import InputError

#: the group's help is its entry's in perfcompose.cli
app = typer.Typer(no_args_is_help=True)


@app.command()
@user_errors
def convert(source: Path = typer.Argument(..., help="Program JSON (or .npz)."),
            target: Path = typer.Argument(..., help="Where to write it: .npz (compact, fast to read), .json, "
                                                    "or .goal (LogGOPSim's text)."),
            at: list[str] | None = typer.Option(None, "--at", help="NAME=VALUE for a program with expressions."),
            time_scale: float = typer.Option(1.0, "--time-scale", help="For .goal: multiply times by this "
                                             "(GOAL holds integers)."),
            ) -> None:
    """Write a LogGP program in another form: the compact .npz that large programs read fast,
    JSON, or a GOAL schedule."""
    from perfcompose.loggp.npzfile import is_npz, read_program_npz, write_program_npz

    if target.suffix not in (".npz", ".json", ".goal"):
        raise InputError(f"cannot tell the form of {target.name} from its suffix",
                         hint="name the target .npz, .json or .goal")
    if is_npz(source):
        prog = read_program_npz(source)
    else:
        from perfcompose.loggp.template import read_template

        template = read_template(source)
        prog = template.instantiate(at_point(template, at, source))
    if target.suffix == ".npz":
        write_program_npz(prog, target)
    elif target.suffix == ".json":
        from perfcompose.loggp.program import program_to_json

        target.write_text(json.dumps(program_to_json(prog)) + "\n")
    else:
        from perfcompose.loggp.goal import program_to_goal, write_goal

        write_goal(program_to_goal(prog), target, time_scale=time_scale)
    err_console.print(f"{prog.P} processors, {len(prog.steps)} steps written to {target}")


@app.command()
@user_errors
def calibrate(out: Path = typer.Option(Path("loggp_params.json"), "--out", help="Parameter file to write."),
              reps: int = typer.Option(15, "--reps", min=3, help="Repetitions (each parameter is their median)."),
              train: int = typer.Option(16, "--train", min=2, help="Messages per train."),
              sizes: str | None = typer.Option(None, "--sizes", help="Message sizes in bytes, comma separated "
                                                  "(default 1 B to 1 MiB)."),
              raw: Path | None = typer.Option(None, "--raw", help="Also keep the raw figures (JSON) here."),
              mpiexec: str | None = typer.Option(None, "--mpiexec", help="mpiexec to use (default: the one "
                                                    "next to this Python, else on PATH)."),
              ) -> None:
    """Measure L, o, g, G on two local MPI ranks (mpi4py), Netgauge-style; write a parameter file."""
    from perfcompose.loggp.calibrate import calibrate as run_calibration

    with progress() as bar:
        task = bar.add_task("MPI probe on 2 ranks", total=reps)
        cal = run_calibration(out, reps=reps, train=train, sizes=sizes, mpiexec=mpiexec, raw_out=raw,
                              progress=lambda k, n: bar.update(task, completed=k, total=n))
    table = Table(title=f"LogGP parameters of {cal.raw_summary['library']} via mpi4py, 2 local ranks, "
                        f"{cal.raw_summary['repetitions']} repetitions [us]", title_justify="left")
    for col in ("parameter", "median", "quartiles", "min .. max"):
        table.add_column(col, justify="right")
    for k in ("L", "o", "g", "G"):
        s = cal.spread[k]
        table.add_row(k + (" (per byte)" if k == "G" else ""), f"{s['median']:.4g}", f"{s['q1']:.4g} .. {s['q3']:.4g}",
                      f"{s['min']:.4g} .. {s['max']:.4g}")
    console.print(table)
    for line in cal.raw_summary["table"]:
        console.print(line, highlight=False)
    console.print(f"bandwidth 1/G = {1 / cal.params.G / 1e3:.3g} GB/s; parameters written to {out}")


app.command()(simulate)
app.command()(gauss)
