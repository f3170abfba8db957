"""The command tree: each listed help opens the command's own, and every choice option comes from one
library declaration (an Enum or Literal), never a hand-written list or a plain ``str``."""
from __future__ import annotations

import inspect

import typer.main
from command_tree import commands
from declared_choices import declared_choices

from perfcompose.cli import app

# options whose values form a fixed set; each must be a checked choice
CHOICE_OPTIONS = {"--picture", "--pipe", "--workers", "--format", "--from", "--to", "--aggregate",
                  "--negative-exponents",
                  "--ties", "--gap-origin", "--semantics", "--strategy", "--clock", "--skeleton", "--method",
                  "--method-t", "--method-a", "--direction"}


def test_each_listed_help_opens_the_commands_own() -> None:
    """The listing's line is the first paragraph of the command's help; what the command's
    docstring says follows it."""
    root = typer.main.get_command(app)
    listed_commands = 0
    for path, command in commands():
        listed = root
        for name in path[:-1]:
            listed = listed.get_command(None, name)
        placeholder = {e.name: e for e in getattr(listed, "entries", ())}.get(path[-1])
        own = inspect.cleandoc(command.help or "").split("\n\n")[0]
        if placeholder:
            listed_commands += 1
            assert placeholder.help == own, " ".join(path)
    assert listed_commands >= 27
    show = dict(commands())[("show",)]
    assert show.help.endswith("\n\nOf an Extra-P saved experiment (.extra-p), also the model sets saved with it.")


def test_every_choice_option_comes_from_a_library_declaration() -> None:
    declared = declared_choices()
    choices = 0
    for path, command in commands():
        for param in command.params:
            described = param.type_descriptor
            if described.is_choice:
                choices += 1
                assert {str(c) for c in described.choices} in declared, (path, param.opts)
            elif set(param.opts) & CHOICE_OPTIONS and not param.multiple:
                # typer cannot check a repeatable option against a Literal; the library checks those
                raise AssertionError(f"perfcompose {' '.join(path)} {param.opts}: a choice typed "
                                     f"{param.type_descriptor.annotation}")
    assert choices >= 10
