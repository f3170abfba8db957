"""The runtime that runs the data-parallel programs the Modeling Engine reads (``program(dp, N, ...)``,
SPMD over ``dp.P`` processors, see docs/pamela.md): :func:`run` starts ``P`` worker processes (BLAS
on one thread each) and times each run from a barrier to the last worker's end, less the time
spent filling the arrays ``dp.array`` declares.
"""
from __future__ import annotations

import bisect
import importlib.util
import math
import multiprocessing as mp
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from perfcompose.choices import Clock
from perfcompose.environment import SINGLE_THREAD_ENV, environment

__all__ = ["Clock", "RunError", "Layout", "block", "cyclic", "replicated", "local", "Machine", "run",
           "run_alternatives", "run_lines", "load_program", "pairwise_links", "pin_to_core", "spawn_workers",
           "STEADY_MEMORY_ENV"]

#: glibc's allocator in the workers keeps freed memory for the next array instead of giving it back
#: to the system (arrays up to 32 MB from the heap, no trimming): a large array made anew then costs
#: what it costs in a long-running program and in the micro-benchmarks' loops, not the page faults
#: of fresh memory (on this virtual machine about 1.5 ms per 2 MB)
STEADY_MEMORY_ENV = {"MALLOC_MMAP_THRESHOLD_": str(32 * 2 ** 20), "MALLOC_TRIM_THRESHOLD_": str(2 ** 40)}


@dataclass(frozen=True)
class Layout:
    """How one axis of an array is spread over the processors: in blocks, cyclically, or not at all."""

    kind: Literal["block", "cyclic", "replicated"]
    axis: int = 0


def block(axis: int = 0) -> Layout:
    """Axis ``axis`` in contiguous blocks of ``ceil(n / P)``."""
    return Layout("block", axis)


def cyclic(axis: int = 0) -> Layout:
    """Index ``i`` of axis ``axis`` on processor ``i mod P``."""
    return Layout("cyclic", axis)


def replicated() -> Layout:
    """A whole copy on every processor."""
    return Layout("replicated", 0)


def owned(n: int, layout: Layout, p: int, P: int) -> range:
    """The global indices of an axis of length ``n`` that processor ``p`` owns, in order."""
    if layout.kind == "replicated":
        return range(n)
    if layout.kind == "cyclic":
        return range(p, n, P)
    b = math.ceil(n / P)
    return range(min(n, p * b), min(n, (p + 1) * b))


def owner(i: int, n: int, layout: Layout, P: int) -> int:
    """The processor that owns global index ``i``."""
    return i % P if layout.kind == "cyclic" else i // math.ceil(n / P)


def local(i: int, n: int, layout: Layout, P: int) -> int:
    """The position of global index ``i`` among those its owner holds (a range's index is computed,
    not searched)."""
    return owned(n, layout, owner(i, n, layout, P), P).index(i)


@dataclass
class _Dist:
    """What the runtime remembers of a distributed array: its global shape and layout."""

    shape: tuple[int, ...]
    layout: Layout


