"""``perfcompose pamela``: compile, evaluate and simulate PAMELA models (paper 004)."""
from __future__ import annotations

import typer

app = typer.Typer(no_args_is_help=True,
                  help="PAMELA process models compiled to symbolic cost models, evaluated and simulated.")
