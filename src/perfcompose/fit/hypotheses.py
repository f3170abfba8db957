"""Batched weighted least squares with leave-one-out cross-validation over many hypotheses: their
design matrices over the same points stacked, columns scaled to unit norm (steep terms keep
their digits), leave-one-out residuals from the hat matrix."""
from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np

from perfcompose.errors import FitError

Factor = tuple[Fraction, Fraction]  # (i, j) of x^i * log2(x)^j

DEFAULT_I: tuple[Fraction, ...] = tuple(Fraction(s) for s in (
    "0", "1/4", "1/3", "1/2", "2/3", "3/4", "1", "5/4", "4/3", "3/2", "5/3", "7/4", "2", "9/4", "7/3",
    "5/2", "8/3", "11/4", "3"))
DEFAULT_J: tuple[Fraction, ...] = (Fraction(0), Fraction(1), Fraction(2))


def exponent_set(values: str | Sequence[Any], name: str) -> tuple[Fraction, ...]:
    """Exponents given as numbers, text ("3/2") or one comma-separated text ("0, 1/2, 1"),
    checked: each a non-negative rational of at most 10 (the sign of a strong-scaling term is
    the fitter's to add). ``name`` names the option in the error."""
    items = values.split(",") if isinstance(values, str) else list(values)
    out: list[Fraction] = []
    for item in items:
        try:
            e = Fraction(item.strip()) if isinstance(item, str) else Fraction(item)
        except (ValueError, TypeError, ZeroDivisionError, OverflowError):
            raise FitError(f"{name}: {str(item).strip()!r} is not an exponent; give fractions such as 0, 1/2, "
                           "1, 3/2 separated by commas") from None
        if not 0 <= e <= 10:
            raise FitError(f"{name}: {e} is outside 0..10; negative powers come from the strong-scaling "
                           "option (allow_negative_exponents)")
        out.append(e)
    if not out:
        raise FitError(f"{name}: no exponents given")
    return tuple(sorted(set(out)))


def factors(exponents_i: Sequence[Fraction] = DEFAULT_I,
            exponents_j: Sequence[Fraction] = DEFAULT_J) -> list[Factor]:
    """All ``x^i * log2(x)^j`` but the constant, in increasing asymptotic order."""
    return sorted((Fraction(i), Fraction(j)) for i in exponents_i for j in exponents_j if i or j)


def negative_factors(positive: Sequence[Factor], logs: bool = True) -> list[Factor]:
    """The factors ``x^-i * log2(x)^-j`` of the given positive ones (strong scaling, where a
    cost falls as the parameter grows); without ``logs`` only the pure powers ``x^-i`` (negative
    powers of log2(x) need every coordinate above 1)."""
    return sorted({(-i, -j) for i, j in positive if logs or j == 0})


