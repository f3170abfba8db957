"""The PAMELA machine model of this computer, calibrated by micro-benchmarks (paper 004, section 3):
every kernel a generated model calls (``ew(p, n)``, ``mxv``, ``sort``, ...) timed in a worker whose
BLAS runs on one thread and fitted as ``t = a + b * work``; messages timed by a ping-pong.
"""
from __future__ import annotations

import math
import multiprocessing as mp
import time
from collections.abc import Sequence

import numpy as np

from perfcompose.bench.runner import CallableTarget, run_sweep
from perfcompose.pamela.dataparallel.machine_model import MachineParameters
from perfcompose.pamela.dataparallel.runtime import Machine, RunError, pairwise_links, pin_to_core, spawn_workers

__all__ = ["FULL_COLUMN_SIDES", "FULL_SIDES", "FULL_SIZES", "QUICK_SIDES", "QUICK_SIZES", "calibrate"]


#: sizes (elements) for a quick calibration and for a full one
QUICK_SIZES = (2 ** 10, 2 ** 14, 2 ** 17)
#: the sizes of the case studies' large vector operations (PSRS: N / P of 2^20 and 2^21). Only
#: those: a vector that fits in the core's own cache costs less per element, and one cost per
#: element fitted over smaller sizes too would be that of the cache, not of the programs.
FULL_SIZES = (2 ** 19, 2 ** 20, 2 ** 21)
#: sides of the square matrices the matrix kernels run on: the case studies' N (quick: small ones).
#: Powers of two as in the programs: a row length of 2^k elements maps a column onto few cache
#: sets, which makes column-wise work several times dearer than at other lengths.
QUICK_SIDES = (32, 64, 128)
FULL_SIDES = (512, 1024)             # GAUSS and MATMUL: blocks of rows, products (their N, as above)
FULL_COLUMN_SIDES = (1024, 2048)  # ADI: sweeps along columns


def _fit(work: Sequence[float], times: Sequence[float]) -> tuple[float, float]:
    """``t = a + b * work`` by least squares on relative errors (every size weighs the same, so
    the small sizes decide the start-up ``a`` and the large ones the slope ``b``); a, b >= 0."""
    w = np.asarray(work, float)
    t = np.asarray(times, float)
    A = np.column_stack([np.ones_like(w), w]) / t[:, None]
    (a, b), *_ = np.linalg.lstsq(A, np.ones_like(t), rcond=None)
    if a < 0:
        a, b = 0.0, float(np.median(t / w))
    if b < 0:
        a, b = float(np.median(t)), 0.0
    return float(a), float(b)


def _slope(work: Sequence[float], times: Sequence[float], start: float) -> float:
    """``b`` of ``t = start + b * work`` with the start-up fixed (the machine model charges one
    ``t_call`` per NumPy call, so only the per-unit cost is fitted), by least squares on
    relative errors; b >= 0."""
    w = np.asarray(work, float)
    t = np.asarray(times, float)
    b = float(np.sum(w * (t - start) / t ** 2) / np.sum(w ** 2 / t ** 2))
    return max(b, 0.0)


def _least_wall(run, setup, sizes: Sequence[int], reps: int) -> list[float]:
    """Least elapsed time of one call at every size over ``reps`` repetitions (the programs are
    measured by their least time too: other work on the machine only ever adds time)."""
    target = CallableTarget(run=run, setup=setup, retry_preempted=3, min_time=2e-3)
    result = run_sweep(target, {"n": list(sizes)}, reps=reps, warmup=1)
    return [min(result.values[(float(n),)]) for n in sizes]


def _least_cpu(run, setup, sizes: Sequence[int], reps: int) -> list[float]:
    """Least processor time of one call at every size (calls batched to >= 5 ms)."""
    out = []
    for n in sizes:
        args = setup(n)
        run(*args)
        c0 = time.process_time()
        run(*args)
        once = time.process_time() - c0
        batch = max(1, min(100_000, math.ceil(5e-3 / max(once, 1e-7))))
        values = []
        for _ in range(reps):
            c0 = time.process_time()
            for _ in range(batch):
                run(*args)
            values.append((time.process_time() - c0) / batch)
        out.append(min(values))
    return out


