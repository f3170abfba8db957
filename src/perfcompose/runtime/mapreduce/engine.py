"""The distributed engine: a Dask cluster of m workers x n threads and a client on it.

By default an embedded ``LocalCluster`` (m worker processes on this machine, n threads each);
given a scheduler address, an existing cluster, wherever its workers run. Two settings of the
embedded cluster are controlled because they change what is measured: Dask's worker launcher
exports ``MALLOC_TRIM_THRESHOLD_=65536`` (a fixed trim threshold also fixes glibc's mmap
threshold, so every large temporary array is mapped and faulted in afresh); perfcompose leaves
it unset unless asked, and reports the value the workers run with. Work stealing is off, so a
node's map tasks stay on the node whose reduction expects them.
"""
from __future__ import annotations

import logging
import os
import re
from contextlib import AbstractContextManager, ExitStack
from dataclasses import dataclass
from typing import Any

import dask
from distributed import Client, LocalCluster

from perfcompose.environment import SINGLE_THREAD_ENV, environment
from perfcompose.errors import PerfcomposeError

#: ``scheme://host:port`` of a Dask scheduler
_ADDRESS = re.compile(r"^(tcp|tls|ucx|ws|wss)://(\[[0-9a-fA-F:]+\]|[A-Za-z0-9_.\-]+):(\d{1,5})$")
_TRIM = "MALLOC_TRIM_THRESHOLD_"
#: seconds to wait for a scheduler (``mapreduce run --timeout``)
TIMEOUT = 15.0


class EngineError(PerfcomposeError):
    """The engine cannot start, or a scheduler cannot be reached."""


def check_address(address: str) -> str:
    """A scheduler address as Dask writes it, ``tcp://host:port``, or a clear error."""
    match = _ADDRESS.match(address.strip())
    if not match or not 0 < int(match.group(3)) < 65536:
        raise EngineError(f"bad scheduler address {address!r}: write it as tcp://HOST:PORT "
                          "(the address `dask scheduler` prints, e.g. tcp://127.0.0.1:8786)")
    return address.strip()


@dataclass(frozen=True)
class ClusterInfo:
    """The workers of a cluster, in a fixed order (node j is ``workers[j]``)."""

    address: str
    workers: tuple[str, ...]
    threads: tuple[int, ...]
    #: MALLOC_TRIM_THRESHOLD_ in each worker's environment (None: unset)
    malloc_trim: tuple[str | None, ...]

    @property
    def m(self) -> int:
        return len(self.workers)

    @property
    def n(self) -> int:
        return min(self.threads) if self.threads else 0


class Engine(AbstractContextManager["Engine"]):
    """A Dask cluster and a client; a context manager that closes what it started.

    >>> with Engine(m=2, n=1) as engine:                      # doctest: +SKIP
    ...     engine.info.workers
    """

    def __init__(self, m: int = 1, n: int = 1, *, scheduler: str | None = None,
                 malloc_trim: int | None = None, timeout: float = TIMEOUT):
        if scheduler is None and (m < 1 or n < 1):
            raise EngineError(f"a cluster needs at least one worker of one thread, got m={m}, n={n}")
        self._stack = ExitStack()
        self.cluster: Any = None
        try:
            if scheduler is None:
                self.cluster = self._local(m, n, malloc_trim)
                self.client = Client(self.cluster, timeout=timeout)
                try:
                    self.client.wait_for_workers(m, timeout=4 * timeout)
                except (OSError, TimeoutError):
                    raise EngineError(f"the local cluster's {m} workers did not start within "
                                      f"{4 * timeout:g} s") from None
            else:
                address = check_address(scheduler)
                try:
                    self.client = Client(address, timeout=timeout)
                except (OSError, TimeoutError) as exc:
                    raise EngineError(f"no Dask scheduler answers at {address} within {timeout:g} s "
                                      f"({type(exc).__name__}); start one with `dask scheduler` and "
                                      "workers with `dask worker ADDRESS`") from None
                try:
                    self.client.wait_for_workers(1, timeout=timeout)
                except (OSError, TimeoutError):
                    raise EngineError(f"the scheduler at {address} has no workers: start some with "
                                      f"`dask worker {address} --nthreads N`") from None
            self._stack.callback(self.client.close)
        except BaseException:
            self.close()
            raise
        self.info = self.refresh()

    def _local(self, m: int, n: int, malloc_trim: int | None) -> Any:
        # the nanny copies its environment into this process before it spawns a worker; keep
        # this process's own values of what it sets, and put them back on close (only those: the rest of
        # the environment may change meanwhile)
        self._stack.enter_context(environment({_TRIM: None}, keep=SINGLE_THREAD_ENV))
        config = {"distributed.nanny.pre-spawn-environ": {
                      _TRIM: None if malloc_trim is None else str(malloc_trim),
                      **dict.fromkeys(SINGLE_THREAD_ENV, 1)},
                  "distributed.scheduler.work-stealing": False}
        with dask.config.set(config):
            try:
                cluster = LocalCluster(n_workers=m, threads_per_worker=n, processes=True, host="127.0.0.1",
                                       dashboard_address=":0", silence_logs=logging.CRITICAL)
            except Exception as exc:  # pragma: no cover - environment failures
                raise EngineError(f"cannot start a local Dask cluster of {m} x {n}: {exc}") from None
        self._stack.callback(cluster.close)
        return cluster

    def refresh(self) -> ClusterInfo:
        """The cluster's running workers now (a worker that died and came back has a new address).

        Asked of the scheduler itself: the client's cached ``scheduler_info`` is overwritten every
        two seconds by a summary without the workers."""
        address, workers = self.client.run_on_scheduler(_workers)
        order = sorted(workers, key=lambda a: (workers[a][0], a))
        if not order:
            raise EngineError(f"the cluster at {address} has no workers")
        trim = self.client.run(lambda key: os.environ.get(key), _TRIM, workers=order)
        self.info = ClusterInfo(address, tuple(order), tuple(workers[a][1] for a in order),
                                tuple(trim.get(a) for a in order))
        return self.info

    def clock_offsets(self) -> dict[str, float]:
        """What Dask adds to each worker's times to put them on the scheduler's clock, for the
        workers on this machine's loopback (one clock: the estimate is noise); 0 elsewhere."""
        delays = self.client.run(lambda dask_worker: dask_worker.scheduler_delay)
        return {w: float(d) if _loopback(w) else 0.0 for w, d in delays.items()}

    def run_on_workers(self, func: Any, *args: Any) -> dict[str, Any]:
        """Call ``func(*args)`` once in every worker process."""
        return self.client.run(func, *args)

    def close(self) -> None:
        """Close the client, and the cluster if this engine started it."""
        self._stack.close()

    def __exit__(self, *_: Any) -> None:
        self.close()


def _loopback(address: str) -> bool:
    host = address.split("://", 1)[-1].rsplit(":", 1)[0]
    return host.startswith("127.") or host in ("localhost", "[::1]")


def _workers(dask_scheduler: Any) -> tuple[str, dict[str, tuple[str, int]]]:
    return dask_scheduler.address, {a: (str(ws.name), int(ws.nthreads)) for a, ws in dask_scheduler.workers.items()
                                    if ws.status.name == "running"}
