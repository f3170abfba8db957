"""Run the ``perfcompose`` console script's entry point in this process, as a shell would run the
command: its arguments in ``sys.argv``, its standard output and error captured apart, its exit
status read from ``SystemExit``. The command's imports are paid once per test process instead of
once per command; an exception that escapes the command (a traceback the user would see) fails the
test with that traceback. Tests of what only a new process shows (start-up, the exit status the
shell sees) start one instead."""
from __future__ import annotations

import os
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
    """``perfcompose ARGS...`` run through :func:`perfcompose.launch.main` with COLUMNS=columns. What
    the command changes for the rest of the process is put back afterwards: the limits the root
    options set, and ``sys.path`` with the modules imported from the working directory (the user's
    own stages)."""
    from perfcompose.commands.consoles import console, err_console
    from perfcompose.launch import main
    from perfcompose.limits import limits, set_limits

    before, argv, path, here, known = limits(), sys.argv, list(sys.path), os.getcwd(), set(sys.modules)
    # the consoles take their width when first imported (imported above, outside this run's COLUMNS):
    # this run's width for this run only, so that later tests see the width they ask for
    widths = console.width, err_console.width
    status, message = 0, ""
    with CliRunner().isolation(env={"COLUMNS": str(columns)}) as (out, err, _):
        sys.argv = ["perfcompose", *args]
        console.width = err_console.width = columns
        try:
            main()
        except SystemExit as exit_:
            status, message = _status(exit_.code)
        finally:
            sys.argv, sys.path[:] = argv, path
            console.width, err_console.width = widths
            set_limits(before.memory, before.steps)
            _forget_new_modules_under(here, known)
        stdout, stderr = out.getvalue().decode(), err.getvalue().decode() + message
    return Ran(status, stdout, stderr)


def _forget_new_modules_under(folder: str, known: set[str]) -> None:
    """Drop the modules, not among ``known``, imported from files under ``folder`` (not from the
    installed libraries or this project's source)."""
    root = os.path.join(folder, "")
    for name in set(sys.modules) - known:
        file = getattr(sys.modules[name], "__file__", None) or ""
        if file.startswith(root) and "site-packages" not in file and "/src/perfcompose/" not in file:
            del sys.modules[name]
