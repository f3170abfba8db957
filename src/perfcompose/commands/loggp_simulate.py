"""``perfcompose loggp simulate``: a LogGP program (JSON with expressions, or the compact .npz)
simulated with the paper's algorithm, its worst case or LogGOPSim's rules; a GOAL schedule goes
to :mod:`.loggp_goal`. Shown as a table of the processors, JSON, or a timeline."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer

from perfcompose.commands.common import console, err_console, json_option, user_errors, write_json
from perfcompose.commands.loggp_inputs import at_point, is_goal, loggp_params, model_name
from perfcompose.commands.loggp_tables import print_makespan, print_program_table
from perfcompose.errors import InputError
from perfcompose.loggp.options import (
    LOGGOPSIM_S,
    GapOrigin,
    LogGOPSimOptions,
    LogGPFiles,
    LogGPOptions,
    LogGPParameters,
    Semantics,
    SimulateOutputs,
    Ties,
)
from perfcompose.option_fields import cli_option

__all__ = ["simulate"]

_MAX_FORCED, _MAX_MEMBERS = 20, 40  #: forced sends listed, and cycle members listed for each


@dataclass
class _Options:
    """The simulation's choices, with their defaults filled in."""

    worst_case: bool
    seed: int
    ties: Ties
    gap_origin: GapOrigin
    semantics: Semantics
    O: float
    S: float


def _refuse_paper_flags_for_goal(program: Path, **given: bool) -> None:
    """A GOAL schedule runs with LogGOPSim's rules: the paper's options do not apply."""
    paper_only = [name for name, on in given.items() if on]
    if paper_only:
        raise InputError(f"{paper_only[0]} does not apply to a GOAL schedule", path=program,
                         hint="a GOAL schedule is simulated with LogGOPSim's rules, which have no random "
                              "choices; give a program JSON for the paper's semantics")


def _op_counts(prog: Any) -> Any:
    """Operations per processor: sends, receives and computations of non-zero length."""
    import numpy as np

    from perfcompose.loggp.steps.program import CompStep

    counts = np.zeros(prog.P, dtype=np.int64)
    for st in prog.steps:
        if isinstance(st, CompStep):
            counts += st.durations > 0
        else:
            counts += np.bincount(st.src, minlength=prog.P) + np.bincount(st.dst, minlength=prog.P)
    return counts


def _read(program: Path, at: list[str] | None, model_json: Path | None, flags: dict[str, Any],
          opts: _Options) -> tuple[Any, Any, Any, dict[str, float] | None]:
    """The program (None when only a model record is asked for), its parameters, its template
    (None for the compact form) and the point it is simulated at; writes ``--model-json``."""
    from perfcompose.loggp.steps.npzfile import is_npz, read_program_npz
    from perfcompose.loggp.work_size import check_reading

    if is_npz(program):  # the compact form: plain numbers, no expressions
        if at or model_json is not None:
            raise InputError(f"{'--at' if at else '--model-json'} needs a program JSON with expressions", path=program)
        check_reading(program, "npz")
        prog = read_program_npz(program)
        return prog, loggp_params(**flags, unit=prog.unit), None, {}
    from perfcompose.loggp.steps.template import read_template

    check_reading(program, "json")
    template = read_template(program)
    params = loggp_params(**flags, unit=template.unit)
    # --model-json alone writes the model of a program with parameters; --at also simulates a point
    simulate_point = model_json is None or bool(at) or not template.parameters
    point = at_point(template, at, program) if simulate_point else None
    if model_json is not None:
        _write_model(template, params, program, model_json, opts, flags)
        if point is None:
            err_console.print(f"give --at for {', '.join(template.parameters)} to simulate a point")
            return None, params, template, None
    return template.instantiate(point or {}), params, template, point or {}


def _write_model(template: Any, params: Any, program: Path, model_json: Path, opts: _Options,
                 flags: dict[str, Any]) -> None:
    if opts.semantics != "paper":
        raise InputError("a LogGP model record simulates with the paper's semantics",
                         hint="drop --semantics loggopsim, or --model-json")
    from perfcompose.loggp.params import given_members
    from perfcompose.loggp.source import LogGPSource

    # a calibrated parameter file's repetitions give the record its interval, as in a design
    calibration = given_members(flags["params_file"], {k: flags[k] for k in ("L", "o", "g", "G")})
    source = LogGPSource(template, params, worst_case=opts.worst_case, ties=opts.ties, seed=opts.seed,
                         gap_origin=opts.gap_origin, name=model_name(program), origin=str(program),
                         calibration=calibration)
    model_json.write_text(json.dumps(source.to_record(), indent=2) + "\n")
    err_console.print(f"model record written to {model_json}")


