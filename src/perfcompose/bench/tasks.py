"""The papers' reference building blocks (000 section 4.1), as kernels that release the GIL.

``nop``, ``inc`` (add 1 to every element, ten times) and ``qsort`` work on arrays of x random
32-bit ints (C's int, as in the paper); the pixel-channel histogram MapReduce works on a
deterministic synthetic RGB image at the
paper's three resolutions. ``inc``, the histogram ``map`` and ``reduce_v`` are Numba kernels
compiled with ``nogil=True``, and so is ``qsort`` (Numba's quicksort); ``nop``
and ``reduce_p`` (768 additions) are too short for the GIL to matter. Where Numba is not installed
(perfcompose's ``numba`` extra), ``inc``, the histogram and ``reduce_v`` run as NumPy's loops, which
release the GIL too: the Numba kernels as plain Python would time Python's interpreter, a hundred
times slower, not the task.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from perfcompose._jit import HAVE_NUMBA, njit

#: the paper's image sizes (000 section 4.1.2), width x height
RESOLUTIONS: dict[str, tuple[int, int]] = {"small": (341, 227), "medium": (1024, 681), "large": (3072, 2048)}
KEYS = 768  # 3 channels x 256 values


INC_BLOCK = 2048  # elements (8 KiB of int32): a block stays in L1 through its ten passes


@njit(nogil=True, cache=True)
def _inc10(a: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    n = a.shape[0]
    for start in range(0, n, INC_BLOCK):
        stop = min(start + INC_BLOCK, n)
        for _ in range(10):
            for i in range(start, stop):
                a[i] += 1
    return a


@njit(nogil=True, cache=True)
def _inc1(a: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    for i in range(a.shape[0]):
        a[i] += 1
    return a


@njit(nogil=True, cache=True)
def _quicksort(a: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    return np.sort(a)


@njit(nogil=True, cache=True)
def _histogram(pixels: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    counts = np.zeros(768, dtype=np.int64)
    for i in range(pixels.shape[0]):
        for c in range(3):
            counts[c * 256 + pixels[i, c]] += 1
    return counts


@njit(nogil=True, cache=True)
def _sum(values: np.ndarray) -> np.int64:  # pragma: no cover - compiled
    total = np.int64(0)
    for v in values:
        total += v
    return total


def _inc10_numpy(a: np.ndarray) -> np.ndarray:
    for start in range(0, a.shape[0], INC_BLOCK):
        block = a[start:start + INC_BLOCK]
        for _ in range(10):
            np.add(block, 1, out=block)
    return a


def _inc1_numpy(a: np.ndarray) -> np.ndarray:
    np.add(a, 1, out=a)
    return a


def _histogram_numpy(pixels: np.ndarray) -> np.ndarray:
    return np.concatenate([np.bincount(pixels[:, c], minlength=256) for c in range(3)]).astype(np.int64)


def _sum_numpy(values: np.ndarray) -> np.int64:
    return values.sum(dtype=np.int64)


#: the kernels timed: Numba's, or without Numba the same loops in NumPy
_INC10, _INC1, _HISTOGRAM, _SUM = ((_inc10, _inc1, _histogram, _sum) if HAVE_NUMBA else
                                   (_inc10_numpy, _inc1_numpy, _histogram_numpy, _sum_numpy))
#: what runs them, as the tasks' descriptions say
_BY = "Numba, nogil" if HAVE_NUMBA else "NumPy"


def nop(a: np.ndarray) -> np.ndarray:
    """Return the array unchanged: O(1)."""
    return a


def touch(a: Any) -> Any:
    """Add 1 to every element once (compiled, GIL released): the cheapest task that meets the
    GIL and the memory at a hand-over the way a real kernel does. Calibrates the executor.

    It takes whatever a stage before it hands on: an array of 32-bit ints is incremented as
    such, any other contiguous array byte by byte (a probe's output is thrown away), anything
    else (bytes, a Python object) is passed on as it is."""
    if isinstance(a, np.ndarray) and a.ndim == 1 and a.dtype == np.int32:
        return _INC1(a)
    if isinstance(a, np.ndarray) and a.flags.c_contiguous and a.flags.writeable:
        _INC1(a.reshape(-1).view(np.uint8))
    return a


def warm_touch() -> None:
    """Compile :func:`touch`'s kernels for both kinds of array before anything is timed."""
    touch(np.zeros(16, dtype=np.int32))
    touch(np.zeros(16, dtype=np.int16))


def inc(a: np.ndarray) -> np.ndarray:
    """Add 1 to every element, ten times (as 000 times it): O(x).

    The ten passes run block by block, so the array is read from wherever it lies once and its
    blocks are incremented in L1: the cost per element is the arithmetic's, the same at every
    size. Ten passes over the whole array would cost 0.2-0.6 ns per element depending on which
    cache level the array fits in and on what the other core does with the shared caches, and
    a sweep from 1,024 to 262,144 elements would fit that as growing faster than x."""
    return _INC10(a)


def qsort(a: np.ndarray) -> np.ndarray:
    """Sort a copy of the array with a compiled quicksort that releases the GIL: O(x log x).

    NumPy's own sort is not used: its SIMD sort is nearly linear at these sizes, and it holds
    the GIL on arrays below ~100k elements, so two threads sorting would measure the GIL."""
    return _quicksort(a)


def histogram_map(pixels: np.ndarray) -> np.ndarray:
    """Map: the 768-bin pixel-channel histogram of one image, keys 0..767."""
    return _HISTOGRAM(pixels)


def reduce_p(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Reduce pairwise (GrPPi): add two histograms."""
    return a + b


def reduce_v(values: np.ndarray) -> int:
    """Reduce per key (Hadoop): sum the d values of one key."""
    return int(_SUM(values))


@lru_cache(maxsize=3)
def image(resolution: str = "small") -> np.ndarray:
    """A deterministic synthetic RGB image (height x width x 3, uint8): smooth colour gradients
    with seeded noise, so every channel value occurs, as in a photograph."""
    if resolution not in RESOLUTIONS:
        raise ValueError(f"unknown resolution {resolution!r}; choose {', '.join(RESOLUTIONS)}")
    w, h = RESOLUTIONS[resolution]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    rng = np.random.default_rng(15)
    base = np.stack([128 + 100 * np.sin(xx / 37.0 + yy / 53.0),
                     128 + 90 * np.cos(xx / 61.0 - yy / 29.0),
                     (xx + yy) * 255.0 / (w + h)], axis=-1)
    noisy = base + rng.normal(0, 18, size=base.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


_INPUTS = np.random.default_rng(2019)


def random_ints(x: float) -> np.ndarray:
    """A fresh array of x random 32-bit ints, different on every call (from one seeded stream),
    so that a sort never meets an input the branch predictor has already learned."""
    return _INPUTS.integers(0, 2 ** 31 - 1, size=int(x), dtype=np.int32)


@dataclass(frozen=True)
class Task:
    """A building block to time: ``setup`` prepares the inputs outside the timed region and
    ``run`` is what is timed."""

    name: str
    run: Callable[..., Any]
    setup: Callable[..., tuple]
    params: tuple[str, ...] = ("x",)
    releases_gil: bool = True
    grid: dict[str, tuple[float, ...]] = field(default_factory=dict)
    quick_grid: dict[str, tuple[float, ...]] = field(default_factory=dict)
    doc: str = ""

    def warm(self) -> None:
        """Compile the kernels (Numba) before anything is timed."""
        args = self.setup(**{p: (self.quick_grid.get(p) or (16,))[0] for p in self.params})
        self.run(*args)


_ARRAY_GRID = {"x": tuple(float(v) for v in range(1024, 262144 + 1, 1024))}  # 000: 1,024 ... 262,144
_ARRAY_QUICK = {"x": tuple(float(round(2 ** (k / 4))) for k in range(40, 73))}  # 2^10 ... 2^18


def _two_histograms(**_: float) -> tuple:
    pixels = image("small").reshape(-1, 3)
    return (_HISTOGRAM(pixels), _HISTOGRAM(pixels[::-1].copy()))


TASKS: dict[str, Task] = {
    t.name: t for t in [
        # nop never reads its input: an untouched array keeps the input's creation from evicting
        # the caches right before the timed call, which made nop look slower at large x
        Task("nop", nop, lambda x: (np.empty(int(x), dtype=np.int32),), releases_gil=False, grid=_ARRAY_GRID,
             quick_grid=_ARRAY_QUICK, doc="no operation on an array of x ints"),
        Task("inc", inc, lambda x: (random_ints(x),), grid=_ARRAY_GRID, quick_grid=_ARRAY_QUICK,
             doc=f"add 1 to each of x ints, ten times ({_BY})"),
        Task("qsort", qsort, lambda x: (random_ints(x),), grid=_ARRAY_GRID, quick_grid=_ARRAY_QUICK,
             doc="sort x random ints (" + ("quicksort, Numba, nogil" if HAVE_NUMBA else "NumPy's sort") + ")"),
        *[Task(f"map_{r}", histogram_map, lambda r=r, **_: (image(r).reshape(-1, 3),), params=(),
               doc=f"768-bin channel histogram of the {RESOLUTIONS[r][0]}x{RESOLUTIONS[r][1]} image ({_BY})")
          for r in RESOLUTIONS],
        Task("reduce_p", reduce_p, _two_histograms, params=(), releases_gil=False,
             doc="add two 768-bin histograms (pairwise reduction, as GrPPi)"),
        Task("reduce_v", reduce_v, lambda x: (random_ints(x) % 1000,), grid=_ARRAY_GRID,
             quick_grid=_ARRAY_QUICK, doc=f"sum one key's x values (per-key reduction, as Hadoop; {_BY})"),
    ]
}
