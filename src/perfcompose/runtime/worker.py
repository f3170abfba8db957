"""What a worker of the pattern executor runs: a chain of functions on each element it takes,
the clocks it reads, and the hand-over between workers (bounded queues, end-of-stream, abort,
and their process twins). A process worker imports only this module to start, not the term
language and SymPy behind the executor's planning.

Every queue here has the same two methods, ``get(abort)`` and ``put(item, abort)``; both block,
but wake every ``POLL`` seconds to notice an abort, so a failing task never leaves a worker
hanging. The thread queue is two ``SimpleQueue``s (items and free slots): a C-level hand-over
of 0.1-0.3 us, bounded so that no stage runs ahead of the one after it.

A stream ends with ``END``. A worker that reads it puts it back for its siblings on the same
queue and passes it on; ``Merge`` forwards only the last of several workers' ends, so one end
leaves every task pool, and (between processes) only once the other workers' elements are in the
queue ahead of it.
"""
from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import pickle
import queue
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

#: end of stream: an item with a negative index
END: tuple[int, None, int] = (-1, None, 0)
POLL = 0.05


class Aborted(Exception):
    """Raised in a worker when the run was aborted elsewhere."""


class Event(Protocol):
    def set(self) -> None: ...
    def is_set(self) -> bool: ...
    def wait(self, timeout: float | None = None) -> bool: ...


def is_end(item: tuple) -> bool:
    return item[0] < 0


def _get(q: Any, abort: Event) -> Any:
    while True:
        try:
            return q.get(timeout=POLL)
        except queue.Empty:
            if abort.is_set():
                raise Aborted from None


class Channel:
    """A bounded FIFO between threads. ``END`` bypasses the bound, so ending never blocks."""

    def __init__(self, capacity: int | None = None):
        self._items: queue.SimpleQueue = queue.SimpleQueue()
        self._slots: queue.SimpleQueue | None = None
        if capacity is not None:
            self._slots = queue.SimpleQueue()
            for _ in range(capacity):
                self._slots.put(None)

    def put(self, item: tuple, abort: Event) -> None:
        if self._slots is not None and not is_end(item):
            _get(self._slots, abort)
        self._items.put(item)

    def get(self, abort: Event) -> tuple:
        item = _get(self._items, abort)
        if self._slots is not None and not is_end(item):
            self._slots.put(None)
        return item

    def poll(self, timeout: float) -> tuple:
        """An item of an unbounded channel, or ``queue.Empty`` after ``timeout`` seconds."""
        return self._items.get(timeout=timeout)

    def flush(self) -> None:
        """A thread's put is in the queue when it returns: nothing to wait for."""


class ProcessChannel:
    """A bounded FIFO between processes (``multiprocessing.Queue``)."""

    def __init__(self, ctx: Any, capacity: int | None = None):
        self._q = ctx.Queue(capacity or 0)

    def put(self, item: tuple, abort: Event) -> None:
        while True:
            try:
                self._q.put(item, timeout=POLL)
                return
            except queue.Full:
                if abort.is_set():
                    raise Aborted from None

    def get(self, abort: Event) -> tuple:
        return _get(self._q, abort)

    def poll(self, timeout: float) -> tuple:
        return self._q.get(timeout=timeout)

    def flush(self) -> None:
        """Wait until everything this process put is in the pipe; it puts nothing more here. A
        put returns once a feeder thread holds the item, and two processes' feeders race: without
        this, one worker's end could reach the reader before another worker's last elements."""
        self._q.close()
        self._q.join_thread()

    def close(self) -> None:
        self._q.cancel_join_thread()
        self._q.close()


class ThreadCounter:
    def __init__(self, n: int):
        self._n = n
        self._lock = threading.Lock()

    def decrement(self) -> int:
        with self._lock:
            self._n -= 1
            return self._n

    def flushed(self) -> None:
        """Threads' puts need no flushing (see :class:`ProcessCounter`)."""

    def wait_flushed(self, abort: Event) -> None:
        """Threads' puts need no flushing (see :class:`ProcessCounter`)."""


class ProcessCounter:
    """n - 1 tokens: every worker but the last to finish takes one (1 left or more), the last
    finds none (0)."""

    def __init__(self, ctx: Any, n: int):
        self._tokens = ctx.Semaphore(n - 1)
        self._flushed = ctx.Semaphore(0)
        self._others = n - 1

    def decrement(self) -> int:
        return 1 if self._tokens.acquire(block=False) else 0

    def flushed(self) -> None:
        """Say that this worker's elements are in the queue (a worker that took a token)."""
        self._flushed.release()

    def wait_flushed(self, abort: Event) -> None:
        """Wait until every other worker's elements are in the queue (the last worker)."""
        for _ in range(self._others):
            while not self._flushed.acquire(timeout=POLL):
                if abort.is_set():
                    raise Aborted


class _Onward:
    target: Any

    def flush(self) -> None:
        self.target.flush()


class Merge(_Onward):
    """The output side of a task pool: passes items on, and the end only from the last worker."""

    def __init__(self, target: Any, counter: Any):
        self.target, self.counter = target, counter

    def put(self, item: tuple, abort: Event) -> None:
        if is_end(item):
            if self.counter.decrement() > 0:
                self.target.flush()
                self.counter.flushed()
                return
            self.counter.wait_flushed(abort)  # the end goes after every worker's elements
        self.target.put(item, abort)


class Gate(_Onward):
    """The middle of a ``seq`` of parallel parts: the second part reads only once the first
    has finished the whole stream."""

    def __init__(self, target: Any, opened: Event):
        self.target, self.opened = target, opened

    def put(self, item: tuple, abort: Event) -> None:
        self.target.put(item, abort)
        if is_end(item):
            self.opened.set()

    def get(self, abort: Event) -> tuple:
        while not self.opened.wait(POLL):
            if abort.is_set():
                raise Aborted
        return self.target.get(abort)


class Sink(_Onward):
    """Where finished elements go: stamps the completion time in the worker that finished it."""

    def __init__(self, target: Any, done: Event):
        self.target, self.done = target, done

    def put(self, item: tuple, abort: Event) -> None:
        if is_end(item):
            self.target.put(END, abort)
            self.done.set()
            return
        idx, data, t_in = item
        self.target.put((idx, data, t_in, time.perf_counter_ns()), abort)


def process_context(method: str | None = None) -> Any:
    """The multiprocessing context for process workers: ``spawn`` unless asked otherwise, since
    forking a process that runs threads is unsafe."""
    return mp.get_context(method or "spawn")


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
