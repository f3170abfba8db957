"""Run a term of the pattern language for real, on a stream of data elements.

``seq`` of components runs in the calling worker, one function after the other; ``pipe`` runs
its stages in their own workers joined by bounded queues; ``tpool_n`` runs n copies of its body
on one shared queue. Patterns nest in any order (a pipe of task pools, a task pool of pipes).
A ``seq`` whose parts are themselves parallel runs the second part once the first has finished
the whole stream. Workers are threads, or processes on request.

Every element carries two ``perf_counter_ns`` stamps: when the first worker took it and when
the last one finished it. The papers' metric, the average runtime of a data element, is the
steady-state time between completions (:attr:`RunResult.per_element`).
"""
from __future__ import annotations

import contextlib
import functools
import os
import pickle
import queue
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

import numpy as np

from perfcompose.choices import WORKERS
from perfcompose.compose.parser import parse_term
from perfcompose.compose.terms import Component, MapReduce, Pipe, Seq, Shuffle, Term, TPool
from perfcompose.errors import InputError, PerfcomposeError
from perfcompose.runtime.worker import (
    END,
    Aborted,
    Chain,
    Channel,
    Gate,
    Merge,
    ProcessChannel,
    ProcessCounter,
    Sink,
    ThreadCounter,
    is_end,
    process_context,
    stage_loop,
)

#: the kernel's own latency in waking a worker, allowed per element (1-3 us measured idle)
WAKE_LATENCY = 3e-6
#: a run whose workers lost more than this share of it waiting for a core is disturbed
DISTURBED_SHARE = 0.02


class RuntimeTermError(InputError):
    """A term the executor cannot run as written."""


class TaskError(PerfcomposeError):
    """A task raised while the program ran; the run was stopped. ``component`` names the task
    and ``__cause__`` is its exception (for process workers, where it could be sent back)."""

    def __init__(self, component: str, message: str, remote_traceback: str = ""):
        super().__init__(f"task '{component}' failed: {message}")
        self.component = component
        self.remote_traceback = remote_traceback


@dataclass(frozen=True)
class Parts:
    """Parts run one after the other: a ``pipe``'s stages connected by queues, each feeding the
    next; or, ``gated``, a ``seq`` of parallel parts, each reading only once the one before it has
    finished the whole stream (a gate between them)."""

    parts: tuple[Any, ...]
    gated: bool = False


@dataclass(frozen=True)
class PoolNode:
    """``threads`` copies of ``body`` taking elements from one queue (``tpool_k``)."""

    threads: int
    body: Any  #: the plan each copy runs


#: a plan; a :class:`Chain` is one worker running its components on each element in turn
Node = Chain | Parts | PoolNode


def plan(term: Term, functions: Mapping[str, Callable[[Any], Any]]) -> Node:
    """The worker layout of ``term``: sequential runs of components fused into one stage."""
    if isinstance(term, Component):
        if term.name not in functions:
            raise RuntimeTermError(f"no function for component '{term.name}'",
                                   hint=f"known: {', '.join(sorted(functions)) or 'none'}")
        return Chain((term.name,), (functions[term.name],))
    if isinstance(term, (Seq, Pipe)):
        first, second = plan(term.first, functions), plan(term.second, functions)
        gated = isinstance(term, Seq)
        if gated and isinstance(first, Chain) and isinstance(second, Chain):
            return Chain(first.names + second.names, first.functions + second.functions)
        flat = (node.parts if isinstance(node, Parts) and node.gated == gated else (node,) for node in (first, second))
        return Parts(tuple(p for parts in flat for p in parts), gated)
    if isinstance(term, TPool):
        if not isinstance(term.threads, int):
            raise RuntimeTermError(f"tpool_{term.threads} has no thread count to run with",
                                   hint="write a number, e.g. tpool_2(...)")
        return PoolNode(term.threads, plan(term.body, functions))
    if isinstance(term, (MapReduce, Shuffle)):
        raise RuntimeTermError("mapreduce runs on a distributed engine, not on this executor",
                               hint="run it with perfcompose.runtime.mapreduce")
    raise RuntimeTermError(f"cannot run {term}")


