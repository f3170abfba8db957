"""``perfcompose loggp``: LogGP simulation of communication, programs, calibration (paper 002)."""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Optional

import typer
from rich.markup import escape
from perfcompose.commands.common import Table

from perfcompose.commands.common import console, err_console, fmt, progress, user_errors
from perfcompose.errors import InputError
from perfcompose.limits import check_memory, check_steps
from perfcompose.loggp.options import GapOrigin, Semantics, Ties

app = typer.Typer(no_args_is_help=True,
                  help="LogGP simulation of communication steps and programs; calibration from MPI.")


def _params(params_file: Optional[Path], L: Optional[float], o: Optional[float], g: Optional[float],
            G: Optional[float], unit: str = "") -> Any:
    """The LogGP parameters from --params and/or --L --o --g --G (flags override the file),
    converted to the program's unit when both name one."""
    from perfcompose.loggp.params import LogGP, read_params

    flags = {"L": L, "o": o, "g": g, "G": G}
    if params_file is not None:
        base = read_params(params_file).replace(**flags)
    else:
        missing = [f"--{k}" for k, v in flags.items() if v is None]
        if missing:
            raise InputError(f"missing LogGP parameter(s) {' '.join(missing)}",
                             hint="give --L --o --g --G, or --params FILE (from 'perfcompose loggp calibrate')")
        base = LogGP(L, o, g, G)  # type: ignore[arg-type]
    if unit and base.unit and base.unit != unit:
        converted = base.to(unit)
        err_console.print(f"parameters converted from {base.unit} to the program's unit {unit}")
        return converted
    return base


def _op_json(op: Any) -> list[Any]:
    return [op.kind, op.message, op.start, op.end]


def _at_values(items: Optional[list[str]]) -> dict[str, float]:
    """The ``--at NAME=VALUE`` options as a mapping (each name once, each value a finite number)."""
    values: dict[str, float] = {}
    for item in items or ():
        name, sep, text = item.partition("=")
        name = name.strip()
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not sep or not name.isidentifier() or not math.isfinite(value):
            raise typer.BadParameter(f"{item!r}: write NAME=VALUE with a finite number, e.g. x=1000",
                                     param_hint="--at")
        if name in values:
            raise typer.BadParameter(f"{name} is given twice", param_hint="--at")
        values[name] = value
    return values


def _point(template: Any, values: dict[str, float], program: Path) -> dict[str, float]:
    """The values of the program's parameters from ``--at``: every parameter, nothing else."""
    names = template.parameters
    unknown = [n for n in values if n not in names]
    if unknown:
        raise InputError(f"--at {unknown[0]}: the program has no parameter {unknown[0]!r}", path=program,
                         hint=("its parameters: " + ", ".join(names)) if names else
                         "its durations and sizes are numbers, not expressions")
    missing = [n for n in names if n not in values]
    if missing:
        raise InputError(f"the program's durations and sizes depend on {', '.join(names)}; "
                         f"give --at for {', '.join(missing)}", path=program,
                         hint=" ".join(f"--at {n}=VALUE" for n in missing))
    return values


def _model_name(program: Path) -> str:
    """An identifier for the model of ``program``, from its file name."""
    name = "".join(c if c.isalnum() or c == "_" else "_" for c in program.stem)
    return name if name.isidentifier() else f"loggp_{name}"


def _is_goal(path: Path) -> bool:
    """Whether ``path`` holds a GOAL schedule: named *.goal, or text whose first word is num_ranks
    (whatever its name, e.g. a schedule saved as .txt)."""
    if path.suffix == ".goal":
        return True
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096).decode("utf-8", errors="replace")
    except OSError:
        return False  # the program reader reports it
    from perfcompose.loggp.goal import looks_like_goal

    return looks_like_goal(head)


def _goal_timeline(res: Any) -> Any:
    """A GOAL run as a program result for the timeline plot (operations, no message arrows)."""
    import numpy as np

    from perfcompose.loggp.execute import ProgramResult
    from perfcompose.loggp.goal import CALC
    from perfcompose.loggp.simulate import Op

    s = res.schedule
    names = ("send", "recv", "comp")
    ops = [[Op(names[int(s.kind[i])], None, float(res.op_start[i]), float(res.op_end[i]))
            for i in range(int(s.op_ptr[h]), int(s.op_ptr[h + 1])) if s.kind[i] != CALC or s.size[i] > 0]
           for h in range(s.num_ranks)]
    for row in ops:
        row.sort(key=lambda op: op.start)
    zero = np.zeros(s.num_ranks)
    return ProgramResult(s.num_ranks, res.finish, zero, res.finish.copy(), ops)


