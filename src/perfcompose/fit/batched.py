"""The multi-parameter PMNF search, of one series or of many measured at the same points, done once
for all of them: their repetitions aggregated in one NumPy call, candidate factors voted on the
lines of all series at once (lines of points along one parameter, the others fixed, where a
parameter's candidate factors are voted on and which decide whether it can be modelled at all),
hypotheses fitted in one batch. Every row is computed as it is for the series alone, so the models
are the ones :class:`~perfcompose.fit.pmnf.PMNFFitter` finds for each series alone."""
from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import numpy as np

from perfcompose.choices import AGGREGATE_CHOICES
from perfcompose.data.experiment import Series
from perfcompose.fit.hypotheses import Factor, factor_values, fit_batch, fit_batch_chunked, gram_fits, split_batch
from perfcompose.fit.noise import aggregate_noise, constant_slack, intercept_slack, point_weights, relative_variances
from perfcompose.fit.result import Group, Hypothesis, Progress

if TYPE_CHECKING:
    from perfcompose.fit.pmnf import PMNFFitter

__all__ = ["aggregate_many", "multi_groups_many", "batchable", "combination_templates", "TemplateHypotheses",
           "distinct", "line_layout", "diagonal_lead"]

Layout = list[tuple[np.ndarray, np.ndarray]]


def distinct(v: np.ndarray) -> int:
    """The number of distinct values of a few coordinates (a set is faster than np.unique there)."""
    return len(set(v.tolist()))


def line_layout(X: np.ndarray, k: int) -> Layout:
    """The lines along parameter ``k`` (every other parameter fixed, at least 3 distinct values of
    ``k``) grouped by their coordinates: per group the (L, rows) point indices in increasing order
    of ``k`` and the coordinates of ``k`` there (rows). It depends only on the coordinates, which
    repeat from series to series, so it is cached."""
    return _layout(X.shape, X.dtype.str, X.tobytes(), k)


@functools.lru_cache(maxsize=64)
def _layout(shape: tuple[int, ...], dtype: str, data: bytes, k: int) -> Layout:
    X = np.frombuffer(data, dtype=dtype).reshape(shape)
    _, inverse = np.unique(np.delete(X, k, axis=1), axis=0, return_inverse=True)
    inverse = inverse.ravel()
    by_x: dict[bytes, list[np.ndarray]] = {}
    for g in range(inverse.max() + 1):
        idx = np.flatnonzero(inverse == g)
        if len(np.unique(X[idx, k])) >= 3:
            order = idx[np.argsort(X[idx, k], kind="stable")]
            by_x.setdefault(X[order, k].tobytes(), []).append(order)
    return [(np.stack(same), X[same[0], k]) for same in by_x.values()]


def diagonal_lead(X: np.ndarray) -> int | None:
    """The first parameter with at least 3 distinct values that determines every other one
    (points on a diagonal), or None."""
    for k in range(X.shape[1]):
        keys, inverse = np.unique(X[:, k], return_inverse=True)
        if len(keys) < 3:
            continue
        inverse = inverse.ravel()
        if all(len(np.unique(X[inverse == g], axis=0)) == 1 for g in range(len(keys))):
            return k
    return None


# Several parameters: the product of the per-parameter candidate list lengths (absent included)
# that the additive/multiplicative search may combine; beyond it fewer candidates per parameter
# are kept (4 parameters: 2 each), since the number of hypotheses grows as that product squared.
MAX_COMBINATIONS = 125
# Several parameters, many points: when hypotheses times points exceed SCREEN_CELLS, every
# hypothesis is first scored from the Gram matrix of the columns (cost independent of the
# number of points) and only the SCREEN_KEEP best are fitted exactly and ranked.
SCREEN_CELLS = 1 << 21
SCREEN_KEEP = 256


def candidates_within(count: int, d: int, limit: int) -> int:
    """The most candidates per parameter (at most ``count``, at least 1) whose combinations over
    ``d`` parameters, each also absent, stay within ``limit``."""
    while count > 1 and (count + 1) ** d > limit:
        count -= 1
    return count