class Machine:
    """What a program sees as ``dp``: its processor ``p`` of ``P``, arrays, and communication."""

    def __init__(self, p: int, P: int, links: Mapping[int, Any], seed: int = 0):
        self.p, self.P = p, P
        self._links = links
        self._rng = np.random.default_rng(seed * 7919 + p)
        self._arrays: dict[int, _Dist] = {}
        self.excluded = 0.0  # seconds spent filling declared arrays, not counted as run time
        self.excluded_cpu = 0.0  # the same in processor time

    # -- arrays ---------------------------------------------------------------------------------

    def array(self, shape: Sequence[int], layout: Layout | None = None, fill: str = "random"):
        """This processor's part of a distributed array of global ``shape``; ``fill``: ``random``
        (uniform in [0, 1)) or ``dominant`` (random plus ``n`` on the global diagonal)."""
        t0, c0 = time.perf_counter(), time.process_time()
        layout = layout or replicated()
        shape = tuple(int(s) for s in shape)
        idx = owned(shape[layout.axis], layout, self.p, self.P)
        local = list(shape)
        local[layout.axis] = len(idx)
        a = self._rng.random(tuple(local))
        if fill == "dominant":
            for li, gi in enumerate(idx):
                if layout.axis == 0 and gi < shape[1]:
                    a[li, gi] += shape[0]
                elif layout.axis == 1 and gi < shape[0]:
                    a[gi, li] += shape[0]
        self._arrays[id(a)] = _Dist(shape, layout)
        self.excluded += time.perf_counter() - t0
        self.excluded_cpu += time.process_time() - c0
        return np.ascontiguousarray(a)

    def _dist(self, a) -> _Dist:
        d = self._arrays.get(id(a))
        if d is None:
            raise ValueError("not an array declared with dp.array")
        return d

    def after(self, a, axis: int, k: int) -> int:
        """The local position of the first owned index greater than ``k`` along ``axis``."""
        d = self._dist(a)
        mine = owned(d.shape[axis], d.layout, self.p, self.P)
        return len(mine[: bisect.bisect_right(mine, k)])

    # -- communication --------------------------------------------------------------------------

    def _send(self, q: int, x) -> None:
        x = np.ascontiguousarray(x)
        self._links[q].send((x.dtype.str, x.shape))
        self._links[q].send_bytes(memoryview(x).cast("B"))

    def _recv(self, q: int):
        dtype, shape = self._links[q].recv()
        out = np.empty(shape, dtype=dtype)
        self._links[q].recv_bytes_into(out.data.cast("B"))
        return out

    def _exchange(self, q: int, x):
        """Send ``x`` to ``q`` and receive ``q``'s; the lower rank sends first (no deadlock)."""
        if self.p < q:
            self._send(q, x)
            return self._recv(q)
        got = self._recv(q)
        self._send(q, x)
        return got

    def barrier(self) -> None:
        """Wait until every processor arrives."""
        self.allgather(np.zeros(1))

    def bcast(self, a, i: int):
        """Slice ``i`` of the distributed axis of ``a`` (a row of a row-distributed matrix, a column
        of a column-distributed one), sent by its owner to every processor."""
        d = self._dist(a)
        n = d.shape[d.layout.axis]
        root = owner(i, n, d.layout, self.P)
        if self.p != root:
            return self._recv(root)
        k = local(i, n, d.layout, self.P)
        x = (a[k] if d.layout.axis == 0 else a[:, k]).copy()
        for q in range(self.P):
            if q != root:
                self._send(q, x)
        return x

    def allgather(self, x, axis: int = 0):
        """Every processor's ``x``, joined along ``axis`` in processor order, on every processor."""
        return np.concatenate(self.alltoall([x] * self.P), axis=axis) if self.P > 1 else np.array(x, copy=True)

    def alltoall(self, parts: Sequence[Any]):
        """``parts[q]`` goes to processor ``q``; returns what every processor sent here, in order."""
        got: list[Any] = [None] * self.P
        got[self.p] = parts[self.p]
        for q in self._pairs():
            got[q] = self._exchange(q, parts[q])
        return got

    def redistribute(self, a, axis: int):
        """The same global array, now in blocks along ``axis`` instead of its current layout's axis
        (an all-to-all exchange)."""
        d = self._dist(a)
        n = d.shape[axis]
        parts = []
        for q in range(self.P):
            idx = owned(n, block(axis), q, self.P)
            parts.append(np.ascontiguousarray(a[idx.start:idx.stop] if axis == 0 else a[:, idx.start:idx.stop]))
        out = np.concatenate(self.alltoall(parts), axis=d.layout.axis) if self.P > 1 else parts[0]
        self._arrays[id(out)] = _Dist(d.shape, block(axis))
        return out

    def merge(self, runs: Sequence[Any]):
        """One sorted vector from sorted runs."""
        return np.sort(np.concatenate(runs), kind="stable")

    def _pairs(self) -> list[int]:
        """The partners of this processor in one global order of pairs (every pair once)."""
        return [j if i == self.p else i for i in range(self.P) for j in range(i + 1, self.P)
                if self.p in (i, j)]