def _simulate_goal_file(program: Path, params: Any, *, O: float, S: Optional[float], json_out: bool,
                        timeline: Optional[Path], to_goal: Optional[Path]) -> None:
    """``loggp simulate`` of a GOAL schedule: LogGOPSim's rules."""
    from perfcompose.loggp.goal import read_goal, write_goal
    from perfcompose.loggp.loggopsim import LOGGOPSIM_S, simulate_goal

    sched = read_goal(program)
    rendezvous = LOGGOPSIM_S if S is None else S
    res = simulate_goal(sched, params, O=O, S=rendezvous, path=program)
    if to_goal is not None:
        write_goal(sched, to_goal)
        err_console.print(f"GOAL schedule written to {to_goal}")
    if timeline is not None:
        from perfcompose.loggp.plots import plot_timeline

        plot_timeline(_goal_timeline(res), timeline, unit=params.unit,
                      title=f"{program.name}: LogGOPSim semantics, makespan {res.makespan:.6g}")
        err_console.print(f"timeline written to {timeline}")
    if json_out:
        names = ("send", "recv", "calc")
        labels = sched.labels or ("",) * sched.num_ops
        print(json.dumps({"finish": res.finish.tolist(), "makespan": res.makespan,
                          "ops": [[[names[int(sched.kind[i])], labels[i] or None, float(res.op_start[i]),
                                    float(res.op_end[i])] for i in range(int(sched.op_ptr[h]), int(sched.op_ptr[h + 1]))]
                                  for h in range(sched.num_ranks)]}))
        return
    console.print(f"{program}: LogGOPSim semantics, {sched.num_ranks} ranks; L={params.L:g} o={params.o:g} "
                  f"g={params.g:g} G={params.G:g} O={O:g} S={rendezvous:g}", highlight=False)
    table = Table()
    table.add_column("rank", justify="right")
    table.add_column("finish", justify="right")
    for h, f in enumerate(res.finish):
        table.add_row(str(h), fmt(float(f), ".6g"))
    console.print(table)
    console.print(f"makespan {res.makespan:.6g}")


_MAX_ROWS = 40  #: processors listed in the table of a large program


def _op_counts(prog: Any) -> Any:
    """Operations per processor: sends, receives and computations of non-zero length."""
    import numpy as np

    from perfcompose.loggp.program import CompStep

    counts = np.zeros(prog.P, dtype=np.int64)
    for st in prog.steps:
        if isinstance(st, CompStep):
            counts += st.durations > 0
        else:
            counts += np.bincount(st.src, minlength=prog.P) + np.bincount(st.dst, minlength=prog.P)
    return counts