@functools.lru_cache(maxsize=64)
def combination_templates(sizes: tuple[int, ...], max_terms: int = 3
                           ) -> tuple[list[tuple[tuple[int, int], ...]], dict[int, np.ndarray]]:
    """Every additive/multiplicative hypothesis over per-parameter candidate lists of ``sizes``
    (candidate 0: absent): the column keys (products of one candidate per parameter of a subset)
    and, per number of terms, the hypotheses as rows of column indices."""
    d = len(sizes)
    subsets = [s for r in range(1, d + 1) for s in itertools.combinations(range(d), r)]
    key_index: dict[tuple[tuple[int, int], ...], int] = {}
    found: dict[int, set[tuple[int, ...]]] = {}
    for choice in itertools.product(*[range(n) for n in sizes]):
        active = {k for k in range(d) if choice[k] != 0}
        usable = [sub for sub in subsets if active.issuperset(sub)]
        cols = [key_index.setdefault(tuple((k, choice[k]) for k in sub), len(key_index)) for sub in usable]
        for r in range(0, min(len(usable), max_terms) + 1):
            for combo in itertools.combinations(range(len(usable)), r):
                if {k for c in combo for k in usable[c]} == active:
                    found.setdefault(r, set()).add(tuple(sorted(cols[c] for c in combo)))
    keys = sorted(key_index, key=key_index.__getitem__)
    by_size = {r: np.array(sorted(h), dtype=int).reshape(len(h), r) for r, h in sorted(found.items())}
    return keys, by_size


def key_columns(keys: list[tuple[tuple[int, int], ...]], values: list[np.ndarray]) -> np.ndarray:
    """The values of every column key: the product over its (parameter k, candidate ci) of
    ``values[k][..., ci - 1, :]`` (each parameter's candidates on the last axis but one, as the keys are)."""
    return np.stack([functools.reduce(np.multiply, [values[k][..., ci - 1, :] for k, ci in key]) for key in keys],
                    axis=-2)


class TemplateHypotheses:
    """The hypotheses of one template group, materialised on demand; ``layout`` (the column keys of
    each row of ``index``, see :func:`template_layout`) may be given where many groups share it."""

    def __init__(self, keys: list, index: np.ndarray, per_param: list[list[Factor | None]],
                 layout: list[tuple[tuple[tuple[int, int], ...], ...]] | None = None):
        self.keys, self.index, self.per_param = keys, index, per_param
        self.layout = layout

    def __len__(self) -> int:
        return len(self.index)

    def __getitem__(self, h: int) -> Hypothesis:
        pp = self.per_param
        if self.layout is not None:
            # a column's candidates are never candidate 0 (absent, None)
            return cast(Hypothesis, tuple(tuple((k, pp[k][ci]) for k, ci in key) for key in self.layout[h]))
        return tuple(tuple((k, pp[k][ci]) for k, ci in self.keys[c]) for c in self.index[h])


@functools.lru_cache(maxsize=64)
def template_layout(sizes: tuple[int, ...], r: int) -> list[tuple[tuple[tuple[int, int], ...], ...]]:
    """Per hypothesis of ``r`` terms of :func:`combination_templates` (``sizes``), the keys of its columns."""
    keys, by_size = combination_templates(sizes)
    return [tuple(keys[c] for c in row) for row in by_size[r].tolist()]


# rows (series x hypotheses) fitted in one NumPy batch: large enough to amortise the calls,
# small enough to stay in the caches
BATCH_ROWS = 1 << 14
# values beyond which the mean and median of repetitions are computed on scaled values
# (perfcompose.variation); such series are aggregated one by one
_LARGE = 1e150


class Aggregated(NamedTuple):
    """The aggregated values (S, points), the relative noise (S,) and the points' weights beside it
    (S, points; :func:`~perfcompose.fit.noise.point_weights`) of S series; ``done`` marks the series
    aggregated here (the others need the fitter's own per-series path)."""

    y: np.ndarray
    sigma: np.ndarray
    done: np.ndarray
    h: np.ndarray


