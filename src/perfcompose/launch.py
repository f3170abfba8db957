"""The ``perfcompose`` console script: a command that can run without building the whole command
line runs so (``loggp simulate`` of a GOAL schedule, or of a program in LogGOPSim's semantics:
:mod:`perfcompose.commands.loggp_simulate_lean`); everything else, and anything that command
does not take, goes to the typer application of :mod:`perfcompose.cli`. Each is imported only
when it runs (the lean command would otherwise cost every other command its imports)."""
from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

__all__ = ["main", "LEAN"]

#: the commands that may run without typer (the words that name them), and the module that runs them
LEAN = ((("loggp", "simulate"), "perfcompose.commands.loggp_simulate_lean"),)


def _lean(argv: Sequence[str]) -> int | None:
    """The exit status of the lean command that ran ``argv``, or None where none did."""
    for words, module in LEAN:
        if all(w in argv for w in words):
            status: int | None = importlib.import_module(module).run(argv)
            return status
    return None


def main() -> None:
    """Entry point of the console script and of ``python -m perfcompose``."""
    status = _lean(sys.argv[1:])
    if status is not None:
        sys.exit(status)
    importlib.import_module("perfcompose.cli").main()