def load_program(path: str | Path) -> Callable[..., Any]:
    """The ``program`` function of a program file."""
    path = Path(path)
    spec = importlib.util.spec_from_file_location(f"_dp_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fn = getattr(module, "program", None)
    if not callable(fn):
        raise ImportError(f"{path} defines no function 'program(dp, ...)'")
    return fn


class _LineClock:
    """Seconds spent on every line of the files in ``folder`` (a program and the helpers beside
    it), what the line calls included, as ``sys.settrace`` reports the lines run."""

    def __init__(self, folder: str, clock: str):
        self.folder = folder
        self.now = time.perf_counter if clock == "wall" else time.process_time
        self.totals: dict[tuple[str, int], float] = {}
        self.last: tuple[str, int] | None = None
        self.since = 0.0
        self.files: dict[str, str | None] = {}  # a code's file: its real path where it is watched

    def _watched(self, name: str) -> str | None:
        found = self.files.get(name, "")
        if found == "":
            real = os.path.realpath(name)
            found = self.files[name] = real if os.path.dirname(real) == self.folder else None
        return found

    def _charge(self, key: tuple[str, int] | None) -> None:
        t = self.now()
        if self.last is not None:
            self.totals[self.last] = self.totals.get(self.last, 0.0) + t - self.since
        self.last, self.since = key, t

    def calls(self, frame, event, arg):
        return self.lines if self._watched(frame.f_code.co_filename) else None

    def lines(self, frame, event, arg):
        if event == "line":
            self._charge((self.files[frame.f_code.co_filename], frame.f_lineno))
        return self.lines

    def stop(self) -> dict[tuple[str, int], float]:
        self._charge(None)
        return self.totals


def pin_to_core(p: int) -> None:
    """Keep this process on one core of those it may use, worker ``p`` on the ``p``-th (modulo
    their number): a worker that the scheduler moves to another core leaves its cache behind, and
    two workers on one core while another idles take twice as long."""
    if hasattr(os, "sched_setaffinity"):
        cores = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cores[p % len(cores)]})


def _timed_run(fn, p: int, P: int, links: dict, params: dict, seed: int, clock: str, tracer) -> float:
    """One run of ``fn`` between barriers: this processor's seconds, less filling its arrays."""
    dp = Machine(p, P, links, seed=seed)
    dp.barrier()
    if tracer:
        sys.settrace(tracer.calls)
    t0, c0 = time.perf_counter(), time.process_time()
    fn(dp, **params)
    t1, c1 = time.perf_counter(), time.process_time()
    sys.settrace(None)
    dp.barrier()
    return t1 - t0 - dp.excluded if clock == "wall" else c1 - c0 - dp.excluded_cpu


def _worker(paths: Sequence[str], p: int, P: int, links: dict, params: dict, reps: int, clock: str,
            lines: bool, out) -> None:
    try:
        pin_to_core(p)
        fns = [load_program(path) for path in paths]
        times: list[list[float]] = [[] for _ in fns]
        tracer = _LineClock(os.path.dirname(os.path.realpath(paths[0])), clock) if lines else None
        for r in range(reps + 1):  # the first round warms up
            for k in range(len(fns)):  # the programs in turn, each round starting with the next
                i = (r + k) % len(fns)
                t = _timed_run(fns[i], p, P, links, params, r, clock, tracer if r == reps else None)
                if r:
                    times[i].append(t)
        out.send((times[0], tracer.stop()) if tracer else times)
    except BaseException as exc:  # reported by the parent, which stops the other workers
        out.send(f"{type(exc).__name__}: {exc}")


