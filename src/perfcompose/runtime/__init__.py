"""Running composed programs for real: the pattern executor and its measurement target, and
MapReduce on a distributed engine (Dask).

>>> from perfcompose.runtime import Engine, histogram_job
>>> with Engine(m=2, n=1) as engine:                                  # doctest: +SKIP
...     histogram_job(engine, "large", "shuffle", inputs=8, repeat=4).phases
"""
from perfcompose.runtime.executor import RunResult, RuntimeTermError, TaskError, plan, run_term, worker_count
from perfcompose.runtime.mapreduce import Engine, JobResult, histogram_job, run_mapreduce

__all__ = ["Engine", "JobResult", "RunResult", "RuntimeTermError", "TaskError", "histogram_job", "plan",
           "run_mapreduce", "run_term", "worker_count"]
