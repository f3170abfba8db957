"""How far below zero a fitted constant may fall and still count as non-negative: a cost has no
negative part, and a negative constant marks a form that fits only by cancelling its own growth."""
from __future__ import annotations

from typing import Any

import numpy as np

from perfcompose.fit.noise import NOISE_FLOOR

__all__ = ["constant_slack", "intercept_slack"]


def constant_slack(y: np.ndarray, sigma: float | np.ndarray) -> Any:
    """How far below zero a fitted constant may fall and still count as non-negative: two noise widths
    (``sigma``, relative) of the smallest value; unrestricted without a noise estimate or for exact
    data (``p - 1`` messages is a law). ``y`` may hold one series per row, ``sigma`` one per row."""
    if np.ndim(sigma) == 0 and sigma <= NOISE_FLOOR:
        return np.full(y.shape[:-1], np.inf) if y.ndim > 1 else np.inf
    slack = 2.0 * sigma * np.min(y, axis=-1) + 1e-9 * np.max(y, axis=-1)
    return slack if np.ndim(sigma) == 0 else np.where(sigma <= NOISE_FLOOR, np.inf, slack)


def intercept_slack(F: np.ndarray, y: np.ndarray, sigma: Any, index: np.ndarray) -> np.ndarray:
    """Two standard errors of the fitted constant of each hypothesis at relative noise ``sigma``:
    ``F`` (m, n) term columns, ``index`` (H, k) each hypothesis' columns besides the constant; the
    design is each column over ``y``, scaled to unit length. Non-finite columns give no slack.
    ``y`` (S, n) and ``sigma`` (S,) may stack S series (then (S, H), and ``F`` may be (S, m, n)):
    NumPy and LAPACK compute a stack slice by slice, as one series alone."""
    if y.ndim == 1:
        return intercept_slack(F, y[None, :], np.array([sigma]), index)[0]
    S, n = y.shape
    smallest = np.min(np.where(y > 0, y, np.inf), axis=1, initial=1.0)
    yf = np.where(y > 0, y, smallest[:, None])
    F3 = np.broadcast_to(F, (S, *F.shape[-2:])) if F.ndim == 2 else F
    B = np.concatenate([np.ones((S, 1, n)), F3], axis=1) / yf[:, None, :]
    norm = np.linalg.norm(B, axis=2)
    ok = np.isfinite(norm) & (norm > 0)
    B = np.where(ok[:, :, None], B / np.where(ok, norm, 1.0)[:, :, None], 0.0)
    gram = B @ B.transpose(0, 2, 1)
    cols = np.concatenate([np.zeros((len(index), 1), dtype=int), np.asarray(index, dtype=int) + 1], axis=1)
    # each squared as a NumPy scalar (libm's pow): an array's square may differ in the last digit
    first = np.array([v ** 2 for v in norm[:, 0]])
    inv00 = np.linalg.pinv(gram[:, cols[:, :, None], cols[:, None, :]])[:, :, 0, 0] / first[:, None]
    usable = np.all(ok[:, cols], axis=2) & np.isfinite(inv00)
    return np.where(usable, (2.0 * sigma)[:, None] * np.sqrt(np.maximum(np.where(usable, inv00, 0.0), 0.0)), 0.0)
