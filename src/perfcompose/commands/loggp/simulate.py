"""``perfcompose loggp simulate``: a LogGP program (JSON with expressions, or the compact .npz) simulated with the
paper's algorithm, its worst case or LogGOPSim's rules; a GOAL schedule goes to :mod:`.goal`. Shown as a table of
the processors, JSON, or a timeline.

:func:`run` runs the command without typer, NumPy or SymPy where the command line and the input allow it: LogGOPSim's
rules on a GOAL schedule, or on a program (.npz, or JSON of plain numbers) with ``--semantics loggopsim``, the compiled
readers and kernels on plain typed buffers. It starts in a few hundredths of a second, where typer, pydantic and NumPy
alone take half a second. For anything else (an option it does not read, ``--json``, ``--timeline``, the paper's
semantics, a program small enough that its operations are listed, any input or limit problem) it returns None and
:func:`simulate`, the typer command (built on first use), prints the same results and names every error. Only the
standard library is imported here, the rest where it is used: the console script asks :func:`run` first.

Results are written as plain text where Rich would print them without styles (:func:`.tables.show`: output not a
terminal); else Rich is imported once the simulation is done and the input's buffers are freed. A progress bar
(:func:`perfcompose.progress_callbacks.phases`) is shown only for inputs that take seconds.
"""
import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from perfcompose.loggp.goal.goal_buffers import GoalBuffers
    from perfcompose.loggp.params import LogGP
    from perfcompose.loggp.steps.program_buffers import ProgramBuffers

simulate: Callable[..., None]  #: the typer command, built on first use (:func:`__getattr__`)

#: options read but left to the typer command: their work or output needs NumPy or SymPy, or (on a
#: GOAL schedule, or in LogGOPSim's semantics) they are refused or unused there
_FULL = {"worst_case", "seed", "ties", "gap_origin", "timeline", "to_goal", "time_scale", "at", "model_json"}
#: a program with at most this many operations has them listed, which takes the typer command
_LISTED = 60
#: inputs of at least this many bytes get the progress bar (about two seconds of work here)
_BAR_INPUT = 128 * 2 ** 20
#: without the compiled row splitter (_cmessage_rows) a JSON program of more bytes goes to the typer
#: command: its rows are checked in Python, at about 2 us a message, which beyond a few hundred
#: thousand messages costs more than NumPy's start
_JSON_BYTES = 8 * 2 ** 20
_MAX_FORCED, _MAX_MEMBERS = 20, 40  #: forced sends listed, and cycle members listed for each


def _command(argv: Sequence[str]) -> tuple[dict[str, Any], dict[str, Any], Path] | None:
    """The root options, the command's options and the input of ``[root options] loggp simulate
    INPUT [options]``, or None where the command line is anything else."""
    at = next((k for k in range(len(argv) - 1) if (argv[k], argv[k + 1]) == ("loggp", "simulate")), None)
    if at is None:
        return None
    from perfcompose.commands.declared_args import options, read_args
    from perfcompose.limits import LimitOptions
    from perfcompose.loggp import options as declared

    root = read_args(argv[:at], options(LimitOptions), 0)
    command = read_args(argv[at + 2:], options(declared.LogGPParameters, declared.LogGPFiles, declared.LogGPOptions,
                                               declared.LogGOPSimOptions, declared.SimulateOutputs), 1)
    if root is None or command is None:
        return None
    return root[0], command[0], Path(command[1][0])


