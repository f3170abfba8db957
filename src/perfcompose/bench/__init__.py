"""Unit performance tests: a resumable benchmark runner and the papers' reference tasks."""
from typing import TYPE_CHECKING

from perfcompose.lazy_names import lazy_exports

# the reference tasks compile with Numba: loaded only where a task runs, not to read a grid
if TYPE_CHECKING:
    from perfcompose.bench.runner import BenchError, checkpoint_for, parse_grid, parse_values, resolve_target, run_sweep
    from perfcompose.bench.tasks import TASKS

__getattr__, __dir__, __all__ = lazy_exports(globals())
