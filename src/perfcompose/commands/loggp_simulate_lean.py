"""``perfcompose loggp simulate`` without typer, NumPy or SymPy, where the command line and the
input allow it: LogGOPSim's rules on a GOAL schedule, or on a program (.npz, or JSON of plain
numbers) with ``--semantics loggopsim``, the compiled readers and kernels working on plain typed
buffers. Such a process starts in a few hundredths of a second and a few megabytes, where the
full command line's imports alone (typer, pydantic, NumPy) take half a second and 40 MB.

:func:`run` returns None for anything else (an option it does not read, output that needs NumPy
such as ``--json`` or ``--timeline``, the paper's semantics, a program small enough that its
operations are listed, any input or limit problem), and the caller runs the full command, which
prints the same results and names every error. The options are the declared ones
(:mod:`perfcompose.loggp.options`, :mod:`perfcompose.limits`), read by :mod:`.declared_args`.

The results are written as plain text where Rich would print them without styles
(:mod:`.loggp_plain_tables`: output not a terminal); else Rich, which prints them
(:mod:`.loggp_tables`), is imported once the simulation is done and the input's buffers are
freed, so that its few megabytes are not added to the simulation's peak. A progress bar
(:mod:`.loggp_phases`) is shown only for inputs that take seconds here.
"""
from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from perfcompose.commands import loggp_plain_tables as plain
from perfcompose.commands.declared_args import options, read_args
from perfcompose.errors import PerfcomposeError
from perfcompose.limits import LimitOptions, parse_bytes, set_limits
from perfcompose.loggp.goal.goal_buffers import GoalBuffers, read_goal_buffers
from perfcompose.loggp.kernels.backend import extension
from perfcompose.loggp.kernels.typed_buffers import empty
from perfcompose.loggp.options import (
    LOGGOPSIM_S,
    LogGOPSimOptions,
    LogGPFiles,
    LogGPOptions,
    LogGPParameters,
    SimulateOutputs,
)
from perfcompose.loggp.params import LogGP, given_params
from perfcompose.loggp.work_size import check_goal_simulation, check_reading, check_simulation
from perfcompose.option_fields import default_of

if TYPE_CHECKING:
    from perfcompose.loggp.steps.program_buffers import ProgramBuffers

__all__ = ["run"]

#: the options given before the command
ROOT = options(*((LimitOptions, name) for name in ("max_memory", "max_steps", "no_limits")))
#: the options of ``loggp simulate`` read here (the rest, e.g. --json, is the full command's)
SIMULATE = options(*((LogGPParameters, name) for name in "LogG"), (LogGPFiles, "params"),
                   *((LogGPOptions, name) for name in ("worst_case", "seed", "ties", "gap_origin")),
                   *((LogGOPSimOptions, name) for name in ("semantics", "O", "S")),
                   *((SimulateOutputs, name) for name in ("timeline", "to_goal", "time_scale", "at", "model_json")))
#: options read but left to the full command: their work or output needs NumPy or SymPy, or (on a
#: GOAL schedule, or in LogGOPSim's semantics) they are refused or unused there
_FULL = {"worst_case", "seed", "ties", "gap_origin", "timeline", "to_goal", "time_scale", "at", "model_json"}
#: a program with at most this many operations has them listed, which takes the full command
_LISTED = 60
#: inputs of at least this many bytes get the progress bar (about two seconds of work here)
_BAR_INPUT = 128 * 2 ** 20
#: without the compiled row splitter (_cmessage_rows) a JSON program of more bytes goes to the full
#: command: its rows are checked in Python, at about 2 us a message, which beyond a few hundred
#: thousand messages costs more than NumPy's start
_JSON_BYTES = 8 * 2 ** 20


