"""Command groups whose commands are imported only when they are run or their own help is shown.

This is click's "lazy loading subcommands" pattern for typer: a group lists its commands from
:class:`Entry` declarations (name, one-line help, where the command lives), so that
``perfcompose --help`` prints the full list without importing a single command module. Running a
command, or asking for its help, imports its module and builds the real command from it; a module
that needs an optional extra not installed here (perfcompose.extras) is one message and exit 2.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from importlib import import_module
from typing import Any, ClassVar

import typer
from typer import _click
from typer.core import TyperCommand, TyperGroup

from perfcompose.commands.consoles import print_error
from perfcompose.extras import MissingExtraError


@dataclass(frozen=True)
class Entry:
    """One command of a lazy group.

    ``help`` is the first paragraph of the command's help, printed in the group's listing and
    written only here: the command's docstring holds what follows it. ``target`` is ``"module:attribute"``, the
    module named under ``perfcompose.commands``: a command function annotated for typer. A group gives ``entries``
    instead of a target.
    """

    name: str
    help: str
    target: str = ""
    entries: tuple[Entry, ...] = ()


def _load(entry: Entry) -> _click.Command:
    """The real command of an entry: its module imported, the typer command built, its help the
    entry's followed by what the command's own docstring adds (the entry's line is written once)."""
    if entry.entries:
        return lazy_group(entry.entries)(name=entry.name, help=entry.help, no_args_is_help=True)
    module, _, attribute = entry.target.partition(":")
    try:
        obj = getattr(import_module("perfcompose.commands." + module), attribute)
    except MissingExtraError as exc:  # the command's module needs an optional extra not installed here
        print_error(exc)
        raise typer.Exit(2) from None
    single = typer.Typer(add_completion=False)
    single.command(entry.name)(obj)
    command = typer.main.get_command(single)
    command.name = entry.name
    details = inspect.cleandoc(command.help or "")
    command.help = entry.help + (f"\n\n{details}" if details else "")
    return command


class LazyGroup(TyperGroup):
    """A typer group that imports each command's module on first use; see :func:`lazy_group`."""

    entries: ClassVar[tuple[Entry, ...]] = ()

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._listing = False
        self._entries = {e.name: e for e in self.entries}
        for entry in self.entries:
            # placeholders keep the order and let typer suggest names for a mistyped command
            self.commands.setdefault(entry.name, TyperCommand(name=entry.name, help=entry.help))

    def get_command(self, ctx: _click.Context, cmd_name: str) -> _click.Command | None:
        if cmd_name in self._entries and not self._listing:
            self.commands[cmd_name] = _load(self._entries.pop(cmd_name))
        return super().get_command(ctx, cmd_name)

    def format_help(self, ctx: _click.Context, formatter: _click.HelpFormatter) -> None:
        """The group's help; its listing prints each command's declared help without loading it."""
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


def lazy_group(entries: tuple[Entry, ...]) -> type[LazyGroup]:
    """A :class:`LazyGroup` class over these entries (typer builds the group from a class)."""
    return type("LazyGroup", (LazyGroup,), {"entries": entries})
