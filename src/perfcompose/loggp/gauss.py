"""The blocked Gaussian elimination study of paper 002, section 5.

An N x N matrix in b x b blocks (nb = N/b per side) is eliminated without pivoting as diagonal waves: wave k (pivot
block (k, k)) reaches block (i, j), i, j >= k, at step t = i + j + k, so several waves are active at once. At its step a
block applies one basic operation and passes one block on to its right and one to its lower neighbour (the multipliers
L_ik travel along the row, the pivot row U_kj down the column; the pivot block sends L_kk^-1 right and U_kk^-1 down):

* Op1 (pivot block):  factor B = LU without pivoting; form L^-1 and U^-1
* Op2 (column below): multiplier B U^-1; the block becomes 0
* Op3 (row right):    L^-1 B
* Op4 (the rest):     B - L_ik U_kj

A step is a computation step (each processor runs the operations of its active blocks) followed by a communication step
(every 8 b^2-byte block sent to a neighbour on another processor; local transfers are not messages, as in the paper).
Layouts: row-striped cyclic (block row i on processor i mod P) and diagonal (block (i, j) on processor (j - i) mod P).
The basic operations are timed on this machine with the project's bench runner (compiled, single-threaded loops; where
Numba, perfcompose's ``numba`` extra, is not installed, the same operations in NumPy, whose matrix products are BLAS's:
the loops as plain Python would time the interpreter).
"""
from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from perfcompose._jit import HAVE_NUMBA, njit
from perfcompose.bench.runner import CallableTarget, run_sweep
from perfcompose.errors import InputError
from perfcompose.loggp.options import LogGPOptions
from perfcompose.loggp.params import LogGP
from perfcompose.loggp.steps.execute import simulate_program
from perfcompose.loggp.steps.program import CommStep, CompStep, Program

__all__ = ["BLOCK_SIZES", "LAYOUTS", "OPS", "OPS_IMPLEMENTATION", "time_operations", "owners", "active_blocks",
           "gauss_program", "Times", "StudyRow", "run_gauss_study", "best", "measure"]

#: the paper's block sizes for a 960 x 960 matrix
BLOCK_SIZES = (10, 12, 16, 20, 24, 30, 40, 48, 60, 64, 80, 96, 120, 160)
LAYOUTS = ("row-cyclic", "diagonal")
OPS = ("Op1", "Op2", "Op3", "Op4")


# ---------------------------------------------------------------------------------------------
# the basic operations, as single-threaded compiled loops


@njit(cache=True)
def op1(a, lu, l_inv, u_inv):  # pragma: no cover - compiled
    """Factor ``a`` = LU without pivoting (into ``lu``), then invert L (unit lower) and U."""
    b = a.shape[0]
    lu[:, :] = a
    for k in range(b):
        piv = lu[k, k]
        for i in range(k + 1, b):
            f = lu[i, k] / piv
            lu[i, k] = f
            for j in range(k + 1, b):
                lu[i, j] -= f * lu[k, j]
    l_inv[:, :] = 0.0
    u_inv[:, :] = 0.0
    for i in range(b):  # L X = I row by row (unit diagonal): X[i] = e_i - sum_m<i L[i,m] X[m]
        l_inv[i, i] = 1.0
        for m in range(i):
            f = lu[i, m]
            for j in range(m + 1):
                l_inv[i, j] -= f * l_inv[m, j]
    for i in range(b - 1, -1, -1):  # U X = I from the bottom: X[i] = (e_i - sum_m>i U[i,m] X[m]) / U[i,i]
        u_inv[i, i] = 1.0
        for m in range(i + 1, b):
            f = lu[i, m]
            for j in range(m, b):
                u_inv[i, j] -= f * u_inv[m, j]
        d = lu[i, i]
        for j in range(i, b):
            u_inv[i, j] /= d


@njit(cache=True)
def op3(x, y, out):  # pragma: no cover - compiled
    """The pivot row block ``L^-1 a`` (``x y`` into ``out``: the product the other operations use too)."""
    b = x.shape[0]
    out[:, :] = 0.0
    for i in range(b):
        for k in range(b):
            f = x[i, k]
            for j in range(b):
                out[i, j] += f * y[k, j]


@njit(cache=True)
def op2(a, u_inv, out):  # pragma: no cover - compiled
    """The multiplier ``a U^-1``; the eliminated block becomes zero."""
    op3(a, u_inv, out)
    a[:, :] = 0.0


@njit(cache=True)
def op4(a, l, u, tmp):  # pragma: no cover - compiled
    """The update ``a - l u`` (in place)."""
    op3(l, u, tmp)
    b = a.shape[0]
    for i in range(b):
        for j in range(b):
            a[i, j] -= tmp[i, j]


