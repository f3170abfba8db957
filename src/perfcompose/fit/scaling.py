"""Whether measurements fall as a parameter grows (strong scaling, T = c + a*p^-1), where PMNF
needs negative exponents: the value at the largest coordinate is at most ``ratio`` times the
one at the smallest, and Spearman's rank correlation is at most ``-rho``.

>>> import numpy as np
>>> p = np.array([1000.0, 2000, 4000, 8000, 16000])
>>> falls_rows(p, np.array([256e3 / p, 4 + 0.001 * p, [4.1, 3.9, 4.0, 4.0, 4.1]])).tolist()
[True, False, False]
"""
from __future__ import annotations

import numpy as np

RATIO = 0.8   # the value at the largest coordinate is at most this share of the one at the smallest
RHO = 0.7     # and the ranks of values and coordinates are this strongly opposed


def falls_rows(x: np.ndarray, Y: np.ndarray, ratio: float = RATIO, rho: float = RHO) -> np.ndarray:
    """Whether each row of ``Y`` (rows, len(x)) falls as ``x`` grows (at least 3 distinct
    coordinates; a row may be a line of one of many series measured at the same points)."""
    x, Y = np.asarray(x, dtype=float), np.asarray(Y, dtype=float)
    if len(x) < 3 or len(np.unique(x)) < 3:
        return np.zeros(len(Y), dtype=bool)
    lo, hi = Y[:, x == x.min()].mean(axis=1), Y[:, x == x.max()].mean(axis=1)
    out = (lo > 0) & (hi <= ratio * lo) & np.all(np.isfinite(Y), axis=1)
    if not out.any():
        return out
    rx, ry = _ranks(x[None, :])[0], _ranks(Y)
    rx, ry = rx - rx.mean(), ry - ry.mean(axis=1, keepdims=True)
    den = np.sqrt((rx @ rx) * np.einsum("lr,lr->l", ry, ry))
    rho_y = np.where(den > 0, (ry @ rx) / np.where(den > 0, den, 1.0), 0.0)
    return out & (rho_y <= -rho)


def _ranks(Y: np.ndarray) -> np.ndarray:
    """The average ranks of each row: the values below, plus the middle of the run of equal ones."""
    return np.sum(Y[:, None, :] < Y[:, :, None], axis=2) + (np.sum(Y[:, None, :] == Y[:, :, None], axis=2) + 1) / 2.0