def _how(opts: _Options, long: bool = False) -> str:
    if opts.worst_case:
        return "worst case (section 4.2)" if long else "worst case"
    if opts.semantics == "loggopsim":
        return "LogGOPSim semantics"
    return f"standard (Figure 2), gaps from the {opts.gap_origin}" if long else "standard"


def _write_json(path: Path, result: Any, unit: str, template: Any, point: dict[str, float], opts: _Options) -> None:
    record: dict[str, Any] = {"finish": result.finish.tolist(), "makespan": result.makespan,
                              "ops": result.ops,  # each Op (a named tuple) is written as [kind, message, start, end]
                              "computation": result.computation.tolist(),
                              "communication": result.communication.tolist(), "unit": unit}
    if template is not None and template.parameters:
        record["at"] = point
    if opts.worst_case:
        record["forced"] = [{"step": f.step, "processor": f.processor, "candidates": f.candidate_array.tolist()}
                            for f in result.forced]
    write_json(path, record, "simulation", indent=None)


def _print_table(program: Path, where: str, prog: Any, params: Any, result: Any, counts: Any, unit: str,
                 keep: bool, opts: _Options) -> None:
    print_program_table(f"{program}{where}: {prog.P} processors, {len(prog.steps)} steps; {_how(opts, True)}; "
                        f"L={params.L:g} o={params.o:g} g={params.g:g} G={params.G:g}", unit, result.finish,
                        result.computation, result.communication, counts)
    if keep and int(counts.sum()) <= 60:
        for p, ops in enumerate(result.ops):
            text = ", ".join(f"{op.kind}{'' if op.message is None else ' m' + str(op.message)} "
                             f"[{op.start:.6g}, {op.end:.6g}]" for op in ops)
            label = f" \\[{unit}]" if unit else ""
            console.print(f"  P{p}{label}: {text or '-'}", highlight=False, soft_wrap=True)
    print_makespan(result.makespan, unit, result.critical)
    _print_forced(result.forced, opts)


def _print_forced(forced: Any, opts: _Options) -> None:
    """The worst case's forced sends: the first ones with their cycles' members (the first of a
    large cycle), then how many more; --json lists them all."""
    how = "--seed draws another" if opts.ties == "random" else "the lowest rank, by --ties rank"
    for f in forced[:_MAX_FORCED]:
        members = f.candidate_array[:_MAX_MEMBERS].tolist()
        more = f" and {f.candidate_array.size - _MAX_MEMBERS} more" if f.candidate_array.size > _MAX_MEMBERS else ""
        console.print(f"forced send: step {f.step}, processor {f.processor} sent before receiving all "
                      f"(cycle members: {', '.join(map(str, members))}{more}; {how})", highlight=False)
    if len(forced) > _MAX_FORCED:
        console.print(f"... and {len(forced) - _MAX_FORCED} more forced sends ({len(forced)} in all; --json lists "
                      "them with their cycles)", highlight=False)


def _run(program: Path, prog: Any, params: Any, template: Any, point: dict[str, float], opts: _Options, *,
         json_out: Path | None, timeline: Path | None, to_goal: Path | None, time_scale: float,
         step: Any = lambda name: None) -> None:
    """Simulate the program and show the result."""
    from perfcompose.loggp.steps.execute import simulate_program

    where = " at " + ", ".join(f"{k}={v:g}" for k, v in point.items()) if point else ""
    unit = prog.unit or params.unit
    if to_goal is not None:
        from perfcompose.loggp.goal.schedule import program_to_goal, write_goal

        write_goal(program_to_goal(prog), to_goal, time_scale=time_scale)
        err_console.print(f"GOAL schedule written to {to_goal}")
    counts = _op_counts(prog)
    # every operation is kept only where it is shown: --json, --timeline, or a small program
    keep = json_out is not None or timeline is not None or int(counts.sum()) <= 60
    from perfcompose.loggp.steps.program import CommStep
    from perfcompose.loggp.work_size import check_simulation

    check_simulation(prog.P, sum(s.M for s in prog.steps if isinstance(s, CommStep)), len(prog.steps),
                     semantics=opts.semantics, timelines=keep)
    step("simulating")
    result = simulate_program(prog, params, worst_case=opts.worst_case, semantics=opts.semantics,
                              gap_origin=opts.gap_origin, ties=opts.ties, seed=opts.seed, O=opts.O, S=opts.S,
                              timelines=keep)
    step(None)
    if timeline is not None:
        from perfcompose.report.loggp import plot_timeline

        plot_timeline(result, timeline, unit=unit, title=f"{program.name}{where}: {_how(opts)}, makespan "
                                                         f"{result.makespan:.6g}{' ' + unit if unit else ''}")
        err_console.print(f"timeline written to {timeline}")
    _print_table(program, where, prog, params, result, counts, unit, keep, opts)
    if json_out is not None:
        _write_json(json_out, result, unit, template, point, opts)


