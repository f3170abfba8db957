"""Run the ``perfcompose`` console script's entry point in this process, as a shell would run the
command: its arguments in ``sys.argv``, its standard output and error captured apart, its exit
status read from ``SystemExit``. The command's imports are paid once per test process instead of
once per command; an exception that escapes the command (a traceback the user would see) fails the
test with that traceback. Tests of what only a new process shows (start-up, the exit status the
shell sees) start one instead."""
from __future__ import annotations

import sys
from dataclasses import dataclass

from typer.testing import CliRunner

__all__ = ["Ran", "perfcompose"]


@dataclass(frozen=True)
class Ran:
    """What a command printed and the status it exited with."""

    returncode: int
    stdout: str
    stderr: str


def _status(code: object) -> tuple[int, str]:
    """The exit status ``sys.exit(code)`` gives, and what it prints on standard error."""
    if code is None:
        return 0, ""
    if isinstance(code, int):
        return code, ""
    return 1, f"{code}\n"


def perfcompose(*args: str, columns: int = 200) -> Ran:
    """``perfcompose ARGS...`` run through :func:`perfcompose.launch.main` with COLUMNS=columns; the
    limits the root options set are put back afterwards."""
    from perfcompose.launch import main
    from perfcompose.limits import limits, set_limits

    before, argv = limits(), sys.argv
    status, message = 0, ""
    with CliRunner().isolation(env={"COLUMNS": str(columns)}) as (out, err, _):
        sys.argv = ["perfcompose", *args]
        try:
            main()
        except SystemExit as exit_:
            status, message = _status(exit_.code)
        finally:
            sys.argv = argv
            set_limits(before.memory, before.steps)
        stdout, stderr = out.getvalue().decode(), err.getvalue().decode() + message
    return Ran(status, stdout, stderr)