def _vector_kernels(sizes: Sequence[int], reps: int, measure) -> dict[str, float]:
    """Per-call, per-subscript and per-element costs of work on contiguous vectors."""
    rng = np.random.default_rng(1)
    out: dict[str, float] = {}

    def vectors(n):
        return rng.random(n), rng.random(n)

    out["t_call"] = measure(lambda a, b: a * b, vectors, [1], reps)[0]
    M = rng.random((64, 64))
    out["t_index"] = measure(lambda a: a[:, 3], lambda n: (M,), [1], reps)[0]
    call = out["t_call"]
    out["t_ew"] = _slope(sizes, measure(lambda a, b: a * b, vectors, sizes, reps), call)
    out["t_copy"] = _slope(sizes, measure(lambda a: a.copy(), lambda n: (rng.random(n),), sizes, reps), call)
    t = measure(lambda x: np.sort(x), lambda n: (rng.random(n),), sizes, reps)
    out["t_sort"] = _slope([n * math.log2(n) for n in sizes], t, call)

    def runs(n):
        half = n // 2
        return ([np.sort(rng.random(half)), np.sort(rng.random(n - half))],)
    t = measure(lambda r: np.sort(np.concatenate(r), kind="stable"), runs, sizes, reps)
    out["t_merge"] = _slope([n * math.log2(3) for n in sizes], t, 2 * call)  # joined, then merged
    return out


