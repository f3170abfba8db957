"""perfcompose: predict how fast a parallel program will run before it is written.

The public names are imported on first use (PEP 562), so that ``import perfcompose`` and the
command line start without loading SymPy, NumPy or the executors they do not need.
"""
from typing import TYPE_CHECKING

from perfcompose.lazy_names import lazy_names

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


__getattr__, __dir__ = lazy_names("perfcompose", _PUBLIC, globals(), __all__)
