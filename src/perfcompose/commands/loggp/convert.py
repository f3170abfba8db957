"""``perfcompose loggp convert``: a LogGP program written in another form (.npz, JSON, GOAL)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from perfcompose.commands.common import cli_command, err_console
from perfcompose.commands.loggp.inputs import at_point
from perfcompose.errors import InputError
from perfcompose.loggp.goal.schedule import program_to_goal, write_goal
from perfcompose.loggp.steps.npzfile import is_npz, read_program_npz, write_program_npz
from perfcompose.loggp.steps.program import program_to_json
from perfcompose.loggp.steps.template import read_template
from perfcompose.option_fields import option


@dataclass(frozen=True)
class ConvertCommand:
    source: Path = option(..., "Program JSON (or .npz).", argument=True)
    target: Path = option(..., "Where to write it: .npz (compact, fast to read), .json, or .goal (LogGOPSim's "
                               "text).", argument=True)
    at: list[str] | None = option(None, "NAME=VALUE for a program with expressions.")
    time_scale: float = option(1.0, "For .goal: multiply times by this (GOAL holds integers).")


@cli_command(ConvertCommand)
def convert(o: ConvertCommand) -> None:
    source, target = o.source, o.target
    if target.suffix not in (".npz", ".json", ".goal"):
        raise InputError(f"cannot tell the form of {target.name} from its suffix",
                         hint="name the target .npz, .json or .goal")
    if is_npz(source):
        prog = read_program_npz(source)
    else:
        template = read_template(source)
        prog = template.instantiate(at_point(template, o.at, source))
    if target.suffix == ".npz":
        write_program_npz(prog, target)
    elif target.suffix == ".json":
        target.write_text(json.dumps(program_to_json(prog)) + "\n")
    else:
        write_goal(program_to_goal(prog), target, time_scale=o.time_scale)
    err_console.print(f"{prog.P} processors, {len(prog.steps)} steps written to {target}")
