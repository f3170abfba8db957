"""What a worker of the pattern executor runs: a chain of functions on each element it takes,
and the clocks it reads. A process worker imports only this module (and the channels) to start,
not the term language and SymPy behind the executor's planning."""
from __future__ import annotations

import contextlib
import os
import pickle
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from perfcompose.runtime.channels import Aborted, is_end


class _Raised(Exception):
    def __init__(self, name: str, exc: BaseException):
        self.name, self.exc = name, exc


@dataclass(frozen=True)
class Chain:
    """Functions applied one after the other in one worker; picklable when they are."""

    names: tuple[str, ...]
    functions: tuple[Callable[[Any], Any], ...]

    def __call__(self, data: Any) -> Any:
        for name, fn in zip(self.names, self.functions):
            try:
                data = fn(data)
            except Exception as exc:
                raise _Raised(name, exc) from exc
        return data


def _encode_error(name: str, exc: BaseException) -> tuple[str, str, str, bytes | None]:
    blob = None
    with contextlib.suppress(Exception):
        blob = pickle.dumps(exc)
    return (name, f"{type(exc).__name__}: {exc}", "".join(traceback.format_exception(exc)), blob)


def runqueue_wait_ns() -> int | None:
    """Nanoseconds the calling thread has been ready to run but waiting for a core (Linux
    ``/proc/thread-self/schedstat``), or None where the kernel does not say. Work that loses
    its core to other programs mid-run shows up here, whatever clock it is timed with."""
    try:
        with open("/proc/thread-self/schedstat", "rb") as f:
            return int(f.read().split()[1])
    except (OSError, IndexError, ValueError):
        return None


def cpu_demand_ns() -> int | None:
    """Nanoseconds the calling thread has run on a core (its CPU clock) or waited, ready, for one
    (:func:`runqueue_wait_ns`), or None where the kernel does not say. What is left of the wall
    time is time the thread could not run at all: blocked on a lock, a queue or I/O."""
    wait = runqueue_wait_ns()
    return None if wait is None else time.thread_time_ns() + wait


def keep_on_cpu(cpu: int | None) -> None:
    """Keep the calling thread (or process) on one core, where the system allows it."""
    if cpu is not None and hasattr(os, "sched_setaffinity"):
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, {cpu})


def stage_loop(chain: Chain, inq: Any, outq: Any, abort: Any, errors: Any, ready: Any,
                waits: Any = None, cpu: int | None = None) -> None:
    keep_on_cpu(cpu)
    wait0 = runqueue_wait_ns()
    ready.put(1)
    perf = time.perf_counter_ns
    try:
        while True:
            item = inq.get(abort)
            if is_end(item):
                inq.put(item, abort)
                outq.put(item, abort)
                return
            idx, data, t_in = item
            if not t_in:
                t_in = perf()
            outq.put((idx, chain(data), t_in), abort)
    except Aborted:
        return
    except _Raised as exc:
        errors.put(_encode_error(exc.name, exc.exc))
        abort.set()
    except BaseException as exc:  # the executor's own failure (e.g. an unpicklable element)
        errors.put(_encode_error("+".join(chain.names), exc))
        abort.set()
    finally:
        wait1 = runqueue_wait_ns()
        if waits is not None:
            waits.put(None if wait0 is None or wait1 is None else wait1 - wait0)
