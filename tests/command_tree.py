"""Every command of the CLI, as the tests that check them all walk it."""
from __future__ import annotations

import typer.main

from perfcompose.cli import app


def commands(group=None, path=()):
    """(path, command) for every command and group under ``group`` (the whole CLI by default)."""
    group = group or typer.main.get_command(app)
    ctx = group.make_context("perfcompose", ["--help"], resilient_parsing=True)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        yield (*path, name), command
        if hasattr(command, "list_commands"):
            yield from commands(command, (*path, name))