def worker_count(node: Node, readers: bool = False) -> int:
    """How many workers (threads or processes) the plan starts; with ``readers``, how many of them
    read its input."""
    if isinstance(node, Chain):
        return 1
    if isinstance(node, PoolNode):
        return node.threads * worker_count(node.body, readers)
    return worker_count(node.parts[0], True) if readers else sum(worker_count(p) for p in node.parts)


def _cores(pin: bool, count: int) -> list[int] | None:
    """The cores the workers are pinned to, one each, or None (no pinning: asked not to, more
    workers than cores, or a system that cannot say)."""
    if not pin or not hasattr(os, "sched_getaffinity"):
        return None
    cores = sorted(os.sched_getaffinity(0))
    return cores if count <= len(cores) else None


class _Threads:
    def __init__(self, cores: list[int] | None = None) -> None:
        self.workers: list[Any] = []
        self.cores = cores
        #: what makes the run's events, end counters of a pool's workers and message queues
        self.event: Callable[[], Any] = threading.Event
        self.counter: Callable[[int], Any] = ThreadCounter
        self.queue: Callable[[], Any] = queue.SimpleQueue

    def channel(self, capacity: int | None) -> Channel:
        return Channel(capacity)

    def start(self, args: tuple, kind: Any = threading.Thread) -> None:
        cpu = None if self.cores is None else self.cores[len(self.workers) % len(self.cores)]
        worker = kind(target=stage_loop, args=(*args, cpu), daemon=True, name=f"perfcompose-{'+'.join(args[0].names)}")
        worker.start()
        self.workers.append(worker)

    def stop(self, grace: float) -> None:
        for t in self.workers:
            t.join(grace)

    def alive(self) -> int:
        return sum(w.is_alive() for w in self.workers)


class _Processes(_Threads):
    def __init__(self, start_method: str | None = None, cores: list[int] | None = None) -> None:
        super().__init__(cores)
        self.ctx = process_context(start_method)
        self.event, self.queue = self.ctx.Event, self.ctx.Queue
        self.counter = functools.partial(ProcessCounter, self.ctx)
        self.channels: list[ProcessChannel] = []
        self.keep: list[tuple] = []

    def channel(self, capacity: int | None) -> ProcessChannel:  # type: ignore[override]
        ch = ProcessChannel(self.ctx, capacity)
        self.channels.append(ch)
        return ch

    def start(self, args: tuple, kind: Any = None) -> None:
        super().start(args, self.ctx.Process)
        # Process.start drops its arguments; the parent must keep their semaphores alive until
        # the child has opened them
        self.keep.append(args)

    def stop(self, grace: float) -> None:
        deadline = time.monotonic() + grace
        for p in self.workers:
            p.join(max(0.0, deadline - time.monotonic()))
        for p in self.workers:
            if p.is_alive():
                p.terminate()
                p.join(1.0)
        for ch in self.channels:
            ch.close()

    def crashed(self) -> int:
        """Workers that ended abnormally (killed, or exited with an error); a stage of a
        ``seq`` that has handed on its whole stream ends normally before the run does."""
        return sum(p.exitcode not in (None, 0) for p in self.workers)


def _launch(node: Node, inq: Any, outq: Any, backend: Any, capacity: int, common: tuple) -> None:
    if isinstance(node, Chain):
        backend.start((node, inq, outq, *common))
    elif isinstance(node, PoolNode):
        merge = Merge(outq, backend.counter(node.threads))
        for _ in range(node.threads):
            _launch(node.body, inq, merge, backend, capacity, common)
    else:  # a pipe's stages joined by bounded queues, a seq's parts by gates
        src = inq
        for k, part in enumerate(node.parts):
            dst = outq if k == len(node.parts) - 1 else (
                backend.channel(capacity * worker_count(node.parts[k + 1], True)) if not node.gated
                else Gate(backend.channel(None), backend.event()))
            _launch(part, src, dst, backend, capacity, common)
            src = dst


