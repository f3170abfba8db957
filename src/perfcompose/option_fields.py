"""Options declared once, as fields of a frozen dataclass: each field carries the option's default,
its help, its command-line flag and its design-file key, and the command line's options, the
design file's keys and the library's defaults are all read from it.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Fit:
...     degree: int = option(3, "Degree of the polynomial.", minimum=1)
>>> flag_of(Fit, "degree"), default_of(Fit, "degree")
('--degree', 3)

This module imports only the standard library (typer when an option is built), so that a command
module can build its options at import time without slowing down ``perfcompose --help``.
"""
from __future__ import annotations

import functools
import inspect
import types
import typing
from collections.abc import Callable
from dataclasses import Field, field, fields
from typing import Any

__all__ = ["option", "shared", "declared", "default_of", "flag_of", "key_of", "design_keys", "cli_option",
           "command", "value_hint", "value_kind", "OPTION_HELP"]

#: the metadata key under which a field's help is kept; a field without it is no option
OPTION_HELP = "help"
_SAME: Any = object()


def option(default: Any, help: str, *, flag: str | None = None, key: str | None = None,
           minimum: float | None = None, argument: bool = False, **cli: Any) -> Any:
    """A dataclass field declaring an option: its ``default`` and ``help``; its command-line
    ``flag`` (default ``--name`` with dashes) and design-file ``key`` (default the field's name);
    ``minimum``, the least value the command line accepts; ``argument``, a positional argument
    rather than a flag; ``cli``, what else the command line's parameter takes (more flags, such
    as a short one, as ``aliases``; a ``callback``; a ``metavar``)."""
    return field(default=default, metadata={OPTION_HELP: help, "flag": flag, "key": key, "min": minimum,
                                            "argument": argument, "cli": cli})


def shared(parameter: Any) -> Any:
    """A dataclass field whose command-line parameter is one that several commands share (built
    in :mod:`perfcompose.commands.common`, where its default and help are written); the field's
    default is that parameter's."""
    return field(default=parameter.default, metadata={"parameter": parameter})


def declared(cls: type, name: str) -> Field[Any]:
    """The field of ``cls`` that declares the option ``name``."""
    for f in fields(cls):
        if f.name == name and OPTION_HELP in f.metadata:
            return f
    raise KeyError(f"{cls.__name__} declares no option {name!r}")


def default_of(cls: type, name: str) -> Any:
    """The option's default, as declared."""
    return declared(cls, name).default


def flag_of(cls: type, name: str) -> str:
    """The option's command-line flag: as declared, else ``--name`` with dashes."""
    return declared(cls, name).metadata["flag"] or "--" + name.replace("_", "-")


def key_of(cls: type, name: str) -> str:
    """The option's design-file key: as declared, else the field's name."""
    return declared(cls, name).metadata["key"] or name


def design_keys(cls: type) -> tuple[str, ...]:
    """The design-file keys of every option ``cls`` declares, in declaration order."""
    return tuple(key_of(cls, f.name) for f in fields(cls) if OPTION_HELP in f.metadata)


def value_hint(cls: type, name: str) -> Any:
    """The type hint of the option's value: that of an optional value without its None."""
    hint = typing.get_type_hints(cls)[name]
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    return args[0] if typing.get_origin(hint) in (typing.Union, types.UnionType) and len(args) == 1 else hint


def value_kind(cls: type, name: str) -> type | tuple[type, ...]:
    """The Python type(s) a design file's value of the option must have: a Literal's values'
    type, the type of an optional value, and ints as well as floats for a float."""
    hint = value_hint(cls, name)
    if typing.get_origin(hint) is typing.Literal:
        hint = type(typing.get_args(hint)[0])
    if hint is float:
        return (int, float)
    if not isinstance(hint, type):
        raise TypeError(f"{cls.__name__}.{name}: no design-file type for {hint!r}")
    return hint


def cli_option(cls: type, name: str, *, default: Any = _SAME, **extra: Any) -> Any:
    """The ``typer.Option`` (or ``typer.Argument``) of a declared option: its flag, default, help
    and minimum, and ``extra`` settings of the parameter (more flags as ``aliases``).

    ``default`` replaces the declared default on the command line (e.g. None, to tell a flag
    given from one left out); the help then still shows the declared default.
    """
    import typer

    f = declared(cls, name)
    cli = {**(f.metadata.get("cli") or {}), **extra}
    aliases = cli.pop("aliases", ())
    kwargs: dict[str, Any] = {"help": f.metadata[OPTION_HELP], **cli}
    if f.metadata["min"] is not None:
        kwargs["min"] = f.metadata["min"]
    if default is not _SAME:
        kwargs.setdefault("show_default", str(f.default))
    value = f.default if default is _SAME else default
    if f.metadata.get("argument"):
        return typer.Argument(value, **kwargs)
    return typer.Option(value, flag_of(cls, name), *aliases, **kwargs)


def command(cls: type) -> Callable[[Callable[[Any], Any]], Callable[..., Any]]:
    """A decorator making ``run(options)`` a command whose parameters are the fields of ``cls``
    (declared options, and shared ones): the command line's values build ``cls``, which ``run``
    gets; the command keeps ``run``'s name and docstring."""
    hints = typing.get_type_hints(cls)
    parameters = [inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, annotation=hints[f.name],
                                    default=f.metadata.get("parameter") or cli_option(cls, f.name))
                  for f in fields(cls) if OPTION_HELP in f.metadata or "parameter" in f.metadata]

    def decorate(run: Callable[[Any], Any]) -> Callable[..., Any]:
        @functools.wraps(run)
        def main(**given: Any) -> Any:
            return run(cls(**given))

        main.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
        main.__annotations__ = {p.name: p.annotation for p in parameters}
        return main

    return decorate
