"""``perfcompose pamela generate``: the PAMELA model of a data-parallel Python program (the Modeling
Engine), and the machine model it includes calibrated on this computer."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import typer

from perfcompose.commands.common import cli_command, console
from perfcompose.option_fields import option
from perfcompose.pamela.dataparallel.calibration import calibrate as run_calibration
from perfcompose.pamela.dataparallel.machine_model import machine_text
from perfcompose.pamela.dataparallel.modeling_engine import generate


@dataclass(frozen=True)
class GenerateCommand:
    program: Path = option(..., "Data-parallel Python program (a file defining program(dp, ...)); see "
                                "docs/pamela.md.", argument=True)
    out: Path | None = option(None, "Write the model here (default: PROGRAM with .pam, beside it).", aliases=("-o",))
    machine: str = option("machine.pam", "The machine model the model includes (a path relative to the model).",
                          aliases=("-m",))
    calibrate: bool = option(False, "Also calibrate the machine model on this computer and write it where the model "
                                    "includes it.")


@cli_command(GenerateCommand)
def generate_cmd(o: GenerateCommand) -> None:
    program, machine = o.program, o.machine
    target = o.out or program.with_suffix(".pam")
    if not machine.strip() or any(c == '"' or not c.isprintable() for c in machine) or \
            (target.parent / machine).is_dir() or machine.endswith(("/", "\\")):
        raise typer.BadParameter(f"{machine!r}: name the machine model's file (the model writes it in an include "
                                 'between double quotes: no quote, newline or other control character), '
                                 "e.g. machine.pam", param_hint="--machine")
    g = generate(program, machine=machine)
    target.write_text(g.text)
    console.print(f"wrote {target} (parameters {', '.join(g.parameters)}; {g.annotations} annotation"
                  f"{'s' if g.annotations != 1 else ''} used)", highlight=False)
    machine_path = target.parent / machine
    if o.calibrate:
        machine_path.write_text(machine_text(run_calibration(), "perfcompose pamela generate --calibrate"))
        console.print(f"wrote {machine_path} (calibrated here)", highlight=False)
    elif not machine_path.exists():
        console.print(f"{machine_path} does not exist yet: write it with --calibrate", style="dim",
                      highlight=False)