@app.command()
@user_errors
def convert(source: Path = typer.Argument(..., help="Program JSON (or .npz)."),
            target: Path = typer.Argument(..., help="Where to write it: .npz (compact, fast to read), .json, "
                                                    "or .goal (LogGOPSim's text)."),
            at: Optional[list[str]] = typer.Option(None, "--at", help="NAME=VALUE for a program with expressions."),
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
        prog = template.instantiate(_point(template, _at_values(at), source))
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
def simulate(program: Path = typer.Argument(..., help="Program JSON (P, steps), its compact .npz form (from "
                                                      "'loggp convert'), or a LogGOPSim GOAL "
                                                      "schedule (*.goal, or any file whose first word is "
                                                      "num_ranks; simulated with LogGOPSim's rules)."),
             L: Optional[float] = typer.Option(None, "--L", help="Latency."),
             o: Optional[float] = typer.Option(None, "--o", help="Overhead per message."),
             g: Optional[float] = typer.Option(None, "--g", help="Gap between consecutive messages."),
             G: Optional[float] = typer.Option(None, "--G", help="Gap per byte."),
             params_file: Optional[Path] = typer.Option(None, "--params", help="Parameter file (from calibrate); "
                                                        "--L/--o/--g/--G override its values."),
             worst_case: bool = typer.Option(False, "--worst-case", help="Section 4.2: receive everything, then send."),
             seed: Optional[int] = typer.Option(None, "--seed", help="Seed of the random tie-breaks and forced "
                                                "sends (default 0; the paper's semantics only)."),
             ties: Optional[Ties] = typer.Option(None, "--ties", help="Ties between processors: random (seeded, "
                                                 "the paper's; default) or rank (the paper's semantics only)."),
             gap_origin: Optional[GapOrigin] = typer.Option(None, "--gap-origin", help="Section 3's 'g later': "
                                                            "from the end (default) or the start of the previous "
                                                            "operation (the paper's semantics only)."),
             semantics: Optional[Semantics] = typer.Option(None, "--semantics", help="paper (default for "
                                                           "programs), or loggopsim (LogGOPSim's rules; always "
                                                           "for GOAL schedules)."),
             O: float = typer.Option(0.0, "--O", help="LogGOPSim: overhead per byte."),
             S: Optional[float] = typer.Option(None, "--S", help="LogGOPSim: rendezvous above S bytes (default "
                                               "65535, LogGOPSim's own default)."),
             json_out: bool = typer.Option(False, "--json", help="Print finish times, makespan and every "
                                           "processor's operations as JSON."),
             timeline: Optional[Path] = typer.Option(None, "--timeline", help="Draw the timeline to this PNG."),
             to_goal: Optional[Path] = typer.Option(None, "--to-goal", help="Also write the program as a GOAL "
                                                    "schedule in the text form LogGOPSim's txt2bin reads."),
             time_scale: float = typer.Option(1.0, "--time-scale", help="With --to-goal: multiply times by this "
                                              "(GOAL holds integers)."),
             at: Optional[list[str]] = typer.Option(None, "--at", help="NAME=VALUE: a value of a parameter "
                                                    "of the program's expressions (repeat for each)."),
             model_json: Optional[Path] = typer.Option(None, "--model-json", help="Write the program, "
                                                       "parameters and options as a LogGP model record "
                                                       "(its makespan as a model of the program's "
                                                       "parameters)."),
             ) -> None:
    """Simulate a program of computation and communication steps under LogGP (paper 002).

    Durations and message sizes may be expressions such as "8*x"; --at x=1000 fixes them.
    In LogGOPSim's semantics messages above S bytes (default 65535, as in LogGOPSim) use a
    rendezvous: the send completes when the receiver matches it.
    """
    from perfcompose.loggp.execute import ProgramResult, simulate_program

    if _is_goal(program):
        paper_only = [name for name, given in (("--worst-case", worst_case), ("--seed", seed is not None),
                                               ("--ties", ties is not None), ("--gap-origin", gap_origin is not None),
                                               ("--semantics paper", semantics == "paper"), ("--at", bool(at)),
                                               ("--model-json", model_json is not None),
                                               ("--time-scale", time_scale != 1.0)) if given]
        if paper_only:
            raise InputError(f"{paper_only[0]} does not apply to a GOAL schedule", path=program,
                             hint="a GOAL schedule is simulated with LogGOPSim's rules, which have no random "
                                  "choices; give a program JSON for the paper's semantics")
        _simulate_goal_file(program, _params(params_file, L, o, g, G), O=O, S=S, json_out=json_out,
                            timeline=timeline, to_goal=to_goal)
        return
    seed = 0 if seed is None else seed
    ties = ties or "random"
    gap_origin = gap_origin or "end"
    semantics = semantics or "paper"
    if semantics == "loggopsim":
        from perfcompose.loggp.loggopsim import LOGGOPSIM_S

        rendezvous = LOGGOPSIM_S if S is None else S
    else:
        rendezvous = math.inf
    from perfcompose.loggp.npzfile import is_npz, read_program_npz

    template: Any = None
    if is_npz(program):  # the compact form: plain numbers, no expressions
        if at or model_json is not None:
            raise InputError(f"{'--at' if at else '--model-json'} needs a program JSON with expressions", path=program)
        prog = read_program_npz(program)
        params = _params(params_file, L, o, g, G, prog.unit)
        point: dict[str, float] = {}
    else:
        from perfcompose.loggp.template import read_template

        template = read_template(program)
        values = _at_values(at)
        params = _params(params_file, L, o, g, G, template.unit)
        # --model-json alone writes the model of a program with parameters; --at also simulates a point
        simulate_point = model_json is None or bool(values) or not template.parameters
        point = _point(template, values, program) if simulate_point else {}
    if model_json is not None:
        if semantics != "paper":
            raise InputError("a LogGP model record simulates with the paper's semantics",
                             hint="drop --semantics loggopsim, or --model-json")
        from perfcompose.loggp.source import LogGPSource

        source = LogGPSource(template, params, worst_case=worst_case, ties=ties, seed=seed,
                             gap_origin=gap_origin, name=_model_name(program), origin=str(program))
        model_json.write_text(json.dumps(source.to_record(), indent=2) + "\n")
        err_console.print(f"model record written to {model_json}")
        if not simulate_point:
            err_console.print(f"give --at for {', '.join(template.parameters)} to simulate a point")
            return
    if template is not None:
        prog = template.instantiate(point)
    where = " at " + ", ".join(f"{k}={v:g}" for k, v in point.items()) if point else ""
    unit = prog.unit or params.unit
    if to_goal is not None:
        from perfcompose.loggp.goal import program_to_goal, write_goal

        write_goal(program_to_goal(prog), to_goal, time_scale=time_scale)
        err_console.print(f"GOAL schedule written to {to_goal}")
    counts = _op_counts(prog)
    # every operation is kept only where it is shown: --json, --timeline, or a small program
    keep = json_out or timeline is not None or int(counts.sum()) <= 60
    result: ProgramResult = simulate_program(prog, params, worst_case=worst_case, semantics=semantics,  # type: ignore[arg-type]
                                             gap_origin=gap_origin, ties=ties, seed=seed, O=O, S=rendezvous,  # type: ignore[arg-type]
                                             timelines=keep)
    if timeline is not None:
        from perfcompose.loggp.plots import plot_timeline

        how = "worst case" if worst_case else ("LogGOPSim semantics" if semantics == "loggopsim" else "standard")
        plot_timeline(result, timeline, unit=unit,
                      title=f"{program.name}{where}: {how}, makespan {result.makespan:.6g}{' ' + unit if unit else ''}")
        err_console.print(f"timeline written to {timeline}")
    if json_out:
        record: dict[str, Any] = {"finish": result.finish.tolist(), "makespan": result.makespan,
                                  "ops": [[_op_json(op) for op in ops] for ops in result.ops],
                                  "computation": result.computation.tolist(),
                                  "communication": result.communication.tolist(), "unit": unit}
        if template is not None and template.parameters:
            record["at"] = point
        if worst_case:
            record["forced"] = [{"step": f.step, "processor": f.processor, "candidates": list(f.candidates)}
                                for f in result.forced]
        print(json.dumps(record))
        return
    how = "worst case (section 4.2)" if worst_case else (
        "LogGOPSim semantics" if semantics == "loggopsim" else f"standard (Figure 2), gaps from the {gap_origin}")
    u = escape(f" [{unit}]") if unit else ""
    table = Table(title=f"{program}{where}: {prog.P} processors, {len(prog.steps)} steps; {how}; "
                        f"L={params.L:g} o={params.o:g} g={params.g:g} G={params.G:g}", title_justify="left")
    for col in ("processor", f"finish{u}", f"computation{u}", f"communication{u}", "operations"):
        table.add_column(col, justify="right")
    shown = range(prog.P)
    if prog.P > _MAX_ROWS:  # the processors that finish last
        import numpy as np

        shown = sorted(np.argsort(-result.finish, kind="stable")[:_MAX_ROWS].tolist())
        table.caption = f"the {_MAX_ROWS} of {prog.P} processors that finish last (--json lists all)"
    for p in shown:
        table.add_row(str(p), fmt(float(result.finish[p]), ".6g"), fmt(float(result.computation[p]), ".6g"),
                      fmt(float(result.communication[p]), ".6g"), str(int(counts[p])))
    console.print(table)
    if keep and int(counts.sum()) <= 60:
        for p, ops in enumerate(result.ops):
            text = ", ".join(f"{op.kind}{'' if op.message is None else ' m' + str(op.message)} "
                             f"[{op.start:.6g}, {op.end:.6g}]" for op in ops)
            console.print(f"  P{p}: {text or '-'}", highlight=False)
    console.print(f"makespan {result.makespan:.6g}{' ' + unit if unit else ''} (processor {result.critical})")
    for f in result.forced:
        how = "--seed draws another" if ties == "random" else "the lowest rank, by --ties rank"
        console.print(f"forced send: step {f.step}, processor {f.processor} sent before receiving all "
                      f"(cycle members: {', '.join(map(str, f.candidates))}; {how})")


@app.command()
@user_errors
def calibrate(out: Path = typer.Option(Path("loggp_params.json"), "--out", help="Parameter file to write."),
              reps: int = typer.Option(15, "--reps", min=3, help="Repetitions (each parameter is their median)."),
              train: int = typer.Option(16, "--train", min=2, help="Messages per train."),
              sizes: Optional[str] = typer.Option(None, "--sizes", help="Message sizes in bytes, comma separated "
                                                  "(default 1 B to 1 MiB)."),
              raw: Optional[Path] = typer.Option(None, "--raw", help="Also keep the raw figures (JSON) here."),
              mpiexec: Optional[str] = typer.Option(None, "--mpiexec", help="mpiexec to use (default: the one "
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


@app.command()
@user_errors
def gauss(n: int = typer.Option(960, "--n", min=1, help="Matrix order N."),
          p: Optional[int] = typer.Option(None, "--p", min=1, help="Processors (default 8; with --measure, "
                                          "the ranks measured)."),
          blocks: Optional[str] = typer.Option(None, "--blocks", help="Block sizes, comma separated (default: the "
                                               "paper's 14 sizes that divide N)."),
          params_file: Optional[Path] = typer.Option(None, "--params", help="Network parameters (from calibrate); "
                                                     "default: those measured on the development machine."),
          paper_network: bool = typer.Option(False, "--paper-network", help="Use the paper's Meiko CS-2 values "
                                             "(L=9, o=2, g=14 us, G=0.03 us/byte)."),
          L: Optional[float] = typer.Option(None, "--L", help="Override the latency [us]."),
          o: Optional[float] = typer.Option(None, "--o", help="Override the overhead [us]."),
          g: Optional[float] = typer.Option(None, "--g", help="Override the gap [us]."),
          G: Optional[float] = typer.Option(None, "--G", help="Override the gap per byte [us]."),
          reps: int = typer.Option(5, "--reps", min=1, help="Timed repetitions of each basic operation."),
          seed: int = typer.Option(0, "--seed", help="Seed of the random tie-breaks and forced sends."),
          plot: Optional[Path] = typer.Option(None, "--plot", help="Plot total, communication and computation "
                                              "time per block size (Figures 7-9) to this PNG."),
          json_out: Optional[Path] = typer.Option(None, "--json", help="Write operation times and predictions here."),
          html: Optional[Path] = typer.Option(None, "--html", help="Write a self-contained HTML report here."),
          measure: bool = typer.Option(False, "--measure", help="Also run the elimination for real on local MPI "
                                       "ranks (mpi4py + MPICH) and compare with both predictions (Figures 7-9)."),
          ranks: Optional[int] = typer.Option(None, "--ranks", min=1, help="With --measure: MPI ranks (default: "
                                              "one per core)."),
          mpiexec: Optional[str] = typer.Option(None, "--mpiexec", help="With --measure: mpiexec to use."),
          plot_ops: Optional[Path] = typer.Option(None, "--plot-ops", help="Plot the basic operations' times "
                                                  "per block size (Figure 6) to this PNG."),
          ) -> None:
    """Section 5: blocked Gaussian elimination, predicted per block size and layout (and, with
    --measure, measured)."""
    import os
    import time

    if measure:
        measured_ranks = ranks or os.cpu_count() or 2
        if p is not None and p != measured_ranks:
            raise InputError(f"--p {p} differs from the {measured_ranks} ranks measured",
                             hint="leave out --p with --measure, or give --ranks")
        p = measured_ranks
    elif ranks is not None:
        raise InputError("--ranks needs --measure")
    p = 8 if p is None else p

    from perfcompose.loggp.gauss import BLOCK_SIZES, LAYOUTS, OPS, best, run_study, time_operations
    from perfcompose.loggp.params import DEV_MACHINE, MEIKO_CS2, read_params

    if blocks:
        try:
            sizes = [int(b) for b in blocks.split(",")]
        except ValueError:
            raise typer.BadParameter(f"{blocks!r}: write sizes like 10,12,16", param_hint="--blocks") from None
        bad = [b for b in sizes if b < 1 or n % b]
        if bad:
            raise InputError(f"block size {bad[0]} does not divide n = {n}")
    else:
        sizes = [b for b in BLOCK_SIZES if n % b == 0]
        if not sizes:
            raise InputError(f"none of the paper's block sizes divides n = {n}", hint="give --blocks")
    grid = (n / min(sizes)) ** 2  # blocks of the finest layout
    check_memory(grid * 8.0 * 8, f"Gaussian elimination of n = {n} in blocks of {min(sizes)} ({grid:.3g} blocks)")
    check_steps(grid ** 1.5, f"Gaussian elimination of n = {n} in blocks of {min(sizes)}")
    if params_file is not None and paper_network:
        raise InputError("give --params or --paper-network, not both")
    base = read_params(params_file) if params_file else (MEIKO_CS2 if paper_network else DEV_MACHINE)
    if base.unit and base.unit != "us":
        base = base.to("us")
    params = base.replace(L=L, o=o, g=g, G=G)
    source = str(params_file) if params_file else ("the paper's Meiko CS-2" if paper_network
                                                   else "measured on the development machine")
    start = time.perf_counter()
    with progress() as bar:
        task = bar.add_task("timing Op1-Op4", total=len(OPS) * len(sizes))
        ops = time_operations(sizes, reps=reps, progress=lambda k, t: bar.update(task, completed=k))
        timed = time.perf_counter() - start
        task2 = bar.add_task("simulating", total=len(sizes) * len(LAYOUTS))
        rows = run_study(n, p, params, ops, block_sizes=sizes, seed=seed,
                         progress=lambda k, t: bar.update(task2, completed=k))
    simulated = time.perf_counter() - start - timed
    measured: dict[tuple[int, str], dict[str, Any]] = {}
    if measure:
        from perfcompose.loggp.gauss_mpi import measure as run_measure

        with progress() as bar:
            task3 = bar.add_task(f"running it on {p} MPI ranks", total=len(sizes) * len(LAYOUTS))
            record_m = run_measure(n, sizes, layouts=LAYOUTS, reps=reps, ranks=p, mpiexec=mpiexec,
                                   progress=lambda k, t: bar.update(task3, completed=k))
        measured = {(r["block"], r["layout"]): r for r in record_m["rows"]}
    t6 = Table(title="Basic operations measured here (Figure 6) [us]", title_justify="left")
    t6.add_column("block", justify="right")
    for op in OPS:
        t6.add_column(op, justify="right")
    for b in sizes:
        t6.add_row(str(b), *(f"{ops[op][b]:.4g}" for op in OPS))
    console.print(t6)
    table = Table(title=f"Gaussian elimination, N = {n}, P = {p}; network L={params.L:.3g} o={params.o:.3g} "
                        f"g={params.g:.3g} us, G={params.G:.3g} us/byte ({source}); predicted times [ms]",
                  title_justify="left")
    for col in ("block", "layout", "total", "comp.", "comm.", "worst: total", "comp.", "comm.", "messages",
                "forced"):
        table.add_column(col, justify="right")
    for r in rows:
        table.add_row(str(r.block), r.layout, f"{r.standard.total / 1e3:.4g}", f"{r.standard.computation / 1e3:.4g}",
                      f"{r.standard.communication / 1e3:.4g}", f"{r.worst.total / 1e3:.4g}",
                      f"{r.worst.computation / 1e3:.4g}", f"{r.worst.communication / 1e3:.4g}", str(r.messages),
                      str(r.forced))
    console.print(table)
    winners = []
    for b in sizes:
        pair = {r.layout: r for r in rows if r.block == b}
        win = min(pair.values(), key=lambda r: r.standard.total)
        winners.append(f"{b}: {win.layout}")
    console.print("faster layout per block size (standard): " + ", ".join(winners))
    for which in ("standard", "worst"):
        b = best(rows, which)
        for layout in LAYOUTS:
            mine = best([r for r in rows if r.layout == layout], which)
            console.print(f"{which:>8}: best block size for {layout}: {mine.block} "
                          f"({getattr(mine, which).total / 1e3:.4g} ms)")
        console.print(f"{which:>8}: best choice: block {b.block}, {b.layout} layout "
                      f"({getattr(b, which).total / 1e3:.4g} ms)")
    console.print(f"timing the operations took {timed:.1f} s, the {len(rows)} x 2 simulations {simulated:.1f} s")
    if measured:
        where_count: dict[str, int] = {}
        mtable = Table(title=f"Measured on {p} MPI ranks ({record_m['library']}), median of {reps}, against the "
                             "predictions; times in ms", title_justify="left")
        for col in ("block", "layout", "standard", "measured", "worst case", "computation (measured)", "where"):
            mtable.add_column(col, justify="right")
        for r in rows:
            m = measured[(r.block, r.layout)]
            lo, hi = sorted((r.standard.total, r.worst.total))
            where = "below both" if m["total"] < lo else ("above both" if m["total"] > hi else "between")
            where_count[where] = where_count.get(where, 0) + 1
            mtable.add_row(str(r.block), r.layout, f"{r.standard.total / 1e3:.4g}", f"{m['total'] / 1e3:.4g}",
                           f"{r.worst.total / 1e3:.4g}", f"{m['computation'] / 1e3:.4g}", where)
        console.print(mtable)
        console.print(f"the measurement lies between the standard and the worst-case prediction for "
                      f"{where_count.get('between', 0)} of {len(rows)} block sizes and layouts, below both for "
                      f"{where_count.get('below both', 0)}, above both for {where_count.get('above both', 0)} "
                      "(the paper's Figure 8: between)"
                      + ("" if all(m["eliminated"] for m in measured.values()) else
                         "; WARNING: some runs did not reduce the matrix to upper triangular form"))
    if plot is not None:
        from perfcompose.loggp.plots import plot_gauss

        plot_gauss(rows, plot, title=f"Blocked Gaussian elimination, N = {n}, P = {p} "
                                     f"({'predicted and measured' if measured else 'predicted'})",
                   measured={k: v["total"] for k, v in measured.items()} or None)
        console.print(f"plot written to {plot}")
    if plot_ops is not None:
        from perfcompose.loggp.plots import plot_operations

        plot_operations(ops, plot_ops, title="Basic operations measured here (Figure 6)")
        console.print(f"plot of the basic operations written to {plot_ops}")
    if json_out is not None:
        record = {"n": n, "p": p, "params": {"L": params.L, "o": params.o, "g": params.g, "G": params.G,
                                             "unit": "us", "source": source},
                  "op_times_us": {op: {str(b): v for b, v in ops[op].items()} for op in OPS},
                  "rows": [{"block": r.block, "layout": r.layout, "steps": r.steps, "messages": r.messages,
                            "forced": r.forced, "standard": vars(r.standard), "worst": vars(r.worst),
                            **({"measured": measured[(r.block, r.layout)]} if measured else {})} for r in rows]}
        json_out.write_text(json.dumps(record, indent=2) + "\n")
        console.print(f"results written to {json_out}")
    if html is not None:
        from perfcompose.commands.reports import tables_html
        from perfcompose.loggp.plots import plot_gauss

        top = {which: best(rows, which) for which in ("standard", "worst")}
        title = f"Blocked Gaussian elimination, N = {n}, P = {p} (predicted)"
        tables_html(html, title, "LogGP study", [t6, table],
                    lines=["faster layout per block size (standard): " + ", ".join(winners)],
                    plots=[("total, communication and computation time per block size",
                            lambda path: plot_gauss(rows, path, title=title))],
                    summary=[("network", f"L={params.L:.3g} o={params.o:.3g} g={params.g:.3g} us, "
                                         f"G={params.G:.3g} us/byte ({source})"),
                             *((f"best choice ({which})", f"block {b.block}, {b.layout} layout "
                                f"({getattr(b, which).total / 1e3:.4g} ms)") for which, b in top.items())])