def _command(argv: Sequence[str]) -> tuple[dict[str, Any], dict[str, Any], Path] | None:
    """The root options, the command's options and the input of ``[root options] loggp simulate
    INPUT [options]``, or None where the command line is anything else."""
    for at in range(len(argv) - 1):
        if argv[at] == "loggp" and argv[at + 1] == "simulate":
            break
    else:
        return None
    root = read_args(argv[:at], ROOT, 0)
    command = read_args(argv[at + 2:], SIMULATE, 1)
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
    """Run ``argv`` (the arguments after the program's name) here and return the exit status, or
    None where the full command must run it."""
    got = _command(argv)
    if got is None:
        return None
    root, given, path = got
    form = _form(path)
    if form is None or _FULL & given.keys() or (form != "goal" and given.get("semantics") != "loggopsim"):
        return None
    if form == "json" and path.stat().st_size > _JSON_BYTES and extension("_cmessage_rows") is None:
        return None
    if form == "goal" and given.get("semantics") == "paper":
        return None
    try:
        set_limits(parse_bytes(root.get("max_memory", default_of(LimitOptions, "max_memory"))),
                   root.get("max_steps", default_of(LimitOptions, "max_steps")), unlimited="no_limits" in root)
        flags = {"params_file": given.get("params"), **{k: given.get(k) for k in "LogG"}}
        O = given.get("O", default_of(LogGOPSimOptions, "O"))
        S = given.get("S", LOGGOPSIM_S)
        with _phases(path) as step:
            if form == "goal":
                return _goal(path, flags, O, S, step)
            return _program(path, form, flags, O, S, step)
    except (PerfcomposeError, OSError, ValueError):
        return None  # the full command says what is wrong


@contextlib.contextmanager
def _phases(path: Path) -> Iterator[Callable[[str | None], None]]:
    """The progress bar over reading and simulating for an input that takes seconds, else nothing."""
    if path.stat().st_size < _BAR_INPUT:
        yield lambda name: None
        return
    with importlib.import_module("perfcompose.commands.loggp_phases").phases(path, ("reading", "simulating")) as step:
        yield step


def _tables() -> ModuleType:
    """What prints the results (Rich, imported only now)."""
    return importlib.import_module("perfcompose.commands.loggp_tables")


def _write(text: str) -> None:
    """Results printed as plain text (Rich would print the same without styles)."""
    sys.stdout.write(text)
    sys.stdout.flush()


def _params(flags: dict[str, Any], unit: str = "") -> LogGP | None:
    """The LogGP parameters, or None where they would be converted to the program's unit (the full
    command says so)."""
    base = given_params(flags["params_file"], {k: flags[k] for k in "LogG"})
    return None if unit and base.unit and base.unit != unit else base


def _goal(path: Path, flags: dict[str, Any], O: float, S: float, step: Any) -> int | None:
    params = _params(flags)
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
    text = plain.goal_result_text(str(path), num_ranks, params, O, S, finish)
    if text is not None:
        _write(text)
    else:
        _tables().print_goal_result(path, num_ranks, params, O, S, finish)
    return 0


def _goal_finish(s: GoalBuffers, params: Any, O: float, S: float) -> Any:
    """The ranks' finish times under LogGOPSim's rules (the compiled GOAL loop), or None where
    the schedule deadlocks or the kernel is not built."""
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


def _program(path: Path, form: str, flags: dict[str, Any], O: float, S: float, step: Any) -> int | None:
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
    params = _params(flags, prog.unit)
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
    text = plain.program_result_text(title, unit, finish, computation, communication, operations, max(finish),
                              plain.critical(finish, computation))
    if text is not None:
        _write(text)
        return 0
    tables = _tables()
    tables.print_program_table(title, unit, finish, computation, communication, operations)
    tables.print_makespan(max(finish), unit, tables.critical(finish, computation))
    return 0


def _program_finish(prog: ProgramBuffers, params: Any, O: float, S: float) -> Any:
    """The processors' finish times under LogGOPSim's rules (the compiled kernel on the program's
    steps), or None where the kernel is not built or finds the steps inconsistent."""
    kernel = getattr(extension("_cstep"), "loggopsim_steps", None)
    if kernel is None:
        return None
    finish = empty(prog.P, "d")
    left = kernel(prog.P, prog.kinds, prog.msg_ptr, prog.src, prog.dst, prog.nbytes, prog.order, prog.durations,
                  float(params.L), float(params.o), float(params.g), float(params.G), float(O), float(S), finish)
    return finish if left == 0 else None
