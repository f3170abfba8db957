"""The compiled LogGP kernels: C extensions ``perfcompose.loggp.kernels.<name>``, built when the
package is installed with a C compiler. Where one is not built, its caller runs the plain-Python
reference of the same algorithm (identical results, far slower) and :func:`describe` says so."""
from __future__ import annotations

import functools
import importlib
import sys
from types import ModuleType

__all__ = ["extension", "compiled_module", "describe", "note_reference", "SLOW"]

#: what running the references instead of the extensions costs, for people
SLOW = "Python reference (the C extensions are not built: 100 to 1,000 times slower)"


@functools.cache
def extension(name: str) -> ModuleType | None:
    """The compiled extension ``perfcompose.loggp.kernels.<name>``, or None where it was not built."""
    try:
        return importlib.import_module(f"perfcompose.loggp.kernels.{name}")
    except ImportError:
        return None


def compiled_module() -> ModuleType | None:
    """The extension of the paper's simulators (``_cstep``), or None."""
    return extension("_cstep")


def describe(built: bool | None = None) -> str:
    """Which implementation runs here, for people: the step simulators' (or the one ``built`` says)."""
    return "compiled extension (C)" if (compiled_module() is not None if built is None else built) else SLOW


@functools.cache
def note_reference() -> None:
    """Say once per process, on standard error, that a reference runs where an extension would."""
    print(f"perfcompose: {SLOW}; reinstall with a C compiler and the Python headers (gcc, python3-dev)",
          file=sys.stderr)
