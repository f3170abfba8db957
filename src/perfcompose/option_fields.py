"""Options declared once, as fields of a frozen dataclass: each field carries the option's default,
its help, its command-line flag and its design-file key, and the command line's options, the
design file's keys and the library's defaults are all read from it.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Fit:
...     degree: int = option(3, "Degree of the polynomial.", minimum=1)
>>> flag_of(Fit, "degree"), default_of(Fit, "degree"), help_of(Fit, "degree")
('--degree', 3, 'Degree of the polynomial.')

This module imports only the standard library (typer when an option is built), so that a command
module can build its options at import time without slowing down ``perfcompose --help``.
"""
from __future__ import annotations

import types
import typing
from dataclasses import Field, field, fields
from typing import Any

__all__ = ["option", "declared", "default_of", "help_of", "flag_of", "key_of", "design_keys", "cli_option",
           "value_kind", "OPTION_HELP"]

#: the metadata key under which a field's help is kept; a field without it is no option
OPTION_HELP = "help"
_SAME: Any = object()


def option(default: Any, help: str, *, flag: str | None = None, key: str | None = None,
           minimum: float | None = None) -> Any:
    """A dataclass field declaring an option: its ``default`` and ``help``; its command-line
    ``flag`` (default ``--name`` with dashes) and design-file ``key`` (default the field's name);
    ``minimum``, the least value the command line accepts."""
    return field(default=default, metadata={OPTION_HELP: help, "flag": flag, "key": key, "min": minimum})


def declared(cls: type, name: str) -> Field[Any]:
    """The field of ``cls`` that declares the option ``name``."""
    for f in fields(cls):
        if f.name == name and OPTION_HELP in f.metadata:
            return f
    raise KeyError(f"{cls.__name__} declares no option {name!r}")


def default_of(cls: type, name: str) -> Any:
    """The option's default, as declared."""
    return declared(cls, name).default


def help_of(cls: type, name: str) -> str:
    """The option's help text, as declared."""
    return str(declared(cls, name).metadata[OPTION_HELP])


def flag_of(cls: type, name: str) -> str:
    """The option's command-line flag: as declared, else ``--name`` with dashes."""
    return declared(cls, name).metadata["flag"] or "--" + name.replace("_", "-")


def key_of(cls: type, name: str) -> str:
    """The option's design-file key: as declared, else the field's name."""
    return declared(cls, name).metadata["key"] or name


def design_keys(cls: type) -> tuple[str, ...]:
    """The design-file keys of every option ``cls`` declares, in declaration order."""
    return tuple(key_of(cls, f.name) for f in fields(cls) if OPTION_HELP in f.metadata)


def value_kind(cls: type, name: str) -> type | tuple[type, ...]:
    """The Python type(s) a design file's value of the option must have: a Literal's values'
    type, the type of an optional value, and ints as well as floats for a float."""
    hint = typing.get_type_hints(cls)[name]
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if typing.get_origin(hint) in (typing.Union, types.UnionType) and len(args) == 1:
        hint = args[0]
    if typing.get_origin(hint) is typing.Literal:
        hint = type(typing.get_args(hint)[0])
    if hint is float:
        return (int, float)
    if not isinstance(hint, type):
        raise TypeError(f"{cls.__name__}.{name}: no design-file type for {hint!r}")
    return hint


def cli_option(cls: type, name: str, *, default: Any = _SAME, **extra: Any) -> Any:
    """The ``typer.Option`` of a declared option: its flag, default, help and minimum.

    ``default`` replaces the declared default on the command line (e.g. None, to tell a flag
    given from one left out); the help then still shows the declared default.
    """
    import typer

    f = declared(cls, name)
    kwargs: dict[str, Any] = {"help": f.metadata[OPTION_HELP], **extra}
    if f.metadata["min"] is not None:
        kwargs["min"] = f.metadata["min"]
    if default is not _SAME:
        kwargs.setdefault("show_default", str(f.default))
    return typer.Option(f.default if default is _SAME else default, flag_of(cls, name), **kwargs)
