"""The optional parts of perfcompose and the libraries each needs (pyproject.toml's extras): a
subsystem that needs one calls :func:`require` where it is entered, so that a missing library is
one message naming the extra to install, not an ImportError from deep inside.

>>> require("dask", "MapReduce on Dask")   # passes where dask and distributed are installed
"""
from __future__ import annotations

from importlib import import_module

from perfcompose.errors import PerfcomposeError

#: extra -> the modules it brings, as imported
EXTRAS: dict[str, tuple[str, ...]] = {
    "dask": ("dask", "distributed"),
    "cube": ("pycubexr",),
    "numba": ("numba",),
    "profiles": ("hatchet", "caliperreader"),
}


class MissingExtraError(PerfcomposeError):
    """A feature whose optional libraries are not installed; the message says which extra brings them."""


def require(extra: str, what: str) -> None:
    """Raise :class:`MissingExtraError` unless every library of ``extra`` imports; ``what`` names
    the feature that needs it."""
    for module in EXTRAS[extra]:
        try:
            import_module(module)
        except ImportError:
            raise MissingExtraError(f"{what} needs {module}, which is not installed; it comes with perfcompose's "
                                    f"'{extra}' extra: pip install \"perfcompose[{extra}]\"") from None