def factor_values(x: np.ndarray, fs: Sequence[Factor] | tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Matrix (len(x), len(fs)) of ``x^i * log2(x)^j``; ``fs`` may be the exponent arrays (i, j)."""
    x = np.asarray(x, dtype=float)[:, None]
    arrays = isinstance(fs, tuple) and len(fs) == 2 and isinstance(fs[0], np.ndarray)
    i, j = fs if arrays else np.array(fs, dtype=float).reshape(-1, 2).T
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):   # inf: a fit marked invalid
        return x ** i * np.log2(x) ** j


@dataclass(frozen=True)
class BatchFit:
    """Coefficients and quality of H hypotheses fitted to the same n points."""

    coef: np.ndarray        # (H, k) in the original (unscaled) units
    predicted: np.ndarray   # (H, rows with zero weight): values at the points only predicted
    resid: np.ndarray       # (H, n) relative residuals at the fitted points
    lev: np.ndarray         # (H, n) leverages (diagonal of the hat matrix)
    rel_rss: np.ndarray     # (H,) sum of squared relative residuals
    valid: np.ndarray       # (H,) finite, well-posed fits

    @cached_property
    def cv(self) -> np.ndarray:
        """(H,) mean absolute leave-one-out relative error, from the hat matrix without refitting."""
        return self.cv_of(slice(None))

    def cv_of(self, h: Any) -> Any:
        if isinstance(h, (int, np.integer)):  # one hypothesis: a few points, plain floats are faster
            terms = [abs(r / (1.0 - v)) if v < 1.0 else math.inf
                     for r, v in zip(self.resid[h].tolist(), self.lev[h].tolist())]
            return sum(terms) / len(terms)
        rows = self.__dict__.get("cv_rows")   # the rows of many hypotheses, computed at once before
        if rows is not None and not isinstance(h, slice):
            return rows[h]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.mean(np.abs(self.resid[h] / (1.0 - self.lev[h])), axis=-1)


def fit_batch(cols: Sequence[np.ndarray], y: np.ndarray, weights: np.ndarray,
              scale: np.ndarray | None = None, present: np.ndarray | None = None) -> BatchFit:
    """Fit ``y ~ sum_c coef[:, c] * cols[c]`` for H hypotheses at once by weighted least squares.

    ``cols``: k arrays (H, rows) or (1, rows); ``weights`` (rows,): 1/y fits relative errors, 0 marks
    a row only predicted. Modified Gram-Schmidt vectorised over the hypotheses, orthogonalised
    twice, on unit-norm columns (which keep steep terms that Extra-P's normal equations lose).
    ``scale`` (rows,) turns weighted residuals into the relative ones ``cv`` and ``rel_rss`` report;
    ``present`` (H, k) marks each hypothesis' columns (an absent one gets coefficient 0). ``y``,
    ``weights`` and ``scale`` may hold a row per hypothesis (many series at the same points)."""
    k = len(cols)
    H = max(max(c.shape[0] for c in cols), 1 if weights.ndim == 1 else weights.shape[0])
    fit_rows = weights > 0 if weights.ndim == 1 else weights[0] > 0
    n = int(fit_rows.sum())
    yw = np.where(fit_rows, y, 0.0) * weights
    V = [c * weights for c in cols]
    norms = [np.sqrt(np.sum(v * v, axis=1)) for v in V]
    norms = [np.where(nv == 0, 1.0, nv) for nv in norms]
    V = [v / nv[:, None] for v, nv in zip(V, norms)]
    Q: list[np.ndarray] = []
    R: list[list[np.ndarray]] = [[np.zeros(1)] * k for _ in range(k)]  # upper triangle filled below
    rank_ok = np.ones(H, dtype=bool)
    for c in range(k):
        v = V[c]
        acc = [np.zeros(1)] * c
        for _ in range(2):  # orthogonalise twice: one pass loses digits on near-collinear terms
            for b in range(c):
                r = np.sum(Q[b] * v, axis=1)
                acc[b] = acc[b] + r
                v = v - r[:, None] * Q[b]
        for b in range(c):
            R[b][c] = acc[b]
        r = np.sqrt(np.sum(v * v, axis=1))
        bad = r < 1e-10
        if present is not None:
            gone = ~present[:, c]
            v = np.where(gone[:, None], 0.0, v)
            bad = bad & ~gone
            r = np.where(gone, 1.0, r)
        rank_ok = rank_ok & ~bad
        R[c][c] = np.where(bad, 1.0, r)
        Q.append(v / R[c][c][:, None])
    qty = [np.sum(q * yw, axis=1) for q in Q]
    cs: list[np.ndarray] = [np.zeros(1)] * k
    for c in range(k - 1, -1, -1):
        acc_c = qty[c]
        for j in range(c + 1, k):
            acc_c = acc_c - R[c][j] * cs[j]
        cs[c] = acc_c / R[c][c]
    coef = np.stack([np.broadcast_to(cs[c] / norms[c], (H,)) for c in range(k)], axis=1)
    far = ~fit_rows
    predicted = np.broadcast_to(sum(coef[:, c:c + 1] * cols[c][:, far] for c in range(k)), (H, int(far.sum())))
    proj = sum(qty[c][:, None] * Q[c] for c in range(k))
    resid_w = (yw - proj)[:, fit_rows]
    lev = np.broadcast_to(sum(q * q for q in Q)[:, fit_rows], resid_w.shape)
    kk = k if present is None else present.sum(axis=1)
    return _finish(coef, predicted, resid_w, lev, rank_ok, n, kk,
                   None if scale is None else scale[..., fit_rows])


def fit_batch_chunked(cols: Sequence[np.ndarray], y: np.ndarray, weights: np.ndarray,
                      scale: np.ndarray | None = None, present: np.ndarray | None = None,
                      cells: int = 1 << 20, progress: Callable[[str, int, int], None] | None = None) -> BatchFit:
    """:func:`fit_batch` over chunks of hypotheses of about ``cells`` values per column, so that
    hundreds of points times thousands of hypotheses stay in the caches instead of filling the
    memory; ``progress(label, done, total)`` hears of every chunk."""
    H = max(c.shape[0] for c in cols)
    rows = cols[0].shape[1]
    step = max(1, cells // max(rows, 1))
    if H <= step:
        return fit_batch(cols, y, weights, scale, present)
    parts = []
    starts = range(0, H, step)
    for done, a in enumerate(starts):
        if progress is not None:
            progress(f"fitting {H} hypotheses", done, len(starts))
        b = min(a + step, H)
        parts.append(fit_batch([c if c.shape[0] == 1 else c[a:b] for c in cols], y, weights, scale,
                               None if present is None else present[a:b]))
    if progress is not None:
        progress(f"fitting {H} hypotheses", len(starts), len(starts))
    return BatchFit(*(np.concatenate([getattr(p, f) for p in parts]) for f in
                      ("coef", "predicted", "resid", "lev", "rel_rss", "valid")))


def gram_fits(cols: np.ndarray, index: np.ndarray, y: np.ndarray, weights: np.ndarray,
              scale: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Coefficients (H, 1 + r) and relative RSS (H,) of ``y ~ c0 + sum_t c_t * cols[index[:, t]]`` per
    row of ``index`` (H, r), from the Gram matrix of all columns (cost independent of the number of
    points, but squaring the condition number costs digits: it screens, it does not decide)."""
    fit = weights > 0
    A = np.vstack([np.ones(int(fit.sum())), cols[:, fit]]) * weights[fit]
    norms = np.sqrt(np.einsum("cr,cr->c", A, A))
    norms = np.where(norms > 0, norms, 1.0)
    A = A / norms[:, None]
    yw = y[fit] * weights[fit]
    s = np.ones(len(yw)) if scale is None else scale[fit]
    As, ys = A * s, yw * s
    G, b = A @ A.T, A @ yw
    Gs, bs = As @ As.T, As @ ys
    idx = np.hstack([np.zeros((len(index), 1), dtype=int), np.asarray(index, dtype=int).reshape(len(index), -1) + 1])
    k = idx.shape[1]
    M = G[idx[:, :, None], idx[:, None, :]] + 1e-12 * np.eye(k)
    c = np.linalg.solve(M, b[idx][..., None])[..., 0]
    Ms = Gs[idx[:, :, None], idx[:, None, :]]
    rss = float(ys @ ys) - 2 * np.einsum("hk,hk->h", c, bs[idx]) + np.einsum("hk,hkl,hl->h", c, Ms, c)
    return c / norms[idx], np.maximum(rss, 0.0)


def fit_one_and_two_terms(F: np.ndarray, y: np.ndarray, weights: np.ndarray, pa: Any, pb: Any, scale: np.ndarray | None,
                          need_pairs: Callable[[BatchFit, BatchFit], bool]) -> tuple[BatchFit, BatchFit, Any]:
    """The constant, ``c0 + c1*F[a]`` for every factor a and ``c0 + c1*F[a] + c2*F[b]`` for every pair
    (a, b), as :func:`fit_batch` fits them, each factor orthonormalised once and shared by its pairs.
    ``F`` is (factors, rows); ``need_pairs`` hears of the constant and the one-term fits, and the
    pairs (none without ``pa`` and ``pb``) are skipped where it says so."""
    fit_rows = weights > 0
    far = ~fit_rows
    n = int(fit_rows.sum())
    yw = np.where(fit_rows, y, 0.0) * weights
    Fw = F * weights
    n0 = float(np.sqrt(weights @ weights))
    q0 = weights / n0
    r0 = Fw @ q0
    P = Fw - r0[:, None] * q0
    r0b = P @ q0
    P -= r0b[:, None] * q0
    r0 = r0 + r0b
    fnorm = np.sqrt(np.einsum("mr,mr->m", Fw, Fw))
    na = np.sqrt(np.einsum("mr,mr->m", P, P))
    ok1 = na > 1e-10 * np.maximum(fnorm, 1e-300)
    na_safe = np.where(ok1, na, 1.0)
    Qa = P / na_safe[:, None]
    t0 = float(q0 @ yw)
    sc = None if scale is None else scale[fit_rows]
    res0 = yw - t0 * q0
    const = _finish(np.array([[t0 / n0]]), np.full((1, int(far.sum())), t0 / n0), res0[None, fit_rows],
                    (q0 * q0)[None, fit_rows], np.ones(1, dtype=bool), n, 1, sc)
    ya = Qa @ yw
    res1 = res0 - ya[:, None] * Qa
    lev1 = q0 * q0 + Qa * Qa
    c1 = ya / na_safe
    c0_1 = (t0 - r0 * c1) / n0
    coef1 = np.stack([c0_1, c1], axis=1)
    pred1 = c0_1[:, None] + c1[:, None] * F[:, far]
    one = _finish(coef1, pred1, res1[:, fit_rows], lev1[:, fit_rows], ok1, n, 2, sc)
    if not need_pairs(const, one) or pa is None or pb is None:
        return const, one, None

    Qa_a = Qa[pa]
    g = (Qa @ P.T)[pa, pb]
    V = P[pb] - g[:, None] * Qa_a
    g2 = np.einsum("hr,hr->h", Qa_a, V)
    V -= g2[:, None] * Qa_a
    g = g + g2
    nb = np.sqrt(np.einsum("hr,hr->h", V, V))
    ok2 = ok1[pa] & ok1[pb] & (nb > 1e-10 * np.maximum(fnorm[pb], 1e-300))
    nb_safe = np.where(ok2, nb, 1.0)
    Qb = V / nb_safe[:, None]
    yb = Qb @ yw
    res2 = res1[pa] - yb[:, None] * Qb
    lev2 = lev1[pa] + Qb * Qb
    cb = yb / nb_safe
    ca = (ya[pa] - g * cb) / na_safe[pa]
    c0_2 = (t0 - r0[pa] * ca - r0[pb] * cb) / n0
    coef2 = np.stack([c0_2, ca, cb], axis=1)
    Ff = F[:, far]
    pred2 = c0_2[:, None] + ca[:, None] * Ff[pa] + cb[:, None] * Ff[pb]
    two = _finish(coef2, pred2, res2[:, fit_rows], lev2[:, fit_rows], ok2, n, 3, sc)
    return const, one, two


def rows_all(a: np.ndarray) -> np.ndarray:
    """``np.all(a, axis=1)`` of a 2-D array of a few columns, a column at a time."""
    return functools.reduce(np.logical_and, a.T, np.ones(len(a), dtype=bool))


def _finish(coef: np.ndarray, predicted: np.ndarray, resid_w: np.ndarray, lev: np.ndarray,
            rank_ok: np.ndarray, n: int, k: Any, scale: np.ndarray | None = None) -> BatchFit:
    if scale is not None:
        resid_w = resid_w * scale
    rel_rss = np.einsum("hr,hr->h", resid_w, resid_w)
    # the largest leverage of each row a column at a time (np.max over a short last axis is several times slower)
    valid = (rank_ok & rows_all(np.isfinite(coef)) & (functools.reduce(np.maximum, lev.T) < 1 - 1e-9)
             & np.isfinite(rel_rss) & (k + 1 <= n))
    return BatchFit(coef, predicted, resid_w, lev, rel_rss, valid)


def split_batch(b: BatchFit, start: int, stop: int, k: int) -> BatchFit:
    """Hypotheses ``start:stop`` of a batch, keeping their first ``k`` coefficients."""
    return BatchFit(b.coef[start:stop, :k], *(a[start:stop] for a in (b.predicted, b.resid, b.lev, b.rel_rss, b.valid)))


def fit_one_term_lines(F: np.ndarray, Y: np.ndarray, W: np.ndarray, S: np.ndarray | None = None
                       ) -> tuple[BatchFit, BatchFit]:
    """The constant and every ``c0 + c1*F[a]`` on L lines at once: ``F`` (factors, rows), ``Y`` and
    ``W`` (L, rows); the constant fits (L, 1) and the one-term fits line-major (L * factors, 2)."""
    L, rows = Y.shape
    m = F.shape[0]
    n = int((W[0] > 0).sum())
    YW = Y * W                                             # (L, rows)
    n0 = np.sqrt(np.einsum("lr,lr->l", W, W))              # (L,)
    q0 = W / n0[:, None]                                   # (L, rows)
    t0 = np.einsum("lr,lr->l", q0, YW)                     # (L,)
    res0 = YW - t0[:, None] * q0
    lev0 = q0 * q0
    const = _finish((t0 / n0)[:, None], np.zeros((L, 0)), res0, lev0, np.ones(L, bool), n, 1, S)
    Fw = F[None, :, :] * W[:, None, :]                     # (L, m, rows)
    r0 = np.einsum("lmr,lr->lm", Fw, q0)
    P = Fw - r0[..., None] * q0[:, None, :]
    r0b = np.einsum("lmr,lr->lm", P, q0)
    P -= r0b[..., None] * q0[:, None, :]
    r0 = r0 + r0b
    fnorm = np.sqrt(np.einsum("lmr,lmr->lm", Fw, Fw))
    na = np.sqrt(np.einsum("lmr,lmr->lm", P, P))
    ok = na > 1e-10 * np.maximum(fnorm, 1e-300)
    na_safe = np.where(ok, na, 1.0)
    Qa = P / na_safe[..., None]
    ya = np.einsum("lmr,lr->lm", Qa, YW)
    res1 = res0[:, None, :] - ya[..., None] * Qa
    lev1 = lev0[:, None, :] + Qa * Qa
    c1 = ya / na_safe
    c0 = (t0[:, None] - r0 * c1) / n0[:, None]
    coef = np.stack([c0.ravel(), c1.ravel()], axis=1)
    S1 = None if S is None else np.repeat(S, m, axis=0)
    one = _finish(coef, np.zeros((L * m, 0)), res1.reshape(L * m, rows), lev1.reshape(L * m, rows),
                  ok.ravel(), n, 2, S1)
    return const, one
