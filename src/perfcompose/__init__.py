"""perfcompose: predict how fast a parallel program will run before it is written.

The public names are imported on first use (PEP 562), so that ``import perfcompose`` and the
command line start without loading SymPy, NumPy or the executors they do not need.
"""
from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_PUBLIC: dict[str, str] = {
    "Model": "perfcompose.model",
    "Order": "perfcompose.model",
    "Term": "perfcompose.model",
    "compare_order": "perfcompose.model",
    "maximum": "perfcompose.model",
    "PerfcomposeError": "perfcompose.errors",
    "run_mapreduce": "perfcompose.runtime",
    "run_term": "perfcompose.runtime",
    "PMNFFitter": "perfcompose.fit",
    "SegmentedFitter": "perfcompose.fit",
    "advise": "perfcompose.fit",
}

__all__ = ["Model", "Order", "Term", "compare_order", "maximum", "PerfcomposeError", "run_mapreduce",
           "run_term", "PMNFFitter", "SegmentedFitter", "advise", "__version__"]

if TYPE_CHECKING:
    from perfcompose.errors import PerfcomposeError
    from perfcompose.fit import PMNFFitter, SegmentedFitter, advise
    from perfcompose.model import Model, Order, Term, compare_order, maximum
    from perfcompose.runtime import run_mapreduce, run_term


def __getattr__(name: str) -> Any:
    """Import a public name from the module that holds it, on first use."""
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'perfcompose' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
