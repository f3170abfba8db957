"""Whether measurements fall as a parameter grows (strong scaling, T = c + a*p^-1), where PMNF
needs negative exponents: the value at the largest coordinate is at most ``ratio`` times the
one at the smallest, and Spearman's rank correlation is at most ``-rho``.

>>> import numpy as np
>>> p = np.array([1000.0, 2000, 4000, 8000, 16000])
>>> falls(p, 256e3 / p), falls(p, 4 + 0.001 * p), falls(p, np.array([4.1, 3.9, 4.0, 4.0, 4.1]))
(True, False, False)
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

RATIO = 0.8   # the value at the largest coordinate is at most this share of the one at the smallest
RHO = 0.7     # and the ranks of values and coordinates are this strongly opposed


def falls(x: np.ndarray, y: np.ndarray, ratio: float = RATIO, rho: float = RHO) -> bool:
    """Whether ``y`` falls as ``x`` grows (one value per coordinate, at least 3 distinct ones)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if len(x) < 3:
        return False
    lo, hi = y[x == x.min()].mean(), y[x == x.max()].mean()
    # the cheap test first: most data grow, and the end points tell
    if not (lo > 0 and hi <= ratio * lo) or len(np.unique(x)) < 3 or not np.all(np.isfinite(y)):
        return False
    return spearman(x, y) <= -rho


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rank correlation (ties get their average rank; 0 where a side is constant)."""
    rx, ry = _ranks(x), _ranks(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    den = float(np.sqrt((rx @ rx) * (ry @ ry)))
    return float(rx @ ry) / den if den > 0 else 0.0


def falls_rows(x: np.ndarray, Y: np.ndarray, ratio: float = RATIO, rho: float = RHO) -> np.ndarray:
    """:func:`falls` for every row of ``Y`` (rows, len(x)) at the same coordinates ``x``, at once
    (the lines of many series measured at the same points)."""
    x, Y = np.asarray(x, dtype=float), np.asarray(Y, dtype=float)
    if len(x) < 3 or len(np.unique(x)) < 3:
        return np.zeros(len(Y), dtype=bool)
    lo, hi = Y[:, x == x.min()].mean(axis=1), Y[:, x == x.max()].mean(axis=1)
    out = (lo > 0) & (hi <= ratio * lo) & np.all(np.isfinite(Y), axis=1)
    if not out.any():
        return out
    rx = _ranks(x)
    rx = rx - rx.mean()
    # average ranks of each row: the values below, plus the middle of the run of equal ones
    ry = np.sum(Y[:, None, :] < Y[:, :, None], axis=2) + (np.sum(Y[:, None, :] == Y[:, :, None], axis=2) + 1) / 2.0
    ry = ry - ry.mean(axis=1, keepdims=True)
    den = np.sqrt((rx @ rx) * np.einsum("lr,lr->l", ry, ry))
    rho_y = np.where(den > 0, (ry @ rx) / np.where(den > 0, den, 1.0), 0.0)
    return out & (rho_y <= -rho)


def _ranks(v: np.ndarray) -> np.ndarray:
    _, inverse, counts = np.unique(v, return_inverse=True, return_counts=True)
    return (np.cumsum(counts) - (counts - 1) / 2.0)[inverse.ravel()]


def falls_along(lines: Sequence[tuple[np.ndarray, np.ndarray]], ratio: float = RATIO, rho: float = RHO) -> bool:
    """Whether the values fall along a parameter on most of its lines ((x, y) per line)."""
    votes = [falls(x, y, ratio, rho) for x, y in lines]
    return bool(votes) and sum(votes) * 2 > len(votes)
