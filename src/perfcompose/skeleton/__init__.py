"""Skeleton-based estimation (Lobachev and Loogen, 001): T(n, p) = T(n)/p + Ā(n, p).

>>> from perfcompose.skeleton import RuntimeTable, estimate
>>> table = RuntimeTable.from_rows([(n, 1, 0.01 * n) for n in (10, 20, 30, 40)]
...                                + [(n, 4, 0.0025 * n + 0.01) for n in (10, 20, 30)])
>>> round(estimate(table, 40, 4, method_t="lm", method_a="lm").value, 6)
0.11
"""
from typing import TYPE_CHECKING

from perfcompose.lazy_names import lazy_exports

# Each public name and the module that holds it; imported on first use (PEP 562), so that the
# option declarations (perfcompose.skeleton_options) can read a training window (.window) without
# loading the estimators, which build on those declarations.
if TYPE_CHECKING:
    from perfcompose.skeleton.estimation import Estimate, Part, QualityRow, estimate, penalties, quality
    from perfcompose.skeleton.skeletons import KINDS, Skeleton, penalty, serial_fraction
    from perfcompose.skeleton.source import SKELETON_MODEL_FORMAT, ForecastOptions, SkeletonSource
    from perfcompose.skeleton.table import SEQ, RuntimeTable, half_unit, read_table

__getattr__, __dir__, __all__ = lazy_exports(globals())