def aggregate_many(fitter: PMNFFitter, series: Sequence[Series]) -> Aggregated:
    """What :func:`~perfcompose.fit.noise.aggregated` gives for each series' repetitions, for all series at once where
    every point has the same number of repetitions (the others are marked not done)."""
    S, n = len(series), len(series[0].points)
    y, sigma, done, h = np.zeros((S, n)), np.zeros(S), np.zeros(S, dtype=bool), np.ones((S, n))
    if n == 0:
        return Aggregated(y, sigma, done, h)
    how = fitter.aggregate
    if how not in AGGREGATE_CHOICES:
        return Aggregated(y, sigma, done, h)
    by_reps: dict[int, list[int]] = {}
    arrays: dict[int, np.ndarray] = {}
    for k, s in enumerate(series):
        a = s.repetitions()
        if a is not None and a.shape[0] == n:
            by_reps.setdefault(a.shape[1], []).append(k)
            arrays[k] = a
    for reps, same in by_reps.items():
        if reps == 0:
            continue
        V = np.stack([arrays[k] for k in same])   # (S', n, reps)
        ok = np.all(np.isfinite(V) & (np.abs(V) <= _LARGE), axis=(1, 2))
        with np.errstate(invalid="ignore", divide="ignore"):
            agg = getattr(np, how)(V, axis=-1)   # median, mean, min or max, as perfcompose.variation
            if reps >= 2:
                good = np.mean(V, axis=-1) > 0
                ok &= np.all(good, axis=1) | ~np.any(good, axis=1)
                rel_mean = np.mean(relative_variances(V), axis=1)
                h[same] = point_weights(V)
        idx = np.asarray(same)
        y[idx] = agg
        for j, k in enumerate(same):
            if not ok[j]:
                continue
            if reps >= 2 and good[j, 0]:
                sigma[k] = aggregate_noise(float(rel_mean[j]), float(reps), how)
            done[k] = True
    return Aggregated(y, sigma, done, h)


def batchable(fitter: PMNFFitter, X: np.ndarray) -> bool:
    """Whether the hypotheses of series at coordinates ``X`` can be fitted here: several
    parameters, each with lines of points, and few enough hypotheses times points that no
    screening runs."""
    d = X.shape[1]
    if d < 2 or not all(line_layout(X, k) for k in range(d)):
        return False
    count = candidates_within(fitter.candidates_per_parameter, d, MAX_COMBINATIONS)
    _, by_size = combination_templates((count + 1,) * d)
    return sum(len(v) for v in by_size.values()) * (len(X) + 1) <= SCREEN_CELLS


def _beyond_reach(fitter: PMNFFitter, fitted: list[tuple[Group, int]], sigma: np.ndarray, terms: int) -> np.ndarray:
    """Per series, whether hypotheses of ``terms`` or more terms may matter: with measured noise one
    scores at least the price of its terms, so once the best score so far lies more than
    ``plausible`` below that price, none of them can."""
    best = np.min(np.stack([g.scores.reshape(len(sigma), h).min(axis=1) for g, h in fitted]), axis=0)
    return ~(sigma > 0) | ~(best + fitter.policy.plausible < fitter.policy.penalty(terms))


