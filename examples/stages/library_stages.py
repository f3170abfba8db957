"""Stages of everyday library code, to validate perfcompose on code that is not its own.

Each stage is a function of one data element, as a program of your own would have them: NumPy
filtering, sorting and spectra, zlib compression, BLAKE2 hashing and JSON encoding. They differ
in what the papers' operators leave out: ``sort`` and ``pack`` cost something else on the data a
stage before them hands on than on fresh input (sorted values compress better), ``smooth`` and
``spectrum`` stream through memory, and ``encode`` holds the GIL, so two threads cannot run it
at once. ``signal(x)`` makes an element: x samples of a noisy sine.

Run from this folder::

    perfcompose validate "seq(smooth, sort, pack)" "tpool_2(encode)" "pipe(smooth, pack)" \\
        --task smooth=library_stages:smooth --task sort=library_stages:sort \\
        --task pack=library_stages:pack --task encode=library_stages:encode \\
        --input library_stages:signal --x 4096:65536
"""
from __future__ import annotations

import hashlib
import json
import zlib
from typing import Any

import numpy as np

_RNG = np.random.default_rng(2024)
_KERNEL = np.hanning(63) / np.hanning(63).sum()


def signal(x: float) -> np.ndarray:
    """x samples of a noisy sine (float64; a fresh one on every call)."""
    n = int(x)
    return 1000.0 * np.sin(np.arange(n) / 40.0) + _RNG.normal(0.0, 50.0, n)


def smooth(a: np.ndarray) -> np.ndarray:
    """A 63-tap Hann filter over the samples (NumPy convolution; same length)."""
    return np.convolve(a, _KERNEL, mode="same")


def sort(a: np.ndarray) -> np.ndarray:
    """The samples in ascending order (NumPy's sort, a copy)."""
    return np.sort(a, kind="quicksort")


def spectrum(a: np.ndarray) -> np.ndarray:
    """The magnitude of the real FFT (NumPy; x/2 + 1 values)."""
    return np.abs(np.fft.rfft(a))


def quantize(a: np.ndarray) -> np.ndarray:
    """The samples rounded to 16-bit integers (NumPy)."""
    return np.clip(np.rint(a), -32768, 32767).astype(np.int16)


def pack(a: Any) -> bytes:
    """The data compressed with zlib, level 6 (arrays as their bytes)."""
    return zlib.compress(np.ascontiguousarray(a).data if isinstance(a, np.ndarray) else a, 6)


def digest(a: Any) -> Any:
    """A BLAKE2b checksum of the data (hashlib), which it passes on unchanged."""
    hashlib.blake2b(np.ascontiguousarray(a).data if isinstance(a, np.ndarray) else a).digest()
    return a


def encode(a: np.ndarray) -> str:
    """The samples as a JSON list with one decimal (the json module: pure Python objects, holds
    the GIL throughout)."""
    return json.dumps([round(v, 1) for v in a.tolist()])