def pairwise_links(ctx, P: int) -> list[dict[int, Any]]:
    """A duplex pipe between every pair of ``P`` workers: ``links[p][q]`` is ``p``'s end of ``p``–``q``."""
    links: list[dict[int, Any]] = [{} for _ in range(P)]
    for i in range(P):
        for j in range(i + 1, P):
            links[i][j], links[j][i] = ctx.Pipe(duplex=True)
    return links


class RunError(RuntimeError):
    """A worker of a program failed."""


def run(path: str | Path, params: Mapping[str, int], P: int, reps: int = 5, clock: Clock = "wall") -> list[float]:
    """Run ``program(dp, **params)`` of ``path`` on ``P`` pinned processes, ``reps`` timed runs after a
    warm-up, each the time of its slowest processor on the ``clock`` (``cpu`` leaves out waiting)."""
    return run_alternatives([path], params, P, reps, clock)[0]


def run_alternatives(paths: Sequence[str | Path], params: Mapping[str, int], P: int, reps: int = 5,
                     clock: Clock = "wall") -> list[list[float]]:
    """Run several programs as :func:`run` does, in the same workers, in turn: one run of each per
    round (the first round a warm-up), so that whatever else the machine does at the time
    disturbs all of them alike. Per program, the times of its ``reps`` runs."""
    results = _run_workers(paths, params, P, reps, clock, False)
    return [[max(r[k][i] for r in results) for i in range(reps)] for k in range(len(paths))]


def run_lines(path: str | Path, params: Mapping[str, int], P: int, clock: Clock = "wall"
              ) -> list[dict[tuple[str, int], float]]:
    """Run the program as :func:`run` does (one warm-up), then once more with every line of it
    and of the files beside it timed; per processor, ``{(file, line): seconds}`` (a line's time
    includes what it calls: NumPy, the runtime's communication)."""
    return [lines for _, lines in _run_workers([path], params, P, 1, clock, True)]


def _run_workers(paths: Sequence[str | Path], params: Mapping[str, int], P: int, reps: int, clock: str,
                 lines: bool) -> list[Any]:
    """What every worker sent back, in processor order."""
    links = pairwise_links(mp.get_context("spawn"), P)
    names = ", ".join(Path(x).name for x in paths)
    args = [([str(x) for x in paths], p, P, links[p], dict(params), reps, clock, lines) for p in range(P)]
    return spawn_workers(_worker, args, lambda p, why: RunError(f"{names} on processor {p} of {P}: {why}"))


def spawn_workers(target: Callable[..., None], args: Sequence[tuple], failed: Callable[[int, str], Exception]
                  ) -> list[Any]:
    """What ``target(*args[p], conn)`` sends on ``conn`` in each of ``len(args)`` spawned processes, in order. Their
    BLAS libraries run on one thread each (a worker is one processor) and their allocator keeps its memory
    (:data:`STEADY_MEMORY_ENV`); a worker that sends a string (its error) or dies stops them all: ``failed(p, why)``."""
    ctx = mp.get_context("spawn")
    with environment({**SINGLE_THREAD_ENV, **STEADY_MEMORY_ENV}):
        outs = [ctx.Pipe(duplex=False) for _ in args]
        procs = [ctx.Process(target=target, args=(*a, out[1]), daemon=True) for a, out in zip(args, outs)]
        for pr in procs:
            pr.start()
        results = []
        for p, (conn, _) in enumerate(outs):
            while not conn.poll(0.2):
                if any(pr.exitcode not in (None, 0) for pr in procs):
                    break
            got = conn.recv() if conn.poll(0) else "the worker died"
            if isinstance(got, str):
                for pr in procs:
                    pr.terminate()
                raise failed(p, got)
            results.append(got)
        for pr in procs:
            pr.join()
    return results