def multi_groups_many(fitter: PMNFFitter, X: np.ndarray, Y: np.ndarray, sigma: np.ndarray,
                      scattered: bool = False, prune: bool = False, lined: Sequence[bool] | None = None,
                      progress: Progress | None = None, weights: np.ndarray | None = None) -> list[list[Group]]:
    """For every row of ``Y`` (S, points) with noise ``sigma`` (S,), the additive and multiplicative
    combinations of every parameter's candidate factors, fitted and scored: the groups of the
    multi-parameter search. ``lined`` says which parameters have lines of points (the others are
    left out; default all). With ``prune``, hypotheses that cannot matter (:func:`_beyond_reach`)
    are left out: the choice is the same, its runners-up are not. One series (S = 1) of many points
    is screened first (:func:`_screened`), and ``progress`` hears of its batches. ``weights`` (S, points):
    the points' weights beside the noise (:func:`~perfcompose.fit.noise.point_weights`; None: alike)."""
    w, sc = fitter._weights(Y, X, weights)
    pad = np.zeros((len(Y), 1))
    fits = np.hstack([Y, pad]), np.hstack([w, pad]), np.hstack([sc, pad + 1.0])   # and the far row, only predicted
    lined = [True] * X.shape[1] if lined is None else lined
    out: list[list[Group]] = [[] for _ in range(len(Y))]
    live = np.arange(len(Y))   # the series whose constant does not settle their choice
    if prune and len(Y):
        # the constant as the search fits it (a row computed alone is the same in any batch)
        constant = fitter._scored(None, fit_batch([np.ones((1, len(X) + 1))], *fits), 0, sigma)
        live = np.flatnonzero(_beyond_reach(fitter, [(constant, 1)], sigma, 1))
        cv = constant.batch.cv_of(np.arange(len(Y)))
        for s in np.flatnonzero(~np.isin(np.arange(len(Y)), live)).tolist():
            part = split_batch(constant.batch, s, s + 1, 1)
            part.__dict__["cv_rows"] = cv[s:s + 1]
            out[s] = [Group([()], part, constant.ok[s:s + 1], constant.scores[s:s + 1])]
        if not len(live):
            return out
    Y, sigma, at = Y[live], sigma[live], live.tolist()
    weights = None if weights is None else weights[live]
    yy, w, sc = (f[live] for f in fits)
    S, d = len(Y), X.shape[1]
    count = candidates_within(fitter.candidates_per_parameter, sum(lined), MAX_COMBINATIONS)
    rows = np.vstack([X, (X.max(axis=0) * fitter.policy.horizon)[None, :]])
    R = len(rows)
    # per parameter: each series' candidate factors, as rows of a table of factor values
    tables, chosen, factor_lists = [], [], []
    for k in range(d):
        neg = fitter._negative(X, Y, k) if lined[k] else np.zeros(S, dtype=bool)
        flags = [flag for flag in (False, True) if lined[k] and np.any(neg == flag)]
        # fewer candidates where the exponent sets allow fewer factors
        per = min([count] + [len(fitter._basis_with(X[:, k], flag).factors) for flag in flags]) if lined[k] else 0
        idx = np.zeros((S, per), dtype=int)
        table: list[np.ndarray] = [np.zeros((0, R))]
        names: list[Factor] = []
        for flag in flags:
            mask = neg == flag
            basis = fitter._basis_with(X[:, k], flag)
            idx[mask] = fitter._candidates(X, Y[mask], sigma[mask], k, per, flag, scattered,
                                           None if weights is None else weights[mask]) + len(names)
            table.append(factor_values(rows[:, k], basis.exponent_arrays).T)
            names.extend(basis.factors)
        tables.append(np.vstack(table))
        chosen.append(idx)
        factor_lists.append(names)
    shape = tuple(c.shape[1] + 1 for c in chosen)
    keys, by_size = combination_templates(shape)
    slack = np.full(S, np.inf) if scattered else constant_slack(Y, sigma)
    n = len(X)
    sizes = list(by_size)
    H = sum(len(by_size[r]) for r in sizes)
    step = max(1, BATCH_ROWS // H)
    screen = S == 1 and sigma[0] > 0 and H * R > SCREEN_CELLS
    # a hypothesis of r terms is fitted on its own r + 1 columns: the same numbers as in a batch of
    # every size, where its absent columns are zero and change nothing
    layouts = {r: None if screen else template_layout(shape, r) for r in sizes}
    chosen_lists = [c.tolist() for c in chosen]
    for a in range(0, S, step):
        b = min(a + step, S)
        cs = b - a
        columns = key_columns(keys, [tables[k][chosen[k][a:b]] for k in range(d)])
        if screen:
            by_size = _screened(fitter, columns[0], by_size, yy[0], w[0], sc[0], float(sigma[0]), float(slack[0]))
        fit = np.arange(cs)
        done = 0
        # per size: the scored rows of the block's series fitted, series-major, and where each
        # series' rows start (-1: not fitted)
        block: dict[int, Group] = {}
        starts: dict[int, list[int]] = {}
        for r in sizes:
            if prune and r == 2:
                reach = _beyond_reach(fitter, [(block[q], len(by_size[q])) for q in (0, 1)], sigma[a:b], 2)
                fit = np.flatnonzero(reach)
            hr = len(by_size[r])
            where = np.full(cs, -1)
            where[fit] = np.arange(len(fit)) * hr
            starts[r] = where.tolist()
            if not len(fit) or not hr:
                continue
            series = a + fit
            stacked = [np.ones((1, R))] + [columns[fit][:, by_size[r][:, t]].reshape(len(fit) * hr, R)
                                           for t in range(r)]
            if S == 1:   # one series: its hypotheses in chunks, heard of as one sweep over all sizes
                told = None if progress is None else \
                    lambda _, k, m, done=done, hr=hr: progress(f"fitting {H} hypotheses", done + k * hr // m, H)
                batch = fit_batch_chunked(stacked, yy[0], w[0], sc[0], progress=told)
            else:
                rep = np.repeat(series, hr)
                batch = fit_batch(stacked, yy[rep], w[rep], sc[rep])
            done += hr
            if scattered and r:
                slack_r = intercept_slack(columns[fit][:, :, :n], Y[series], sigma[series], by_size[r]).reshape(-1)
            else:
                slack_r = np.repeat(slack[series], hr)
            block[r] = fitter._scored(None, batch, r, np.repeat(sigma[series], hr), slack_r)
        # cv_of of any rows, computed for the block's rows at once (gathered, as cv_of gathers)
        cv_rows = {r: g.batch.cv_of(np.arange(len(g.scores))) for r, g in block.items()}
        for s in range(a, b):
            per_param = [[None, *(factor_lists[k][i] for i in chosen_lists[k][s])] for k in range(d)]
            for r, g in block.items():
                lo = starts[r][s - a]
                if lo < 0:
                    continue
                hi = lo + len(by_size[r])
                part = split_batch(g.batch, lo, hi, r + 1)
                part.__dict__["cv_rows"] = cv_rows[r][lo:hi]
                hyps: Any = TemplateHypotheses(keys, by_size[r], per_param, layouts[r])
                out[at[s]].append(Group(hyps, part, g.ok[lo:hi], g.scores[lo:hi]))
    return out


def _screened(fitter: PMNFFitter, columns: np.ndarray, by_size: dict[int, np.ndarray], y: np.ndarray,
              w: np.ndarray, sc: np.ndarray, sigma: float, slack: float) -> dict[int, np.ndarray]:
    """The hypotheses of every size among the SCREEN_KEEP best by their Gram-matrix scores
    (the same chi-square, price per term and sign rules as the fitter's scores)."""
    scores = {}
    for r, index in by_size.items():
        coef, rss = gram_fits(columns, index, y, w, sc)
        ok = np.all(np.isfinite(coef), axis=1)
        if fitter.nonnegative and r:
            ok &= np.all(coef[:, 1:] > 0, axis=1) & (coef[:, 0] >= -slack)
        scores[r] = np.where(ok, rss / sigma ** 2 + fitter.policy.penalty(r), np.inf)
    every = np.concatenate(list(scores.values()))
    limit = np.partition(every, SCREEN_KEEP - 1)[SCREEN_KEEP - 1] if len(every) > SCREEN_KEEP else np.inf
    return {r: index[(scores[r] <= limit) | (r == 0)] for r, index in by_size.items()}
