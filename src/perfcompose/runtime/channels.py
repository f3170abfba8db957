"""The hand-over between workers: bounded queues, end-of-stream, abort, and their process twins.

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

import multiprocessing as mp
import queue
import threading
import time
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
