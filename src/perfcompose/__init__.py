"""perfcompose: predict how fast a parallel program will run before it is written."""
from perfcompose.errors import PerfcomposeError
from perfcompose.model import Model, Order, Term, compare_order, maximum
from perfcompose.runtime import run_mapreduce, run_term

__version__ = "0.1.0"
__all__ = ["Model", "Order", "Term", "compare_order", "maximum", "PerfcomposeError", "run_mapreduce", "run_term",
           "__version__"]