def _form(path: Path) -> str | None:
    """goal, npz or json where the start of the file says so plainly, else None."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(64)
    except OSError:
        return None
    if head.startswith(b"PK\x03\x04"):
        return "npz"
    text = head.lstrip()
    if path.suffix == ".goal" or text.startswith(b"num_ranks"):
        return "goal"
    return "json" if text.startswith(b"{") else None


def run(argv: Sequence[str]) -> int | None:
    """Run ``argv`` (the arguments after the program's name) without typer and return the exit
    status, or None where the command line is not ``loggp simulate`` or the typer command must run it."""
    got = _command(argv)
    if got is None:
        return None
    from perfcompose.errors import PerfcomposeError
    from perfcompose.limits import LimitOptions, parse_bytes, set_limits
    from perfcompose.loggp.kernels.backend import extension
    from perfcompose.loggp.options import LOGGOPSIM_S, LogGOPSimOptions
    from perfcompose.option_fields import default_of
    from perfcompose.progress_callbacks import phases

    root, given, path = got
    form = _form(path)
    semantics = given.get("semantics")  # a GOAL schedule's is LogGOPSim's; a program's, the paper's unless given
    if form is None or _FULL & given.keys() or semantics == "paper" or (form != "goal" and semantics != "loggopsim"):
        return None
    if form == "json" and path.stat().st_size > _JSON_BYTES and extension("_cmessage_rows") is None:
        return None
    try:
        set_limits(parse_bytes(root.get("max_memory", default_of(LimitOptions, "max_memory"))),
                   root.get("max_steps", default_of(LimitOptions, "max_steps")), unlimited="no_limits" in root)
        O = given.get("O", default_of(LogGOPSimOptions, "O"))
        S = given.get("S", LOGGOPSIM_S)
        with phases(path, ("reading", "simulating"), _BAR_INPUT) as step:
            if form == "goal":
                return _goal(path, given, O, S, step)
            return _program(path, form, given, O, S, step)
    except (PerfcomposeError, OSError, ValueError):
        return None  # the typer command says what is wrong


def _params(given: dict[str, Any], unit: str = "") -> "LogGP | None":
    """The LogGP parameters, or None where they would be converted to the program's unit (the typer command says so)."""
    from perfcompose.loggp.params import given_params

    base = given_params(given.get("params"), {k: given.get(k) for k in "LogG"})
    return None if unit and base.unit and base.unit != unit else base


def _goal(path: Path, given: dict[str, Any], O: float, S: float, step: Any) -> int | None:
    from perfcompose.commands.loggp.tables import goal_layout, show
    from perfcompose.loggp.goal.goal_buffers import read_goal_buffers
    from perfcompose.loggp.work_size import check_goal_simulation, check_reading

    params = _params(given)
    check_reading(path, "goal_columns")
    sched = read_goal_buffers(path) if params is not None else None
    if sched is None or params is None:
        return None
    check_goal_simulation(sched.num_ranks, sched.num_ops, len(sched.req_a) + len(sched.ireq_a), sched.sends)
    step("simulating")
    finish = _goal_finish(sched, params, O, S)
    step(None)
    if finish is None:
        return None
    num_ranks = sched.num_ranks
    del sched  # its buffers, before Rich is imported
    show(goal_layout(str(path), num_ranks, params, O, S, finish))
    return 0


def _goal_finish(s: "GoalBuffers", params: Any, O: float, S: float) -> Any:
    """The ranks' finish times under LogGOPSim's rules (the compiled GOAL loop), or None where
    the schedule deadlocks or the kernel is not built."""
    from perfcompose.loggp.kernels.backend import empty, extension

    kernel = extension("_cgoal")
    if kernel is None:
        return None
    none = empty(0, "i")  # every operation on CPU / NIC 0
    done, finish = bytearray(s.num_ops), empty(s.num_ranks, "d")
    kernel.simulate(s.num_ranks, s.op_ptr, s.kind, s.size, s.peer, s.tag, s.cpu if s.n_cpu > 1 else none,
                    s.nic if s.n_nic > 1 else none, s.req_a, s.req_b, s.ireq_a, s.ireq_b, s.n_cpu, s.n_nic,
                    float(params.L), float(params.o), float(params.g), float(params.G), float(O), float(S),
                    empty(1, "d"), empty(1, "d"), done, finish, -1, 1)  # the columns are not read again
    return None if 0 in done else finish


def _program(path: Path, form: str, given: dict[str, Any], O: float, S: float, step: Any) -> int | None:
    from perfcompose.commands.loggp.tables import critical, makespan_line, program_layout, show
    from perfcompose.loggp.work_size import check_reading, check_simulation

    check_reading(path, form)
    # loaded by name, for a program only: the .npz reader's zipfile alone takes 2-3 MB of the
    # few tens that a GOAL schedule's whole run may take
    readers = importlib.import_module("perfcompose.loggp.steps.program_buffers")
    prog = readers.read_npz_buffers(path) if form == "npz" else readers.read_json_buffers(path)
    if prog is None:
        return None
    operations = prog.operations()
    if sum(operations) <= _LISTED:
        return None
    params = _params(given, prog.unit)
    if params is None:
        return None
    check_simulation(prog.P, prog.M, prog.steps, semantics="loggopsim")
    step("simulating")
    finish = _program_finish(prog, params, O, S)
    step(None)
    if finish is None:
        return None
    unit = prog.unit or params.unit
    computation = prog.computation()
    communication = [f - c for f, c in zip(finish, computation)]
    title = (f"{path}: {prog.P} processors, {prog.steps} steps; LogGOPSim semantics; L={params.L:g} o={params.o:g} "
             f"g={params.g:g} G={params.G:g}")
    del prog  # its buffers, before Rich is imported
    show(program_layout(title, unit, finish, computation, communication, operations,
                        (makespan_line(max(finish), unit, critical(finish, computation)),)))
    return 0


def _program_finish(prog: "ProgramBuffers", params: Any, O: float, S: float) -> Any:
    """The processors' finish times under LogGOPSim's rules (the compiled kernel on the program's
    steps), or None where the kernel is not built or finds the steps inconsistent."""
    from perfcompose.loggp.kernels.backend import empty, extension

    kernel = getattr(extension("_cstep"), "loggopsim_steps", None)
    if kernel is None:
        return None
    finish = empty(prog.P, "d")
    left = kernel(prog.P, prog.kinds, prog.msg_ptr, prog.src, prog.dst, prog.nbytes, prog.order, prog.durations,
                  float(params.L), float(params.o), float(params.g), float(params.G), float(O), float(S), finish)
    return finish if left == 0 else None


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


def _read(opts: Any) -> tuple[Any, Any, Any, dict[str, float] | None]:
    """The program (None when only a model record is asked for), its parameters, its template
    (None for the compact form) and the point it is simulated at; writes ``--model-json``."""
    from perfcompose.commands.consoles import err_console
    from perfcompose.commands.loggp.inputs import at_point, loggp_params
    from perfcompose.errors import InputError
    from perfcompose.loggp.steps.npzfile import is_npz, read_program_npz
    from perfcompose.loggp.work_size import check_reading

    program, at, model_json = opts.program, opts.at, opts.model_json
    if is_npz(program):  # the compact form: plain numbers, no expressions
        if at or model_json is not None:
            raise InputError(f"{'--at' if at else '--model-json'} needs a program JSON with expressions", path=program)
        check_reading(program, "npz")
        prog = read_program_npz(program)
        return prog, loggp_params(opts, prog.unit), None, {}
    from perfcompose.loggp.steps.template import read_template

    check_reading(program, "json")
    template = read_template(program)
    params = loggp_params(opts, template.unit)
    # --model-json alone writes the model of a program with parameters; --at also simulates a point
    simulate_point = model_json is None or bool(at) or not template.parameters
    point = at_point(template, at, program) if simulate_point else None
    if model_json is not None:
        _write_model(template, params, opts)
        if point is None:
            err_console.print(f"give --at for {', '.join(template.parameters)} to simulate a point")
            return None, params, template, None
    return template.instantiate(point or {}), params, template, point or {}


def _write_model(template: Any, params: Any, opts: Any) -> None:
    from perfcompose.errors import InputError

    if opts.semantics != "paper":
        raise InputError("a LogGP model record simulates with the paper's semantics",
                         hint="drop --semantics loggopsim, or --model-json")
    import json

    from perfcompose.commands.consoles import err_console
    from perfcompose.loggp.params import given_members
    from perfcompose.loggp.source import LogGPSource

    # a calibrated parameter file's repetitions give the record its interval, as in a design
    calibration = given_members(opts.params, {k: getattr(opts, k) for k in "LogG"})
    name = "".join(c if c.isalnum() or c == "_" else "_" for c in opts.program.stem)  # an identifier, from the file
    source = LogGPSource(template, params, worst_case=opts.worst_case, ties=opts.ties, seed=opts.seed,
                         gap_origin=opts.gap_origin, name=name if name.isidentifier() else f"loggp_{name}",
                         origin=str(opts.program), calibration=calibration)
    opts.model_json.write_text(json.dumps(source.to_record(), indent=2) + "\n")
    err_console.print(f"model record written to {opts.model_json}")


def _how(opts: Any, long: bool = False) -> str:
    if opts.worst_case:
        return "worst case (section 4.2)" if long else "worst case"
    if opts.semantics == "loggopsim":
        return "LogGOPSim semantics"
    return f"standard (Figure 2), gaps from the {opts.gap_origin}" if long else "standard"


def _write_json(result: Any, unit: str, template: Any, point: dict[str, float], opts: Any) -> None:
    from perfcompose.commands.common import write_json

    record: dict[str, Any] = {"finish": result.finish.tolist(), "makespan": result.makespan,
                              "ops": result.ops,  # each Op (a named tuple) is written as [kind, message, start, end]
                              "computation": result.computation.tolist(),
                              "communication": result.communication.tolist(), "unit": unit}
    if template is not None and template.parameters:
        record["at"] = point
    if opts.worst_case:
        record["forced"] = [{"step": f.step, "processor": f.processor, "candidates": f.candidate_array.tolist()}
                            for f in result.forced]
    write_json(opts.json_out, record, "simulation", indent=None)


def _print_table(where: str, prog: Any, params: Any, result: Any, counts: Any, unit: str, opts: Any) -> None:
    from perfcompose.commands.consoles import console
    from perfcompose.commands.loggp.tables import makespan_line, print_layout, program_layout

    print_layout(program_layout(f"{opts.program}{where}: {prog.P} processors, {len(prog.steps)} steps; "
                                f"{_how(opts, True)}; L={params.L:g} o={params.o:g} g={params.g:g} G={params.G:g}",
                                unit, result.finish, result.computation, result.communication, counts))
    if int(counts.sum()) <= _LISTED:  # a small program's operations (kept for it) are listed
        for p, ops in enumerate(result.ops):
            text = ", ".join(f"{op.kind}{'' if op.message is None else ' m' + str(op.message)} "
                             f"[{op.start:.6g}, {op.end:.6g}]" for op in ops)
            label = f" \\[{unit}]" if unit else ""
            console.print(f"  P{p}{label}: {text or '-'}", highlight=False, soft_wrap=True)
    console.print(makespan_line(result.makespan, unit, result.critical))
    _print_forced(result.forced, opts)


def _print_forced(forced: Any, opts: Any) -> None:
    """The worst case's forced sends: the first ones with their cycles' members (the first of a
    large cycle), then how many more; --json lists them all."""
    from perfcompose.commands.consoles import console

    how = "--seed draws another" if opts.ties == "random" else "the lowest rank, by --ties rank"
    for f in forced[:_MAX_FORCED]:
        members = f.candidate_array[:_MAX_MEMBERS].tolist()
        more = f" and {f.candidate_array.size - _MAX_MEMBERS} more" if f.candidate_array.size > _MAX_MEMBERS else ""
        console.print(f"forced send: step {f.step}, processor {f.processor} sent before receiving all "
                      f"(cycle members: {', '.join(map(str, members))}{more}; {how})", highlight=False)
    if len(forced) > _MAX_FORCED:
        console.print(f"... and {len(forced) - _MAX_FORCED} more forced sends ({len(forced)} in all; --json lists "
                      "them with their cycles)", highlight=False)


def _simulate_and_show(prog: Any, params: Any, template: Any, point: dict[str, float], opts: Any, step: Any) -> None:
    """Simulate the program and show the result."""
    from perfcompose.commands.consoles import err_console
    from perfcompose.loggp.steps.execute import simulate_program
    from perfcompose.loggp.steps.program import CommStep
    from perfcompose.loggp.work_size import check_simulation

    where = " at " + ", ".join(f"{k}={v:g}" for k, v in point.items()) if point else ""
    unit = prog.unit or params.unit
    if opts.to_goal is not None:
        from perfcompose.loggp.goal.schedule import program_to_goal, write_goal

        write_goal(program_to_goal(prog), opts.to_goal, time_scale=opts.time_scale)
        err_console.print(f"GOAL schedule written to {opts.to_goal}")
    counts = _op_counts(prog)
    # every operation is kept only where it is shown: --json, --timeline, or a small program
    keep = opts.json_out is not None or opts.timeline is not None or int(counts.sum()) <= _LISTED
    check_simulation(prog.P, sum(s.M for s in prog.steps if isinstance(s, CommStep)), len(prog.steps),
                     semantics=opts.semantics, timelines=keep)
    step("simulating")
    result = simulate_program(prog, params, worst_case=opts.worst_case, semantics=opts.semantics,
                              gap_origin=opts.gap_origin, ties=opts.ties, seed=opts.seed, O=opts.O, S=opts.S,
                              timelines=keep)
    step(None)
    if opts.timeline is not None:
        from perfcompose.report.loggp import plot_timeline

        plot_timeline(result, opts.timeline, unit=unit, title=f"{opts.program.name}{where}: {_how(opts)}, makespan "
                                                              f"{result.makespan:.6g}{' ' + unit if unit else ''}")
        err_console.print(f"timeline written to {opts.timeline}")
    _print_table(where, prog, params, result, counts, unit, opts)
    if opts.json_out is not None:
        _write_json(result, unit, template, point, opts)


def _typer_command() -> Callable[..., None]:
    """``loggp simulate`` as typer reads it (typer imported only now)."""
    import math
    from dataclasses import replace

    from perfcompose.commands.common import cli_command, json_option
    from perfcompose.errors import InputError
    from perfcompose.loggp import options as declared
    from perfcompose.option_fields import cli_option, default_of, option, shared

    paper = declared.LogGPOptions  # its options left out are None here, to tell them from those given

    @dataclass(frozen=True)
    class Network(declared.LogGPFiles, declared.LogGPParameters):
        program: Path = option(..., "Program JSON (P, steps), its compact .npz form (from 'loggp convert'), or a "
                                    "LogGOPSim GOAL schedule (*.goal, or any file whose first word is num_ranks; "
                                    "simulated with LogGOPSim's rules).", argument=True)
        worst_case: bool = shared(cli_option(paper, "worst_case"))
        seed: int | None = shared(cli_option(paper, "seed", default=None))
        ties: declared.Ties | None = shared(cli_option(paper, "ties", default=None))
        gap_origin: declared.GapOrigin | None = shared(cli_option(paper, "gap_origin", default=None))

    @dataclass(frozen=True)
    class Rules(declared.LogGOPSimOptions, Network):
        json_out: Path | None = shared(json_option("finish times, makespan and every processor's operations"))

    @dataclass(frozen=True)
    class SimulateCommand(declared.SimulateOutputs, Rules):
        """The options of ``loggp simulate``, in the order its help lists them."""

    @cli_command(SimulateCommand)
    def simulate(opts: SimulateCommand) -> None:
        """Durations and message sizes may be expressions such as "8*x"; --at x=1000 fixes them.
        In LogGOPSim's semantics messages above S bytes (default 65535, as in LogGOPSim) use a
        rendezvous: the send completes when the receiver matches it.
        """
        from perfcompose.commands.loggp.inputs import is_goal, loggp_params

        if is_goal(opts.program):
            paper_only = [name for name, on in {
                "--worst-case": opts.worst_case, "--seed": opts.seed is not None, "--ties": opts.ties is not None,
                "--gap-origin": opts.gap_origin is not None, "--semantics paper": opts.semantics == "paper",
                "--at": bool(opts.at), "--model-json": opts.model_json is not None,
                "--time-scale": opts.time_scale != 1.0}.items() if on]
            if paper_only:  # a GOAL schedule runs with LogGOPSim's rules: the paper's options do not apply
                raise InputError(f"{paper_only[0]} does not apply to a GOAL schedule", path=opts.program,
                                 hint="a GOAL schedule is simulated with LogGOPSim's rules, which have no random "
                                      "choices; give a program JSON for the paper's semantics")
            from perfcompose.commands.loggp.goal import simulate_goal_file

            simulate_goal_file(opts, loggp_params(opts))
            return
        semantics = opts.semantics or "paper"
        rendezvous = (declared.LOGGOPSIM_S if opts.S is None else opts.S) if semantics == "loggopsim" else math.inf
        opts = replace(opts, semantics=semantics, S=rendezvous, **{k: default_of(paper, k) for k in (
            "seed", "ties", "gap_origin") if getattr(opts, k) is None})
        from perfcompose.progress_callbacks import phases

        with phases(opts.program, ("reading", "simulating")) as step:
            prog, params, template, point = _read(opts)
            if prog is not None and point is not None:
                _simulate_and_show(prog, params, template, point, opts, step)

    return simulate


def __getattr__(name: str) -> Any:
    """``simulate``, the typer command, built on first use so that :func:`run` starts without typer."""
    if name != "simulate":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    command = globals()["simulate"] = _typer_command()
    return command
