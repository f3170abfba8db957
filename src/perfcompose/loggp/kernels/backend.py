"""Which implementation runs the LogGP step kernels: the compiled C extension
(``perfcompose.loggp.kernels._cstep``, built when the package is installed with a C compiler) or, without
it, the same kernels compiled by Numba (:mod:`._steps_numba`). Both take the same arguments and give
identical results; the extension needs no Numba at all, so that a process that simulates with it
starts in a fraction of the time. ``PERFCOMPOSE_KERNELS=numba`` in the environment picks Numba
even where the extension is built (and where Numba is not installed, says which extra brings it).
Without the extension and without Numba (perfcompose's ``numba`` extra) the Numba kernels run as
plain Python (:mod:`perfcompose._jit`): the same results, far slower."""
from __future__ import annotations

import functools
import importlib
import importlib.util
import os
from collections.abc import Callable
from types import ModuleType
from typing import Any, Literal

from perfcompose.extras import require

__all__ = ["Implementation", "implementation", "describe", "standard_kernel", "worst_kernel", "components_refresh",
           "compiled_module", "extension", "numba_installed"]

#: the compiled extension, or Numba
Implementation = Literal["compiled", "numba"]

_NAMES = {"compiled": "compiled extension (C)", "numba": "Numba"}


@functools.cache
def extension(name: str) -> ModuleType | None:
    """The compiled extension ``perfcompose.loggp.<name>``, or None where it was not built (or
    ``PERFCOMPOSE_KERNELS=numba`` asks for Numba; there, a missing Numba is a
    :class:`perfcompose.extras.MissingExtraError`)."""
    if os.environ.get("PERFCOMPOSE_KERNELS", "").strip().lower() == "numba":
        require("numba", "PERFCOMPOSE_KERNELS=numba (the kernels compiled by Numba)")
        return None
    try:
        return importlib.import_module(f"perfcompose.loggp.kernels.{name}")
    except ImportError:
        return None


def compiled_module() -> ModuleType | None:
    """The extension of the paper's simulators (``_cstep``), or None."""
    return extension("_cstep")


def implementation() -> Implementation:
    """Which implementation runs the kernels in this process."""
    return "compiled" if compiled_module() is not None else "numba"


def numba_installed() -> bool:
    """Whether Numba can be imported here, found without importing it (which takes half a second)."""
    return importlib.util.find_spec("numba") is not None


def describe(which: Implementation | None = None) -> str:
    """A name for people: "compiled extension (C)", "Numba", or where Numba is not installed
    "Python (Numba not installed)"."""
    which = which or implementation()
    return _NAMES[which] if which == "compiled" or numba_installed() else "Python (Numba not installed)"


def _module(which: Implementation | None) -> ModuleType | None:
    """The extension where ``which`` (default: this process's choice) asks for it; None for Numba."""
    if which == "numba":
        return None
    module = compiled_module()
    if module is None and which == "compiled":
        raise ImportError("the compiled extension perfcompose.loggp.kernels._cstep is not built (install the package "
                          "with a C compiler and the Python headers: gcc, python3-dev)")
    return module


def standard_kernel(which: Implementation | None = None) -> Callable[..., Any]:
    """Figure 2's kernel (arguments as in :func:`perfcompose.loggp.kernels._steps_numba.standard_kernel`)."""
    module = _module(which)
    if module is not None:
        return module.standard
    from perfcompose.loggp.kernels._steps_numba import standard_kernel as numba_kernel

    return numba_kernel


def worst_kernel(which: Implementation | None = None) -> tuple[Callable[..., Any], Callable[[int], tuple[Any, ...]]]:
    """Section 4.2's kernel (arguments as in :func:`perfcompose.loggp.kernels._steps_numba.worst_kernel`), and
    what makes the arrival heaps it keeps between calls for M messages (``rheap``: 3M float64,
    (key, tie-break, id) entries, in either implementation)."""
    import numpy as np

    module = _module(which)
    if module is not None:
        return module.worst, lambda M: (np.empty(3 * M),)
    from perfcompose.loggp.kernels._steps_numba import worst_kernel as numba_kernel

    return numba_kernel, lambda M: (np.empty(3 * M),)


def components_refresh(which: Implementation | None = None) -> Callable[..., Any]:
    """The worst case's refresh of the waiting graph's components (arguments as in
    :func:`perfcompose.loggp.kernels._components_numba.refresh`)."""
    module = _module(which)
    if module is not None:
        return module.refresh
    from perfcompose.loggp.kernels._components_numba import refresh

    return refresh
