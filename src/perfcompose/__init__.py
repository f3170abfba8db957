"""perfcompose: predict how fast a parallel program will run before it is written.

The public names are imported on first use (PEP 562), so that ``import perfcompose`` and the
command line start without loading SymPy, NumPy or the executors they do not need.

>>> from perfcompose import Model
>>> Model.parse("536.185*x", unit="ns")(x=2)
1072.37
"""
from typing import TYPE_CHECKING

from perfcompose.lazy_names import lazy_exports

__version__ = "0.1.0"

if TYPE_CHECKING:
    from perfcompose.errors import PerfcomposeError
    from perfcompose.fit import PMNFFitter, SegmentedFitter, advise
    from perfcompose.model import Model, Order, PMNFTerm
    from perfcompose.model_maximum import compare_order, maximum
    from perfcompose.runtime import run_mapreduce, run_term

__getattr__, __dir__, __all__ = lazy_exports(globals(), "__version__")
