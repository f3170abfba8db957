"""``perfcompose loggp``: LogGP simulation of communication, programs, calibration (paper 002)."""
from __future__ import annotations

import typer

app = typer.Typer(no_args_is_help=True,
                  help="LogGP simulation of communication steps and programs; calibration from MPI.")