@user_errors
def simulate(program: Path = typer.Argument(..., help="Program JSON (P, steps), its compact .npz form (from "
                                                      "'loggp convert'), or a LogGOPSim GOAL "
                                                      "schedule (*.goal, or any file whose first word is "
                                                      "num_ranks; simulated with LogGOPSim's rules)."),
             L: float | None = cli_option(LogGPParameters, "L"),
             o: float | None = cli_option(LogGPParameters, "o"),
             g: float | None = cli_option(LogGPParameters, "g"),
             G: float | None = cli_option(LogGPParameters, "G"),
             params_file: Path | None = cli_option(LogGPFiles, "params"),
             worst_case: bool = cli_option(LogGPOptions, "worst_case"),
             seed: int | None = cli_option(LogGPOptions, "seed", default=None),
             ties: Ties | None = cli_option(LogGPOptions, "ties", default=None),
             gap_origin: GapOrigin | None = cli_option(LogGPOptions, "gap_origin", default=None),
             semantics: Semantics | None = cli_option(LogGOPSimOptions, "semantics"),
             O: float = cli_option(LogGOPSimOptions, "O"),
             S: float | None = cli_option(LogGOPSimOptions, "S"),
             json_out: Path | None = json_option("finish times, makespan and every processor's operations"),
             timeline: Path | None = cli_option(SimulateOutputs, "timeline"),
             to_goal: Path | None = cli_option(SimulateOutputs, "to_goal"),
             time_scale: float = cli_option(SimulateOutputs, "time_scale"),
             at: list[str] | None = cli_option(SimulateOutputs, "at"),
             model_json: Path | None = cli_option(SimulateOutputs, "model_json"),
             ) -> None:
    """Durations and message sizes may be expressions such as "8*x"; --at x=1000 fixes them.
    In LogGOPSim's semantics messages above S bytes (default 65535, as in LogGOPSim) use a
    rendezvous: the send completes when the receiver matches it.
    """
    flags: dict[str, Any] = {"params_file": params_file, "L": L, "o": o, "g": g, "G": G}
    if is_goal(program):
        _refuse_paper_flags_for_goal(program, **{
            "--worst-case": worst_case, "--seed": seed is not None, "--ties": ties is not None,
            "--gap-origin": gap_origin is not None, "--semantics paper": semantics == "paper", "--at": bool(at),
            "--model-json": model_json is not None, "--time-scale": time_scale != 1.0})
        from perfcompose.commands.loggp_goal import simulate_goal_file

        simulate_goal_file(program, loggp_params(**flags), O=O, S=S, json_out=json_out, timeline=timeline,
                           to_goal=to_goal)
        return
    semantics = semantics or "paper"
    rendezvous = math.inf
    if semantics == "loggopsim":
        rendezvous = LOGGOPSIM_S if S is None else S
    given: dict[str, Any] = {"worst_case": worst_case, "seed": seed, "ties": ties, "gap_origin": gap_origin}
    paper = LogGPOptions(**{k: v for k, v in given.items() if v is not None})
    opts = _Options(paper.worst_case, paper.seed, paper.ties, paper.gap_origin, semantics, O, rendezvous)
    from perfcompose.commands.loggp_phases import phases

    with phases(program, ("reading", "simulating")) as step:
        prog, params, template, point = _read(program, at, model_json, flags, opts)
        if prog is not None and point is not None:
            _run(program, prog, params, template, point, opts, json_out=json_out, timeline=timeline,
                 to_goal=to_goal, time_scale=time_scale, step=step)
