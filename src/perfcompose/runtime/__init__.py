"""Running composed programs for real: the pattern executor and its measurement target, and
MapReduce on a distributed engine (Dask, the ``dask`` extra).

The names are imported on first use, so that running a term needs no Dask.

>>> from perfcompose.runtime import Engine, histogram_job
>>> with Engine(m=2, n=1) as engine:                                  # doctest: +SKIP
...     histogram_job(engine, "large", "shuffle", inputs=8, repeat=4).phases
"""
from typing import TYPE_CHECKING

from perfcompose.lazy_names import lazy_exports

if TYPE_CHECKING:
    from perfcompose.runtime.executor import RunResult, RuntimeTermError, TaskError, plan, run_term, worker_count
    from perfcompose.runtime.mapreduce import Engine, JobResult, histogram_job, run_mapreduce

__getattr__, __dir__, __all__ = lazy_exports(globals())
