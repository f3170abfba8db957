"""A package's public names imported on first use (PEP 562), so that importing the package, and
the command line, load only the modules a caller uses."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from importlib import import_module
from typing import Any


def lazy_names(package: str, public: Mapping[str, str], namespace: dict[str, Any],
               listed: Sequence[str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The package's ``__getattr__`` and ``__dir__``: a name in ``public`` (name -> module) is
    imported from its module on first use and kept in the package's ``namespace``."""
    def getattr_(name: str) -> Any:
        module = public.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module), name)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        return sorted(listed)

    return getattr_, dir_
