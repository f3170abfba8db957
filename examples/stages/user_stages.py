"""A two-stage program of your own to validate: smooth a signal (NumPy convolution), then pack it
(zlib). Each stage is a function of one data element; ``signal(x)`` makes an element of size x.

Run from this folder::

    perfcompose validate "seq(smooth, pack)" "pipe(smooth, pack)" "tpool_2(seq(smooth, pack))" \
        --task smooth=user_stages:smooth --task pack=user_stages:pack --input user_stages:signal \
        --x 1024:65536
"""
from __future__ import annotations

import zlib

import numpy as np

_RNG = np.random.default_rng(2024)
_KERNEL = np.hanning(31) / np.hanning(31).sum()


def signal(x: float) -> np.ndarray:
    """x samples of a noisy sine, as 16-bit integers (a fresh one on every call)."""
    t = np.arange(int(x))
    wave = 8000 * np.sin(t / 50.0) + _RNG.normal(0, 300, int(x))
    return wave.astype(np.int16)


def smooth(a: np.ndarray) -> np.ndarray:
    """A 31-tap Hann filter over the samples (same length, 16-bit)."""
    return np.convolve(a, _KERNEL, mode="same").astype(np.int16)


def pack(a: np.ndarray) -> bytes:
    """The samples compressed with zlib (level 6)."""
    return zlib.compress(np.ascontiguousarray(a).tobytes(), 6)