def _op1_numpy(a, lu, l_inv, u_inv):
    b = a.shape[0]
    lu[:, :] = a
    for k in range(b):
        lu[k + 1:, k] /= lu[k, k]
        lu[k + 1:, k + 1:] -= np.outer(lu[k + 1:, k], lu[k, k + 1:])
    l_inv[:, :] = np.eye(b)
    u_inv[:, :] = np.eye(b)
    for i in range(b):
        l_inv[i, :i] -= lu[i, :i] @ l_inv[:i, :i]
    for i in range(b - 1, -1, -1):
        u_inv[i, i + 1:] -= lu[i, i + 1:] @ u_inv[i + 1:, i + 1:]
        u_inv[i, i:] /= lu[i, i]


def _op2_numpy(a, u_inv, out):
    np.matmul(a, u_inv, out=out)
    a[:, :] = 0.0


def _op4_numpy(a, l, u, tmp):
    np.matmul(l, u, out=tmp)
    a -= tmp


if not HAVE_NUMBA:  # the same operations in NumPy (the loops above would run as Python)
    op1, op2, op3, op4 = _op1_numpy, _op2_numpy, np.matmul, _op4_numpy  # op3 is the product itself

#: what runs the basic operations here, for the tables' titles
OPS_IMPLEMENTATION = "compiled loops" if HAVE_NUMBA else "NumPy, Numba not installed"


#: each operation's arguments from a b x b block ``a`` and three blocks to write into
_ARGS: dict[str, Callable[..., tuple]] = {
    "Op1": lambda a, x, y, z: (a, x, y, z), "Op2": lambda a, x, y, z: (a.copy(), np.triu(a), x),
    "Op3": lambda a, x, y, z: (np.tril(a), a, x), "Op4": lambda a, x, y, z: (a, np.tril(a), np.triu(a), x)}


def _setup(op: str) -> Callable[[int], tuple]:
    def setup(b: int) -> tuple:
        a = np.random.default_rng(b).random((b, b)) + b * np.eye(b)  # diagonally dominant: no pivoting needed
        return _ARGS[op](a, *(np.empty((b, b)) for _ in range(3)))
    return setup


_RUN: dict[str, Callable[..., None]] = {"Op1": op1, "Op2": op2, "Op3": op3, "Op4": op4}


def time_operations(block_sizes: Sequence[int] = BLOCK_SIZES, *, reps: int = 5, min_time: float = 2e-3,
                    progress: Callable[[int, int], None] | None = None) -> dict[str, dict[int, float]]:
    """Median time in microseconds of each basic operation per block size, measured here with
    :func:`perfcompose.bench.runner.run_sweep` (one warm-up, ``reps`` timed batches)."""
    out: dict[str, dict[int, float]] = {}
    total = len(OPS) * len(block_sizes)
    for n_op, op in enumerate(OPS):
        setup = _setup(op)
        _RUN[op](*setup(4))  # compile outside the timed region
        target = CallableTarget(_RUN[op], setup, label=op, min_time=min_time)

        def tick(k: int, n: int, coord: tuple[float, ...], before: int = n_op * len(block_sizes)) -> None:
            if progress is not None:
                progress(before + k, total)

        res = run_sweep(target, {"b": [float(b) for b in block_sizes]}, reps=reps, warmup=1, progress=tick)
        if res.failures:
            coord, fail = next(iter(res.failures.items()))
            raise InputError(f"timing {op} failed at b = {coord[0]:g}: {fail.message}")
        out[op] = {int(c[0]): float(np.median(v)) * 1e6 for c, v in res.values.items()}
    return out


# ---------------------------------------------------------------------------------------------
# the program


def owners(nb: int, P: int, layout: str) -> np.ndarray:
    """``owner[i, j]``: the processor holding block (i, j) in a layout."""
    i, j = np.indices((nb, nb))
    if layout == "row-cyclic":
        return i % P
    if layout == "diagonal":
        return (j - i) % P
    raise InputError(f"unknown layout {layout!r}", hint=f"layouts: {', '.join(LAYOUTS)}")


