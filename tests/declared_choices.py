"""The value sets of the choices the library declares once (perfcompose.choices and
perfcompose.loggp.options), as the tests that look for choices written again read them."""
from __future__ import annotations

import enum
import typing

import perfcompose.choices
import perfcompose.loggp.options


def declared_choices() -> list[set[str]]:
    """Each declared Literal's values, and each declared Enum's member values, as sets of strings."""
    found = []
    for module in (perfcompose.choices, perfcompose.loggp.options):
        for value in vars(module).values():
            if typing.get_origin(value) is typing.Literal:
                found.append({str(v) for v in typing.get_args(value)})
            elif isinstance(value, type) and issubclass(value, enum.Enum):
                found.append({str(m.value) for m in value})
    return found