def _column_kernel(sides: Sequence[int], reps: int, measure, t_call: float, t_index: float, parts: int = 1) -> float:
    """Per element of element-wise work along the columns of matrices of ``side / parts`` rows
    of ``side`` (one worker's block of rows of a square matrix of that side)."""
    rng = np.random.default_rng(3)

    def sweep(a, b):  # every column in turn, a recurrence along j: two loads and a store
        for j in range(1, a.shape[1]):
            a[:, j] -= b[:, j] * a[:, j - 1]
    rows = [max(1, s // parts) for s in sides]
    t = measure(sweep, lambda n: (rng.random((max(1, n // parts), n)), rng.random((max(1, n // parts), n))),
                sides, reps)
    per_op = [x / (s - 1) / 2 - 1.5 * t_index - t_call for x, s in zip(t, sides)]
    return _slope(rows, per_op, 0.0)


def _matrix_kernels(sides: Sequence[int], reps: int, measure, t_call: float, t_index: float,
                    parts: int = 1) -> dict[str, float]:
    """Per-element costs of work on one worker's block of columns (``side / parts`` of them) of
    square matrices of the given sides: on blocks of rows, and the multiply-adds of products."""
    rng = np.random.default_rng(2)
    out: dict[str, float] = {}
    widths = [max(2, s // parts) for s in sides]

    def square(n):
        return rng.random((n, n)), rng.random((n, n))

    def columns(n):
        return rng.random((n, max(2, n // parts))), rng.random((n, n))

    def part(skip):  # a new block (outer product), then an update in place of the rows from column skip(w) on
        def run(a, b):
            h = skip(a.shape[1])
            a[1:, h:] -= np.outer(b[0, 1:], a[0, h:])
        return run

    def whole(a, b):  # the same on whole rows: one contiguous run of memory
        a[1:, :] -= np.outer(b[0, 1:], a[0, :])
    # parts of rows of every length a program's blocks have (all but a few elements, 3/4, 1/2,
    # 1/4 of a row: the cost per element varies with the stride), fitted as one cost per element
    work: list[float] = []
    t: list[float] = []
    for skip in (lambda w: min(8, w // 2), lambda w: w // 4, lambda w: w // 2, lambda w: 3 * w // 4):
        t += measure(part(skip), columns, sides, reps)
        work += [2 * (s - 1) * (w - skip(w)) for s, w in zip(sides, widths)]
    out["t_ewm"] = _slope(work, t, 2 * t_call + 3 * t_index)
    t = measure(whole, columns, sides, reps)
    out["t_ewc"] = _slope([2 * (s - 1) * w for s, w in zip(sides, widths)], t, 2 * t_call + 3 * t_index)

    def mxv(n):
        return rng.random(n), rng.random((n, max(2, n // parts)))
    t = measure(lambda x, B: x @ B, mxv, sides, reps)
    out["t_mxv"] = _slope([s * w for s, w in zip(sides, widths)], t, t_call)

    cubes = [max(16, s // 2) for s in sides]
    t = measure(lambda A, B: A @ B, square, cubes, reps)
    out["t_mxm"] = _slope([c ** 3 for c in cubes], t, t_call)
    return out


def _synchronised(measure, sync):
    """``measure``, one size at a time, every worker starting each size together (``sync``)."""
    def run(fn, setup, sizes: Sequence[int], reps: int) -> list[float]:
        out: list[float] = []
        for n in sizes:
            sync()
            out += measure(fn, setup, [n], reps)
        return out
    return run


def _compute_kernels(sizes: Sequence[int], sides: Sequence[int], column_sides: Sequence[int], reps: int,
                     clock: str = "wall", sync=None, parts: int = 1) -> dict[str, float]:
    """Every compute parameter, measured in this (single-threaded) process on one worker's part
    of matrices divided among ``parts``; with ``sync`` (a barrier of the workers measuring at
    the same time) every size starts in all of them at once."""
    measure = _least_wall if clock == "wall" else _least_cpu
    if sync is not None:
        measure = _synchronised(measure, sync)
    out = _vector_kernels(sizes, reps, measure)
    out.update(_matrix_kernels(sides, reps, measure, out["t_call"], out["t_index"], parts))
    out["t_ews"] = _column_kernel(column_sides, reps, measure, out["t_call"], out["t_index"], parts)
    return out


def _kernels_worker(p: int, P: int, links, sizes: Sequence[int], sides: Sequence[int],
                    column_sides: Sequence[int], reps: int, clock: str, conn) -> None:
    pin_to_core(p)
    conn.send(_compute_kernels(sizes, sides, column_sides, reps, clock, sync=Machine(p, P, links).barrier, parts=P))


def _pingpong_worker(p: int, link, sizes: Sequence[int], reps: int, clock: str, conn) -> None:
    pin_to_core(p)
    dp = Machine(p, 2, {1 - p: link})
    now = time.perf_counter if clock == "wall" else time.process_time
    result, stream = [], []
    for n in sizes:
        x = np.ones(n)
        rounds = max(1, min(200, 2 ** 20 // max(n, 1) // 4))
        times, streamed = [], []
        for r in range(reps + 1):
            t0 = now()
            for _ in range(rounds):
                if p == 0:
                    dp._send(1, x)
                    dp._recv(1)
                else:
                    dp._recv(0)
                    dp._send(0, x)
            if r:  # wall: half a round trip; cpu: one send and one receive of this process
                times.append((now() - t0) / rounds / (2 if clock == "wall" else 1))
            t0 = now()
            for _ in range(rounds):  # a stream: 0 sends one message after another, 1 takes them
                dp._send(1, x) if p == 0 else dp._recv(0)
            dp._recv(1) if p == 0 else dp._send(0, x[:1])  # the end of the stream, acknowledged
            if r:  # per message: at the sender, or at the receiver
                streamed.append((now() - t0) / rounds)
        result.append(min(times))
        stream.append(min(streamed))
    conn.send((result, stream))


def _spawn(target, args_per_process: Sequence[tuple]) -> list:
    return spawn_workers(target, args_per_process, lambda p, why: RunError(f"calibration worker {p}: {why}"))


def _concurrent_kernels(workers: int, sizes: Sequence[int], sides: Sequence[int], column_sides: Sequence[int],
                        reps: int, clock: str) -> dict[str, float]:
    """The compute parameters as ``workers`` processes see them running the micro-benchmarks at
    the same time (the mean over the workers): what P processors of a program pay, sharing the
    cache and the memory bandwidth."""
    links = pairwise_links(mp.get_context("spawn"), workers)
    args = [(p, workers, links[p], tuple(sizes), tuple(sides), tuple(column_sides), reps, clock)
            for p in range(workers)]
    found = _spawn(_kernels_worker, args)
    return {name: sum(f[name] for f in found) / workers for name in found[0]}


def calibrate(sizes: Sequence[int] = FULL_SIZES, reps: int = 7, clock: str = "wall",
              sides: Sequence[int] = FULL_SIDES, column_sides: Sequence[int] = FULL_COLUMN_SIDES,
              workers: Sequence[int] = (1, 2)) -> dict[int, MachineParameters]:
    """Measure every parameter of the machine model here: kernels at ``sizes`` (vectors), ``sides``
    (matrices) and ``column_sides`` for every number of ``workers`` at once (the result's keys), on the
    ``clock``; messages between two workers at the vectors' ``sizes`` and the rows' lengths (``sides``)."""
    a, b = mp.get_context("spawn").Pipe(duplex=True)
    rows = tuple(sorted(set(sides) | set(column_sides)))
    msg_sizes = (1,) + rows + tuple(sizes)
    (times, sent), (_, received) = _spawn(_pingpong_worker, [(0, a, msg_sizes, reps, clock),
                                                             (1, b, msg_sizes, reps, clock)])
    exchange = [0] + list(range(len(rows) + 1, len(msg_sizes)))
    t_msg, t_word = _fit([msg_sizes[i] for i in exchange], [times[i] for i in exchange])
    # a pipelined broadcast's messages: the pace of the slower end of a stream (the other keeps
    # up, nobody waits for each message); a chain of them (bcastc) pays a ping-pong's latency
    paced = [max(s, r) for s, r in zip(sent, received)]
    t_smsg, t_sword = _fit(msg_sizes[: len(rows) + 1], paced[: len(rows) + 1])
    return {w: MachineParameters(**_concurrent_kernels(w, sizes, sides, column_sides, reps, clock),
                                 t_msg=t_msg, t_word=t_word, t_smsg=t_smsg, t_sword=t_sword)
            for w in sorted(set(workers))}
