"""Batched weighted least squares with leave-one-out cross-validation over many hypotheses.

Every hypothesis is a design matrix over the same points; stacking them lets NumPy fit thousands
at once. Columns are scaled to unit norm so that steep terms (x^3 on x up to 2^18) keep their
digits, and the leave-one-out residuals come from the hat matrix without refitting.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import numpy as np

Factor = tuple[Fraction, Fraction]  # (i, j) of x^i * log2(x)^j

DEFAULT_I: tuple[Fraction, ...] = tuple(Fraction(s) for s in (
    "0", "1/4", "1/3", "1/2", "2/3", "3/4", "1", "5/4", "4/3", "3/2", "5/3", "7/4", "2", "9/4", "7/3",
    "5/2", "8/3", "11/4", "3"))
DEFAULT_J: tuple[Fraction, ...] = (Fraction(0), Fraction(1), Fraction(2))


def factors(exponents_i: Sequence[Fraction] = DEFAULT_I,
            exponents_j: Sequence[Fraction] = DEFAULT_J) -> list[Factor]:
    """All ``x^i * log2(x)^j`` but the constant, in increasing asymptotic order."""
    return sorted((Fraction(i), Fraction(j)) for i in exponents_i for j in exponents_j if i or j)


def factor_values(x: np.ndarray, fs: Sequence[Factor]) -> np.ndarray:
    """Matrix (len(x), len(fs)) of ``x^i * log2(x)^j``."""
    x = np.asarray(x, dtype=float)[:, None]
    i = np.array([float(f[0]) for f in fs])[None, :]
    j = np.array([float(f[1]) for f in fs])[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        return x ** i * np.log2(x) ** j


@dataclass(frozen=True)
class BatchFit:
    """Coefficients and quality of H hypotheses fitted to the same n points."""

    coef: np.ndarray        # (H, k) in the original (unscaled) units
    fitted: np.ndarray      # (H, n)
    cv: np.ndarray          # (H,) mean absolute leave-one-out relative error
    rss: np.ndarray         # (H,) residual sum of squares (absolute)
    rel_rss: np.ndarray     # (H,) sum of squared relative residuals
    valid: np.ndarray       # (H,) finite, well-posed fits


def fit_batch(A: np.ndarray, y: np.ndarray, weights: np.ndarray) -> BatchFit:
    """Fit ``y ~ A[h] @ c`` for every hypothesis h by weighted least squares.

    ``A`` has shape (H, n, k); ``weights`` (n,) multiply rows (1/y fits relative errors, which is
    what multiplicative measurement noise calls for). The QR factorisation is modified
    Gram-Schmidt vectorised over the hypotheses: k is small, H is large, so this beats a loop
    of LAPACK calls by far, and scaled columns keep it as accurate.
    """
    H, n, k = A.shape
    Aw = A * weights[None, :, None]
    yw = y * weights
    norms = np.sqrt(np.einsum("hnk,hnk->hk", Aw, Aw))
    norms[norms == 0] = 1.0
    V = Aw / norms[:, None, :]
    Q = np.empty_like(V)
    R = np.zeros((H, k, k))
    rank_ok = np.ones(H, dtype=bool)
    for c in range(k):
        v = V[:, :, c].copy()
        for _ in range(2):  # orthogonalise twice: one pass loses digits on near-collinear terms
            for b in range(c):
                r = np.einsum("hn,hn->h", Q[:, :, b], v)
                R[:, b, c] += r
                v -= r[:, None] * Q[:, :, b]
        r = np.sqrt(np.einsum("hn,hn->h", v, v))
        R[:, c, c] = r
        bad = r < 1e-10
        rank_ok &= ~bad
        Q[:, :, c] = v / np.where(bad, 1.0, r)[:, None]
    qty = np.einsum("hnk,n->hk", Q, yw)
    cs = np.zeros((H, k))
    diag = np.where(rank_ok[:, None], np.diagonal(R, axis1=1, axis2=2), 1.0)
    for c in range(k - 1, -1, -1):
        acc = qty[:, c] - np.einsum("hj,hj->h", R[:, c, c + 1:], cs[:, c + 1:])
        cs[:, c] = acc / diag[:, c]
    coef = cs / norms
    fitted = np.einsum("hnk,hk->hn", A, coef)
    resid_w = yw[None, :] - np.einsum("hnk,hk->hn", Q, qty)
    lev = np.einsum("hnk,hnk->hn", Q, Q)
    with np.errstate(divide="ignore", invalid="ignore"):
        loo = resid_w / (1.0 - lev)
    cv = np.mean(np.abs(loo), axis=1)  # relative errors when weights = 1/y
    rss = np.sum((y[None, :] - fitted) ** 2, axis=1)
    rel_rss = np.sum(resid_w ** 2, axis=1)
    valid = rank_ok & np.all(np.isfinite(coef), axis=1) & (np.max(lev, axis=1) < 1 - 1e-9) & np.isfinite(cv)
    return BatchFit(coef, fitted, cv, rss, rel_rss, valid)