def active_blocks(nb: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every (i, j, k) with i, j >= k, sorted by step t = i + j + k, then k, i, j."""
    parts = []
    for k in range(nb):
        i, j = np.indices((nb - k, nb - k))
        parts.append(np.stack([i.ravel() + k, j.ravel() + k, np.full(i.size, k)]))
    ijk = np.concatenate(parts, axis=1)
    t = ijk.sum(axis=0)
    order = np.lexsort((ijk[1], ijk[0], ijk[2], t))
    i, j, k = ijk[:, order]
    return t[order], i, j, k


def gauss_program(n: int, block: int, P: int, layout: str, op_times: Mapping[str, Mapping[int, float]]) -> Program:
    """The program of blocked Gaussian elimination of an n x n matrix with b x b blocks on P
    processors: alternating computation and communication steps, times in microseconds."""
    if n % block:
        raise InputError(f"block size {block} does not divide n = {n}")
    nb = n // block
    owner = owners(nb, P, layout)
    t, i, j, k = active_blocks(nb)
    kind = np.where((i == k) & (j == k), 0, np.where(j == k, 1, np.where(i == k, 2, 3)))
    cost = np.array([op_times[op][block] for op in OPS])[kind]
    who = owner[i, j]
    bounds = np.searchsorted(t, np.arange(t[-1] + 2))
    nbytes = 8.0 * block * block
    steps: list[CompStep | CommStep] = []
    for s in range(t[-1] + 1):
        lo, hi = bounds[s], bounds[s + 1]
        bi, bj, bw = i[lo:hi], j[lo:hi], who[lo:hi]
        steps.append(CompStep(np.bincount(bw, weights=cost[lo:hi], minlength=P)))
        # each block sends right, then down, in the order of the blocks (older waves first)
        src = np.stack([bw, bw], axis=1)
        dst = np.stack([owner[bi, np.minimum(bj + 1, nb - 1)], owner[np.minimum(bi + 1, nb - 1), bj]], axis=1)
        keep = np.stack([bj + 1 < nb, bi + 1 < nb], axis=1) & (src != dst)  # a right and a lower neighbour
        if keep.any():
            steps.append(CommStep.from_arrays(P, src[keep], dst[keep], np.full(int(keep.sum()), nbytes)))
    return Program(P, tuple(steps), "us")


# ---------------------------------------------------------------------------------------------
# the study


@dataclass(frozen=True)
class Times:
    """Predicted total time and its computation and communication parts (the processor that
    finishes last), in microseconds."""

    total: float
    computation: float
    communication: float


@dataclass(frozen=True)
class StudyRow:
    """One block size and layout: standard (section 4) and worst-case (section 4.2) predictions."""

    block: int
    layout: str
    steps: int
    messages: int
    standard: Times
    worst: Times
    forced: int


def run_gauss_study(n: int, P: int, params: LogGP, op_times: Mapping[str, Mapping[int, float]], *,
              block_sizes: Iterable[int] = BLOCK_SIZES, layouts: Iterable[str] = LAYOUTS, seed: int = LogGPOptions.seed,
              progress: Callable[[int, int], None] | None = None) -> list[StudyRow]:
    """Predict every block size and layout with both algorithms."""
    jobs = [(b, lay) for b in block_sizes for lay in layouts]
    rows = []
    for done, (b, lay) in enumerate(jobs):
        prog = gauss_program(n, b, P, lay, op_times)
        std = simulate_program(prog, params, seed=seed, timelines=False)
        worst = simulate_program(prog, params, seed=seed, worst_case=True, timelines=False)
        msgs = sum(s.M for s in prog.steps if isinstance(s, CommStep))
        rows.append(StudyRow(b, lay, len(prog.steps), msgs, Times(**std.summary()), Times(**worst.summary()),
                             len(worst.forced)))
        if progress is not None:
            progress(done + 1, len(jobs))
    return rows


def best(rows: Sequence[StudyRow], which: str = "standard") -> StudyRow:
    """The row with the least predicted total time."""
    return min(rows, key=lambda r: getattr(r, which).total if math.isfinite(getattr(r, which).total) else math.inf)


def measure(n: int, block_sizes: list[int], *, layouts: tuple[str, ...] = LAYOUTS, reps: int = 3,
            ranks: int | None = None, mpiexec: str | None = None, timeout: float = 1800,
            progress: Callable[[int, int], None] | None = None) -> dict:
    """Run :func:`.calibrate.gauss_mpi.main` on ``ranks`` local MPI ranks (default: one per core; this process
    imports no MPI itself) and return its record: per block size and layout the measured total and computation
    time [us]."""
    from perfcompose.loggp.calibrate.parameters import run_mpi

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "gauss.json"
        args = ["--n", str(n), "--blocks", ",".join(map(str, block_sizes)), "--layouts", ",".join(layouts),
                "--reps", str(reps), "--out", str(out)]
        return run_mpi("perfcompose.loggp.calibrate.gauss_mpi", args, out, ranks=ranks or os.cpu_count() or 2,
                       mpiexec=mpiexec, timeout=timeout, progress=progress)
