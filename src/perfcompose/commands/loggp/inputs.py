"""What the ``perfcompose loggp`` commands read from their options: the LogGP parameters (a file and/or flags), the
point of a program with expressions (``--at``) and whether a file is a GOAL schedule."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from perfcompose.assignments import parse_assignments
from perfcompose.commands.consoles import err_console
from perfcompose.errors import InputError
from perfcompose.loggp.params import given_params


def loggp_params(given: Any, unit: str = "") -> Any:
    """The LogGP parameters from --params and/or --L --o --g --G (the options ``given``: flags override the file),
    converted to the program's unit when both name one."""
    base = given_params(given.params, {k: getattr(given, k) for k in "LogG"},
                        spell=lambda names: " ".join(f"--{k}" for k in names),
                        hint="give --L --o --g --G, or --params FILE (from 'perfcompose loggp calibrate')")
    if unit and base.unit and base.unit != unit:
        converted = base.to(unit)
        err_console.print(f"parameters converted from {base.unit} to the program's unit {unit}")
        return converted
    return base


def at_point(template: Any, items: list[str] | None, program: Path) -> dict[str, float]:
    """The ``--at NAME=VALUE`` values of the program's parameters: every parameter, nothing else."""
    values, names = parse_assignments(items, option="--at"), template.parameters
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


def is_goal(path: Path) -> bool:
    """Whether ``path`` holds a GOAL schedule: named *.goal, or text whose first word is num_ranks
    (whatever its name, e.g. a schedule saved as .txt; a zip archive is a program's compact form, .npz)."""
    if path.suffix == ".goal":
        return True
    try:
        with open(path, "rb") as fh:
            raw = fh.read(4096)
    except OSError:
        return False  # the program reader reports it
    from perfcompose.loggp.goal.schedule import looks_like_goal

    return not raw.startswith(b"PK\x03\x04") and looks_like_goal(raw.decode("utf-8", errors="replace"))