@dataclass(frozen=True)
class RunResult:
    """What one run of a program over a stream measured. Stamps are ``perf_counter_ns``."""

    term: str
    workers: str
    worker_count: int
    started: np.ndarray = field(repr=False)  #: when the first worker took element i
    finished: np.ndarray = field(repr=False)  #: when the last worker finished element i
    warmup: int
    outputs: tuple | None = field(default=None, repr=False)
    #: seconds the workers were ready to run but waited for a core, summed (None: not known)
    runqueue_wait: float | None = None

    @property
    def disturbed(self) -> bool:
        """Whether the workers waited for a core for more than 2 % of the run plus 3 us per
        element: other programs (or more workers than cores) took the cores away, and the times
        are not the program's. The 3 us allow for the kernel's own latency in waking a worker
        for each element (1-3 us measured on an idle machine)."""
        return (self.runqueue_wait is not None
                and self.runqueue_wait > DISTURBED_SHARE * self.makespan + WAKE_LATENCY * len(self.finished))

    @property
    def per_element(self) -> float:
        """The papers' average runtime of a data element [s]: the time between completions in
        the steady state, after the first ``warmup`` completions."""
        done = np.sort(self.finished)
        w = min(max(self.warmup, 1), len(done) - 1)
        return float(done[-1] - done[w - 1]) * 1e-9 / (len(done) - w)

    @property
    def latency(self) -> float:
        """Median time an element spent inside the program [s]."""
        return float(np.median(self.finished - self.started)) * 1e-9

    @property
    def makespan(self) -> float:
        """From the first element taken to the last finished [s]."""
        return float(self.finished.max() - self.started.min()) * 1e-9


def run_term(term: Term | str, elements: Sequence[Any],
             functions: Mapping[str, Callable[[Any], Any]] | None = None, *,
             workers: str = "threads", warmup: int | None = None, capacity: int = 2, keep_outputs: bool = True,
             start_method: str | None = None, pin: bool = True) -> RunResult:
    """Run ``term`` over ``elements`` and time every element.

    ``functions`` maps component names to one-argument callables (default: the reference tasks
    nop, inc and qsort). ``capacity`` bounds each queue between stages, per reading worker.
    ``warmup`` completions are left out of :attr:`RunResult.per_element` (default: one per
    worker). A task that raises stops the run and raises :class:`TaskError`. With ``pin`` (and
    no more workers than cores) every worker keeps to a core of its own: left alone, the kernel
    often wakes a stage on the core of the stage that fed it, and a two-stage pipeline then runs
    on one core for a while (measured: 130-180 us per element instead of 64 us).

    >>> import numpy as np
    >>> r = run_term("pipe(inc, tpool_2(qsort))", [np.arange(1000, 0, -1, dtype=np.int32)] * 8)
    >>> bool((r.outputs[0] == np.arange(11, 1011)).all())
    True
    """
    if functions is None:
        from perfcompose.bench.tasks import TASKS

        functions = {name: TASKS[name].run for name in ("nop", "inc", "qsort")}
    if isinstance(term, str):
        term = parse_term(term, components=functions)
    if workers not in WORKERS:
        raise RuntimeTermError(f"unknown kind of worker '{workers}'", hint="use " + " or ".join(WORKERS))
    if len(elements) < 2:
        raise RuntimeTermError("a stream needs at least two elements")
    if capacity < 1:
        raise RuntimeTermError("queue capacity must be at least 1")
    node = plan(term, functions)
    count = worker_count(node)
    cores = _cores(pin, count)
    backend: Any = _Threads(cores) if workers == "threads" else _Processes(start_method, cores)
    abort, done = backend.event(), backend.event()
    errors, ready, waits = backend.queue(), backend.queue(), backend.queue()
    source, sink_q = backend.channel(None), backend.channel(None)
    n = len(elements)
    started, finished = np.zeros((2, n), dtype=np.int64)
    outputs: list[Any] = [None] * n if keep_outputs else []
    watch = _Watch(errors, abort, workers == "threads")
    try:
        _launch(node, source, Sink(sink_q, done), backend, capacity, (abort, errors, ready, waits))
        _wait_ready(ready, count, watch, backend)
        for i, data in enumerate(elements):
            source.put((i, data, 0), abort)
        source.put(END, abort)
        got = _collect(sink_q, done, watch, backend, (started, finished),
                       outputs if keep_outputs else None)
        if got != n:
            raise RuntimeTermError(f"{n - got} of {n} elements were lost on the way")
    except Aborted:
        pass
    except BaseException:
        abort.set()
        raise
    finally:
        if watch.failure is not None or not done.is_set():
            abort.set()
        backend.stop(2.0)
    if watch.failure is not None:
        _raise_failure(term, watch.failure)
    return RunResult(str(term), workers, count, started, finished,
                     count if warmup is None else warmup, tuple(outputs) if keep_outputs else None,
                     _total_wait(waits, count))


