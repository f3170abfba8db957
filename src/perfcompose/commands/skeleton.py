"""``perfcompose skeleton``: forecasts of T(n,p) for algorithmic skeletons (paper 001)."""
from __future__ import annotations

import typer

app = typer.Typer(no_args_is_help=True,
                  help="Skeleton-based estimation: forecast T(n,p) in n and p, penalty and serial fraction.")
