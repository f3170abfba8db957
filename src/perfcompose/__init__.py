"""perfcompose: predict how fast a parallel program will run before it is written."""
from typing import Any

from perfcompose.errors import PerfcomposeError
from perfcompose.model import Model, Order, Term, compare_order, maximum
from perfcompose.runtime import run_mapreduce, run_term

__version__ = "0.1.0"
__all__ = ["Model", "Order", "Term", "compare_order", "maximum", "PerfcomposeError", "run_mapreduce", "run_term",
           "PMNFFitter", "SegmentedFitter", "advise", "__version__"]

_FIT = ("PMNFFitter", "SegmentedFitter", "advise")


def __getattr__(name: str) -> Any:
    """The fitter's entry points, imported on first use (the command line starts faster without them)."""
    if name in _FIT:
        import perfcompose.fit as fit

        return getattr(fit, name)
    raise AttributeError(f"module 'perfcompose' has no attribute {name!r}")