class _Watch:
    """What stops a run: a worker's failure or an abort. :meth:`check` records
    the first of them in ``failure`` (task name, message, traceback, pickled exception; an empty
    name for the run's own failures) and raises :class:`Aborted`."""

    def __init__(self, errors: Any, abort: Any, threads: bool):
        self.errors, self.abort, self.threads = errors, abort, threads
        self.failure: tuple | None = None

    def check(self) -> None:
        try:
            self.failure = self.errors.get_nowait() if self.threads else self.errors.get(timeout=0.001)
        except queue.Empty:
            if self.abort.is_set() and self.failure is None:
                self.failure = ("", "stopped", "", None)
        if self.failure is not None:
            raise Aborted

    def fail(self, message: str) -> NoReturn:
        self.failure = ("", message, "", None)
        raise Aborted


def _wait_ready(ready: Any, count: int, watch: _Watch, backend: Any) -> None:
    """Wait until every worker has said it is ready."""
    for _ in range(count):
        while True:
            try:
                ready.get(timeout=0.05)
                break
            except queue.Empty:
                watch.check()
                if backend.alive() < count:
                    watch.fail("a worker died before the run started")


def _collect(sink_q: Any, done: Any, watch: _Watch, backend: Any,
             times: tuple[np.ndarray, np.ndarray], outputs: list[Any] | None) -> int:
    """Take every element off the sink until the end mark, recording its times (and output);
    the number of elements that arrived."""
    started, finished = times
    got = 0
    while True:
        if watch.threads and not done.wait(0.05):
            watch.check()
            continue
        try:
            item = sink_q.poll(0.05)
        except queue.Empty:
            watch.check()
            if not watch.threads and backend.crashed() and not done.is_set():
                watch.fail("a worker process died")
            continue
        if is_end(item):
            return got
        idx, data, t_in, t_out = item
        started[idx], finished[idx] = t_in, t_out
        if outputs is not None:
            outputs[idx] = data
        got += 1


def _raise_failure(term: Term, failure: tuple) -> NoReturn:
    """Raise what stopped the run: the task's error, with the worker's exception as its cause."""
    name, message, tb, blob = failure
    cause = None
    with contextlib.suppress(Exception):
        cause = None if blob is None else pickle.loads(blob)
    if not name:
        raise RuntimeTermError(f"the run of {term} stopped: {message}")
    raise TaskError(name, message, tb) from cause


def _total_wait(waits: Any, count: int) -> float | None:
    """The workers' runqueue waits, summed [s]; None if any worker could not say."""
    total = 0
    for _ in range(count):
        try:
            w = waits.get(timeout=1.0)
        except queue.Empty:
            return None
        if w is None:
            return None
        total += w
    return total * 1e-9
