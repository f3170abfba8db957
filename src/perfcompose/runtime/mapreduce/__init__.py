"""MapReduce on a distributed engine (Dask): m workers x n threads, three reduction strategies,
per-phase times from the engine's own task records.

>>> from perfcompose.runtime.mapreduce import Engine, histogram_job, serial_histogram
>>> with Engine(m=2, n=1) as engine:                                  # doctest: +SKIP
...     job = histogram_job(engine, "large", "shuffle", inputs=8, repeat=4)
...     assert (job.result == serial_histogram("large", 8)).all()
...     job.wall, job.phases.map, job.phases.shuffle, job.phases.reduce

Needs Dask (perfcompose's ``dask`` extra): importing this package without it raises a
:class:`~perfcompose.extras.MissingExtraError` that says what to install.
"""
from perfcompose.extras import require

require("dask", "MapReduce on Dask")

# the package's modules import Dask at their top: they are imported after the check
from perfcompose.runtime.mapreduce.engine import Engine, EngineError, check_address  # noqa: E402
from perfcompose.runtime.mapreduce.job import JobResult, histogram_job, run_mapreduce, serial_histogram  # noqa: E402
from perfcompose.runtime.mapreduce.strategies import StrategyError  # noqa: E402

__all__ = ["Engine", "EngineError", "JobResult", "StrategyError", "check_address", "histogram_job", "run_mapreduce",
           "serial_histogram"]
