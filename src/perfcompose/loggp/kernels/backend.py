"""The compiled LogGP kernels: C extensions ``perfcompose.loggp.kernels.<name>``, built when the
package is installed with a C compiler. Where one is not built, its caller runs the plain-Python
reference of the same algorithm (identical results, far slower) and :func:`describe` says so.
Without NumPy, the extensions (which take any C-contiguous buffer of the right item type) are
given typed buffers (:func:`empty`)."""
from __future__ import annotations

import functools
import importlib
import mmap
import struct
import sys
from types import ModuleType
from typing import Any

__all__ = ["extension", "compiled_module", "describe", "note_reference", "SLOW", "empty", "as_items"]

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


def as_items(buffer: Any, code: str) -> Any:
    """The bytes of ``buffer`` seen as items of the struct type ``code`` (no copy)."""
    view: Any = memoryview(buffer)
    return view.cast("B").cast(code)


def empty(n: int, code: str) -> Any:
    """Room for ``n`` items of the struct type ``code`` ('b' int8, 'i' int32, 'q' int64, 'd' float64), zero until
    written: memory mapped anonymously, so that room reserved but never written costs address space only, as NumPy's
    ``empty`` does; e.g. ``empty(4, "d")[1] = 2.5``."""
    return as_items(mmap.mmap(-1, max(n, 1) * struct.calcsize(code)), code)[:n]
