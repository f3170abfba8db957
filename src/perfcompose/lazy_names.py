"""A package's public names imported on first use (PEP 562), so that importing the package, and
the command line, load only the modules a caller uses.

The names are written once, as the imports of the package's ``if TYPE_CHECKING:`` block: type
checkers and editors read them there, and :func:`lazy_exports` reads the same block to know
which module holds each name.
"""
from __future__ import annotations

import ast
from collections.abc import Callable
from importlib import import_module
from typing import Any


def lazy_exports(namespace: dict[str, Any], *also: str
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """The package's ``__getattr__``, ``__dir__`` and ``__all__``, from the imports of its
    ``if TYPE_CHECKING:`` block (``also``: names the package defines itself, such as ``__version__``).

    >>> # in a package's __init__.py:
    >>> # if TYPE_CHECKING:
    >>> #     from perfcompose.model import Model
    >>> # __getattr__, __dir__, __all__ = lazy_exports(globals())
    """
    package = namespace["__name__"]
    public: dict[str, str] = {}  # name -> module of each `from MODULE import NAME` of the `if TYPE_CHECKING:` blocks
    for node in ast.parse(namespace["__loader__"].get_source(package)).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            for imp in node.body:
                if isinstance(imp, ast.ImportFrom) and imp.module and not imp.level:
                    public.update((a.asname or a.name, imp.module) for a in imp.names)
    listed = [*public, *also]

    def getattr_(name: str) -> Any:  # a public name imported from its module on first use, then kept
        module = public.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return namespace.setdefault(name, getattr(import_module(module), name))

    return getattr_, lambda: sorted(listed), listed
