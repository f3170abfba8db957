"""The ``perfcompose`` console script: ``loggp simulate`` runs without typer where its own reader
takes the command line (:func:`perfcompose.commands.loggp.simulate.run`, a few hundredths of a
second where typer's imports alone take half a second); everything else goes to the typer
application of :mod:`perfcompose.cli`, imported only then."""
from __future__ import annotations

import sys


def main() -> None:
    """Entry point of the console script and of ``python -m perfcompose``."""
    from perfcompose.commands.loggp.simulate import run

    status = run(sys.argv[1:])
    if status is not None:
        sys.exit(status)
    from perfcompose.cli import main as typer_main

    typer_main()
