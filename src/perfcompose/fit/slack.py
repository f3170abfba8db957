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


def intercept_slack(F: np.ndarray, y: np.ndarray, sigma: float, index: np.ndarray) -> np.ndarray:
    """Two standard errors of the fitted constant of each hypothesis at relative noise ``sigma``:
    ``F`` (m, n) term columns, ``index`` (H, k) each hypothesis' columns besides the constant; the
    design is each column over ``y``, scaled to unit length. Non-finite columns give no slack."""
    yf = np.where(y > 0, y, np.min(y[y > 0], initial=1.0))
    B = np.vstack([np.ones((1, F.shape[1])), F]) / yf
    norm = np.linalg.norm(B, axis=1)
    ok = np.isfinite(norm) & (norm > 0)
    B = np.where(ok[:, None], B / np.where(ok, norm, 1.0)[:, None], 0.0)
    gram = B @ B.T
    cols = np.concatenate([np.zeros((len(index), 1), dtype=int), np.asarray(index, dtype=int) + 1], axis=1)
    inv00 = np.linalg.pinv(gram[cols[:, :, None], cols[:, None, :]])[:, 0, 0] / norm[0] ** 2
    usable = np.all(ok[cols], axis=1) & np.isfinite(inv00)
    return np.where(usable, 2.0 * sigma * np.sqrt(np.maximum(np.where(usable, inv00, 0.0), 0.0)), 0.0)
