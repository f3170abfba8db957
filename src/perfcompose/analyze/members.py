"""The bootstrap members of many fitted call paths at once, by
:func:`perfcompose.fit.uncertainty.bootstrap`'s method: the draws are made once per shape (points
x repetitions) and shared by every series of it, and the series refitted in batches. A series
whose points hold different numbers of repetitions, or none, is exact (no members)."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np

from perfcompose.ensemble import about_model

#: members drawn for a fitted model (as :data:`perfcompose.fit.uncertainty.RESAMPLES`, without loading SymPy)
RESAMPLES = 200
#: series refitted together (their draws, series x resamples x points x repetitions, stay small)
BATCH = 256


@lru_cache(maxsize=16)
def _draws(points: int, repetitions: int, resamples: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The repetitions drawn (resamples, points, repetitions), how often each is drawn, and the signs."""
    rng = np.random.default_rng(seed)
    drawn = rng.integers(0, repetitions, size=(resamples, points, repetitions))
    counts = np.zeros((resamples, points, repetitions))
    for r in range(repetitions):
        counts += drawn[..., r:r + 1] == np.arange(repetitions)
    signs = rng.choice((-1.0, 1.0), size=(resamples, points))
    return drawn, counts / repetitions, signs


def _aggregated(reps: np.ndarray, aggregate: str, resamples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(the aggregate of each point, (series, resamples, points) of the resampled aggregates)."""
    _, points, repetitions = reps.shape
    drawn, weights, signs = _draws(points, repetitions, resamples, seed)
    if aggregate == "mean":
        resampled = np.transpose(reps, (1, 0, 2)) @ np.transpose(weights, (1, 2, 0))  # (points, series, resamples)
        return reps.mean(axis=-1), np.transpose(resampled, (1, 2, 0))
    reductions: dict[str, Callable[..., np.ndarray]] = {"median": np.median, "min": np.min, "max": np.max}
    how = reductions[aggregate]
    picked = reps[:, np.arange(points)[None, :, None], drawn]  # (series, resamples, points, repetitions)
    return how(reps, axis=-1), how(picked, axis=-1)


def _least_squares(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Per series ``s``, the least-squares solution of ``A[s] @ C = B[s]`` (a column that is all
    zero solves to 0): normal equations on columns scaled to unit norm, or a pseudo-inverse
    where those are singular."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        norms = np.linalg.norm(A, axis=1)  # (series, columns)
        empty = norms == 0
        scaled = A / np.where(empty, 1.0, norms)[:, None, :]
        gram = np.swapaxes(scaled, 1, 2) @ scaled + np.eye(A.shape[2])[None] * empty[:, :, None]
        try:
            solved = np.linalg.solve(gram, np.swapaxes(scaled, 1, 2) @ B)
        except np.linalg.LinAlgError:
            return np.linalg.pinv(A) @ B
        return solved / np.where(empty, 1.0, norms)[:, :, None]


def bootstrap_members(designs: Sequence[np.ndarray], coefficients: Sequence[np.ndarray],
                      repetitions: Sequence[np.ndarray | None], *, aggregate: str = "mean",
                      resamples: int = RESAMPLES, seed: int = 0) -> list[np.ndarray | None]:
    """Per series, the members (resamples x columns) of the fit ``coefficients`` on ``designs``
    (points x columns), refitted to resamples of its ``repetitions`` (points x repetitions)."""
    out: list[np.ndarray | None] = [None] * len(designs)
    groups: dict[tuple[int, ...], list[int]] = {}
    # models of the same terms share a design: each is checked once (the list holds them all,
    # so no two are the same object by chance)
    finite: dict[int, bool] = {}
    for k, reps in enumerate(repetitions):
        if reps is None or reps.ndim != 2 or reps.shape[1] == 0:
            continue
        design = designs[k]
        if id(design) not in finite:
            finite[id(design)] = bool(np.isfinite(design).all())
        if finite[id(design)]:
            groups.setdefault((*reps.shape, design.shape[1]), []).append(k)
    for (points, reps_count, _), ks in groups.items():
        signs = _draws(points, reps_count, resamples, seed)[2]
        every = np.stack([np.asarray(repetitions[k], dtype=float) for k in ks])
        fine = np.isfinite(every).all(axis=(1, 2))
        ks, every = [k for k, f in zip(ks, fine.tolist()) if f], every[fine]
        for start in range(0, len(ks), BATCH):
            chunk = ks[start:start + BATCH]
            reps = every[start:start + BATCH]
            center, y = _aggregated(reps, aggregate, resamples, seed)
            X = np.stack([designs[k] for k in chunk])
            coef = np.stack([np.asarray(coefficients[k], dtype=float) for k in chunk])
            fitted = (X @ coef[:, :, None])[:, :, 0]
            scale = np.where(center > 0, center, np.maximum(np.abs(center).max(axis=1, keepdims=True), 1e-300))
            y = about_model(fitted, center, y, signs)
            solved = _least_squares(X / scale[:, :, None], np.swapaxes(y / scale[:, None, :], 1, 2))
            finite = np.isfinite(solved).all(axis=(1, 2))
            members = np.swapaxes(solved, 1, 2)  # (series, resamples, columns)
            for s, k in enumerate(chunk):
                out[k] = members[s] if finite[s] else None
    return out
