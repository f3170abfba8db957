"""``perfcompose pamela generate``: the PAMELA model of a data-parallel Python program (the Modeling
Engine), and the machine model it includes calibrated on this computer."""
from __future__ import annotations

from pathlib import Path

import typer

from perfcompose.commands.common import console, user_errors
from perfcompose.pamela.dataparallel.calibration import calibrate as run_calibration
from perfcompose.pamela.dataparallel.machine_model import machine_text
from perfcompose.pamela.dataparallel.modeling_engine import generate


@user_errors
def generate_cmd(program: Path = typer.Argument(..., help="Data-parallel Python program (a file defining "
                                                "program(dp, ...)); see docs/pamela.md."),
                 out: Path | None = typer.Option(None, "--out", "-o", help="Write the model here "
                                                    "(default: PROGRAM with .pam, beside it)."),
                 machine: str = typer.Option("machine.pam", "--machine", "-m", help="The machine model the "
                                             "model includes (a path relative to the model)."),
                 calibrate: bool = typer.Option(False, "--calibrate", help="Also calibrate the machine model "
                                                "on this computer and write it where the model includes it.")) -> None:
    target = out or program.with_suffix(".pam")
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
    if calibrate:
        machine_path.write_text(machine_text(run_calibration(), "perfcompose pamela generate --calibrate"))
        console.print(f"wrote {machine_path} (calibrated here)", highlight=False)
    elif not machine_path.exists():
        console.print(f"{machine_path} does not exist yet: write it with --calibrate", style="dim",
                      highlight=False)
