"""The arguments and options the ``perfcompose pamela`` commands share: the model file, the process,
the paper's phi rule and parameter values."""
from __future__ import annotations

import typer

MODEL = typer.Argument(..., help="PAMELA model file (.pam).")
PROCESS = typer.Option("main", "--process", "-p", help="The process to compile (default main).")
PAPER_PHI = typer.Option(False, "--paper-phi", help="Use the paper's printed rule phi = t/b for use(fcfs(a, b), t) "
                                                     "instead of t.")
VALUES = typer.Argument(None, help="Parameter values, e.g. P=1000 N=1e6.")
UNIT = typer.Option("us", "--unit", help="The time unit of the model's numbers (PAMELA's examples are in "
                                         "microseconds): us, ms, s or ns.")
