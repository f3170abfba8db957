"""What the workers run: the histogram workload and the building blocks of the three reductions.

A key-value collection is a vector indexed by key (the keys are the integers 0..k-1, as 000
assumes for the histogram), so a collection of 768 keys is 768 values and a pair costs 8 bytes
on the wire. Every function here is a module-level function: workers import it by name.
"""
from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from perfcompose.bench.tasks import histogram_map, image

#: pairwise reduction: two collections -> one
PairReduce = Callable[[np.ndarray, np.ndarray], np.ndarray]
#: per-key reduction: the d values of one key -> one value
KeyReduce = Callable[[np.ndarray], int]


@dataclass(frozen=True)
class Picture:
    """One map input: a reference to a synthetic picture that every worker builds (and caches)
    itself, so only the reference travels, as 000 passes a pointer to a loaded image; the map
    repeats its work ``repeat`` times to rise above the engine's noise."""

    resolution: str = "large"
    repeat: int = 1


def picture_histogram(picture: Picture) -> np.ndarray:
    """Map: the 768-bin pixel-channel histogram of the picture, computed ``repeat`` times."""
    pixels = image(picture.resolution).reshape(-1, 3)
    counts = histogram_map(pixels)
    for _ in range(picture.repeat - 1):
        counts = histogram_map(pixels)
    return counts


def prepare_picture(resolution: str) -> int:
    """Build the picture and compile the kernels in this worker, outside any timed job."""
    picture_histogram(Picture(resolution, 1))
    return os.getpid()


def fold_pairwise(reduce: PairReduce, collections: Sequence[np.ndarray]) -> np.ndarray:
    """Reduce collections pairwise, one after the other, until one is left (GrPPi)."""
    return functools.reduce(reduce, collections)


def per_key_rows(reduce: KeyReduce, rows: np.ndarray) -> np.ndarray:
    """Reduce a key-major matrix (one row of d values per key) per key."""
    return np.fromiter((reduce(row) for row in rows), dtype=np.int64, count=rows.shape[0])


def fold_per_key(reduce: KeyReduce, collections: Sequence[np.ndarray]) -> np.ndarray:
    """Reduce collections per key: every key's values gathered and reduced at once (Phoenix,
    Hadoop)."""
    rows = np.ascontiguousarray(np.stack(collections, axis=1))
    return per_key_rows(reduce, rows)


def take_keys(collections: Sequence[np.ndarray], lo: int, hi: int) -> np.ndarray:
    """The shuffle's send side: the values of keys lo..hi-1 of every collection, key-major
    (one row per key), the part of this node's output that one reducer owns."""
    return np.ascontiguousarray(np.stack([c[lo:hi] for c in collections], axis=1))


def reduce_partitions(reduce: KeyReduce, parts: Sequence[np.ndarray], lo: int, hi: int) -> np.ndarray:
    """The shuffle's receive side: rows lo..hi-1 (relative to the parts) of the partitions sent
    by every node, reduced per key."""
    rows = np.ascontiguousarray(np.concatenate([p[lo:hi] for p in parts], axis=1))
    return per_key_rows(reduce, rows)


def concatenate(slices: Sequence[np.ndarray]) -> np.ndarray:
    """The final collection from the reducers' key ranges, in key order."""
    return np.concatenate(list(slices))


def payload(nbytes: int) -> np.ndarray:
    """An array of ``nbytes`` bytes, to time a transfer between workers."""
    return np.ones(nbytes // 8, dtype=np.int64)


def first(a: np.ndarray) -> int:
    """Touch a transferred array (its first element)."""
    return int(a[0])


def identity(a: object) -> object:
    """Pass a value on: one link of a chain of dependent tasks."""
    return a
