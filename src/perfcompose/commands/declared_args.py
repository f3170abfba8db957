"""A command line read from the declared options alone (:mod:`perfcompose.option_fields`), without
typer: for the commands that can run without building the whole command line (``loggp simulate``
of a large input, whose start-up would otherwise cost more than its simulation).

It reads only what it can read exactly as the full command line does: ``--flag VALUE``,
``--flag=VALUE``, switches, repeated list options and positional arguments. For anything else (a
flag it does not know, ``--help``, a value it would read differently, a missing value) it returns
None, and the caller hands the whole command line to typer, which reads or refuses it.

>>> from dataclasses import dataclass, fields
>>> from perfcompose.option_fields import option
>>> @dataclass(frozen=True)
... class Knobs:
...     size: float = option(1.0, "Size.")
...     quiet: bool = option(False, "Say less.")
>>> read_args(["in.txt", "--size=2e3", "--quiet"], options(Knobs), 1)
({'size': 2000.0, 'quiet': True}, ['in.txt'])
"""
from __future__ import annotations

import re
import typing
from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from perfcompose.option_fields import OPTION_HELP, declared, flag_of, value_hint

#: numbers as typer reads them, and nothing it might read otherwise (no '1_000', 'inf', ' 2')
_FLOAT = re.compile(r"[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?")
_INT = re.compile(r"[-+]?\d+")


@dataclass(frozen=True)
class Declared:
    """One declared option as read here: its field's name, its flag, the type of its value
    (``bool`` for a switch) and, for a Literal, its choices; ``many`` for a list option."""

    name: str
    flag: str
    kind: type
    choices: tuple[Any, ...] = ()
    many: bool = False


def _declared(cls: type, name: str) -> Declared:
    declared(cls, name)  # a KeyError for an option that is not declared
    hint = value_hint(cls, name)
    many = typing.get_origin(hint) is list
    if many:
        hint = typing.get_args(hint)[0]
    choices: tuple[Any, ...] = ()
    if typing.get_origin(hint) is typing.Literal:
        choices = typing.get_args(hint)
        hint = type(choices[0])
    return Declared(name, flag_of(cls, name), hint, choices, many)


def options(*classes: type) -> dict[str, Declared]:
    """Every option the classes declare, by flag."""
    return {d.flag: d for d in (_declared(cls, f.name) for cls in classes for f in fields(cls)
                                if OPTION_HELP in f.metadata)}


def _value(option: Declared, text: str) -> Any:
    """The value of ``text`` for ``option``, or None where it might be read otherwise by typer."""
    if option.choices:
        return text if text in option.choices else None
    pattern = {float: _FLOAT, int: _INT}.get(option.kind)
    if pattern is not None:
        return option.kind(text) if pattern.fullmatch(text) else None
    if option.kind in (Path, str):
        return option.kind(text) if text and not text.startswith("-") else None
    return None


def read_args(args: Sequence[str], known: dict[str, Declared], positional: int
              ) -> tuple[dict[str, Any], list[str]] | None:
    """The options given (by field name) and the ``positional`` arguments, or None where the
    command line holds anything not read here exactly as typer reads it."""
    given: dict[str, Any] = {}
    rest: list[str] = []
    words = iter(args)
    for arg in words:
        if not arg.startswith("-") or arg == "-":
            rest.append(arg)
            continue
        flag, eq, text = arg.partition("=")
        option = known.get(flag)
        if option is None:
            return None
        if option.kind is bool:
            value = None if eq else True
        else:  # a missing value reads as "", which no option takes
            value = _value(option, text if eq else next(words, ""))
        if value is None:
            return None
        if option.many:
            given.setdefault(option.name, []).append(value)
        elif option.name in given:
            return None  # given twice: typer keeps the last, but say nothing about it here
        else:
            given[option.name] = value
    return None if len(rest) != positional else (given, rest)
