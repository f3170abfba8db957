"""Fitting PMNF models ``c0 + sum c_k * prod x^i * log2(x)^j`` to measurements, as Extra-P does: of
one parameter every one- and two-term hypothesis at once; of several, per-parameter candidates
found on the lines of the point set, combined additively and multiplicatively."""
from __future__ import annotations

import copy
import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from perfcompose.choices import NEGATIVE_EXPONENTS
from perfcompose.data.experiment import AGGREGATES, Series
from perfcompose.errors import FitError
from perfcompose.fit.base import SeriesFitter
from perfcompose.fit.batched import diagonal_lead, distinct, line_layout, multi_groups_many
from perfcompose.fit.holdout import extrapolation_errors, rechoose
from perfcompose.fit.hypotheses import (
    DEFAULT_I,
    DEFAULT_J,
    BatchFit,
    Factor,
    exponent_set,
    factor_values,
    factors,
    fit_one_and_two_terms,
    fit_one_term_lines,
    negative_factors,
    rows_all,
)
from perfcompose.fit.noise import (
    aggregated,
    constant_slack,
    intercept_slack,
    point_weights_of,
    replicated,
    scatter_noise,
    with_lack_of_fit,
)
from perfcompose.fit.result import (
    Candidate,
    FitResult,
    Group,
    Hypothesis,
    Pick,
    Progress,
    fit_statistics,
    low_fit_warnings,
    predict,
)
from perfcompose.fit.selection_policy import DEFAULT_POLICY, SelectionPolicy, runners_up, select
from perfcompose.fit.trend import falls_rows, monotone
from perfcompose.fit_options import FitOptions

# the names this module has always offered, besides its own
__all__ = ["PMNFFitter", "FEW_POINTS", "Candidate", "FitResult", "Group", "Pick", "SeriesFitter", "predict",
           "replicated", "constant_slack"]

#: the most points of a series without repetitions that ``unreplicated_weight_power`` applies to
FEW_POINTS = 6


@dataclass(frozen=True)
class _Basis:
    """The factors of one parameter that hypotheses are built from, and the one-term and
    two-term hypotheses over them (one parameter)."""

    factors: tuple[Factor, ...]

    @cached_property
    def exponent_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        return (np.array([float(f[0]) for f in self.factors]), np.array([float(f[1]) for f in self.factors]))

    @cached_property
    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        return np.tril_indices(len(self.factors), -1)   # pa > pb: the first term is of higher order

    @cached_property
    def one_term(self) -> list[Hypothesis]:
        return [(((0, f),),) for f in self.factors]

    @cached_property
    def two_term(self) -> list[Hypothesis]:
        pa, pb = self.pairs
        return [(((0, self.factors[a]),), ((0, self.factors[b]),)) for a, b in zip(pa, pb)]


class PMNFFitter(SeriesFitter):
    """Fits a PMNF model per region and metric of an experiment (scikit-learn style).

    >>> from perfcompose.data import Experiment
    >>> e = Experiment.single(["x"], [((x,), (3 + 2 * x,)) for x in (4, 8, 16, 32, 64)])
    >>> PMNFFitter().fit(e).model_.to_extrap(digits=6)
    '3 + 2 * x^(1)'

    Options: ``exponents_i`` / ``exponents_j``; ``max_terms`` (1 or 2 for one parameter);
    ``aggregate`` of repetitions; ``nonnegative`` rejects negative term coefficients; ``policy``, a
    :class:`~perfcompose.fit.selection_policy.SelectionPolicy`; ``candidates_per_parameter`` factors
    per parameter for the multi-parameter search; ``weight_power``: rows weighted by y^-power (1
    fits relative errors); ``tilt``: rows further weighted by exp(tilt * (u - 1)), u the point's
    log-scale position between the smallest (0) and largest (1) coordinates, leaning toward the
    points that decide the extrapolation; ``unreplicated_weight_power``: the power for at most
    ``FEW_POINTS`` points measured once each (None: ``weight_power``; 0, least squares as Extra-P
    fits, takes LULESH's median error at the next size from 16 % to 9 %). ``__init__`` only stores
    the options; a fit checks them."""

    keep = 10  # runners-up kept in FitResult.alternatives

    def __init__(self, *, exponents_i: Sequence[Any] = DEFAULT_I, exponents_j: Sequence[Any] = DEFAULT_J,
                 max_terms: int = FitOptions.max_terms, aggregate: str = FitOptions.aggregate,
                 nonnegative: bool = True, candidates_per_parameter: int = 5, weight_power: float = 1.0,
                 tilt: float = 1.0, policy: SelectionPolicy = DEFAULT_POLICY,
                 allow_negative_exponents: bool | None = NEGATIVE_EXPONENTS[FitOptions.negative_exponents],
                 unreplicated_weight_power: float | None = 0.0):
        self.exponents_i = exponents_i
        self.exponents_j = exponents_j
        self.max_terms = max_terms
        self.aggregate = aggregate
        self.nonnegative = nonnegative
        self.candidates_per_parameter = candidates_per_parameter
        self.weight_power = weight_power
        self.tilt = tilt
        self.allow_negative_exponents = allow_negative_exponents
        self.policy = policy
        self.unreplicated_weight_power = unreplicated_weight_power

    def _validate(self) -> None:
        """Check the parameters before a fit (``__init__`` only stores them)."""
        if self.aggregate not in AGGREGATES:
            raise FitError(f"unknown aggregation {self.aggregate!r}; choose one of {', '.join(AGGREGATES)}")
        if self.max_terms not in (1, 2):
            raise FitError("max_terms must be 1 or 2")
        if not isinstance(self.policy, SelectionPolicy):
            raise FitError(f"policy {self.policy!r}: a SelectionPolicy")
        self.policy.validate()
        self.factors  # noqa: B018  (the exponent sets must allow a term)

    @cached_property
    def factors(self) -> list[Factor]:
        """The PMNF factors (i, j) the exponent sets allow (exponents may be given as text, e.g. "1/3",
        or as one comma-separated text)."""
        found = factors(exponent_set(self.exponents_i, "exponents_i"), exponent_set(self.exponents_j, "exponents_j"))
        if not found:
            raise FitError("the exponent sets allow no term besides the constant; give a non-zero exponent")
        return found

    def _basis_with(self, x: np.ndarray, negative: Any) -> _Basis:
        """The factors for a parameter with coordinates ``x``, with the negative exponents or without
        (negative powers of log2 need every coordinate above 1)."""
        logs = bool(np.min(x) > 1) if negative else None
        bases = self.__dict__.setdefault("_bases", {})
        if logs not in bases:
            extra = set(negative_factors(self.factors, logs)) if logs is not None else set()
            bases[logs] = _Basis(tuple(sorted(set(self.factors) | extra)))
        return bases[logs]

    def _negative(self, X: np.ndarray, Y: np.ndarray, k: int) -> np.ndarray:
        """Per series (a row of ``Y``), whether parameter ``k`` takes the negative exponents too:
        where allowed, or (``allow_negative_exponents`` None) where the values fall along it on most
        of its lines."""
        allow = self.allow_negative_exponents
        if allow is not None:
            return np.full(len(Y), bool(allow))
        votes, lines = np.zeros(len(Y), dtype=int), 0
        for index, xs in line_layout(X, k):
            L, rows = index.shape
            votes += falls_rows(xs, Y[:, index].reshape(-1, rows)).reshape(len(Y), L).sum(axis=1)
            lines += L
        return (votes * 2 > lines) if lines else np.zeros(len(Y), dtype=bool)

    # -- public API -------------------------------------------------------------------------

    def fit_series(self, params: Sequence[str], series: Series, source: str = "",
                   progress: Progress | None = None) -> FitResult:
        """Fit one series (of points that hold stored statistics, the one of this aggregate)."""
        self._validate()
        series = series.for_aggregate(self.aggregate)
        X = series.coordinates()
        try:
            result = self.fit_arrays(X, [p.values for p in series.points], params, progress)
        except FitError as exc:
            raise FitError(f"{series.label}: {exc}") from None
        return dataclasses.replace(result, region=series.region, metric=series.metric, unit=series.unit,
                                   source=source or "fit")

    def fit_arrays(self, X: np.ndarray, values: Any, params: Sequence[str],
                   progress: Progress | None = None) -> FitResult:
        """Fit measurements at coordinates ``X`` (n, d); ``values`` holds one value per point or each
        point's repetitions (which also measure the noise). A parameter without a line of 3 points with
        the others fixed is left out, with a warning; points on a diagonal are fitted along one
        parameter. ``progress(label, done, total)`` hears of the batches of a multi-parameter search."""
        self._validate()
        X = np.asarray(X, dtype=float)
        X = X[:, None] if X.ndim == 1 else X
        fitter = self.for_values(values)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            y, sigma = aggregated(values, fitter.aggregate)
            pick = fitter._pick(X, y, sigma, tuple(params), progress, h=point_weights_of(values))
            # the forward check, then the statistics of the hypothesis it leaves
            chosen, ranked = fitter._checked(X, y, pick, extrapolation_errors([pick.chosen], X, y)[0])
            stats = fit_statistics(y, predict(chosen, X), 1 + chosen.n_terms)
        return fitter._result(params, chosen, ranked, pick, stats)

    def for_values(self, values: Any) -> PMNFFitter:
        """The fitter that models these values: itself, or where at most ``FEW_POINTS`` points
        have no repetitions its twin with ``unreplicated_weight_power``."""
        power = self.unreplicated_weight_power
        if power is None or power == self.weight_power or len(values) > FEW_POINTS or replicated(values):
            return self
        twin = self.__dict__.get("_unreplicated")
        if twin is None:
            twin = copy.copy(self)
            twin.weight_power, twin.unreplicated_weight_power = power, None
            self.__dict__["_unreplicated"] = twin
        return twin

    def _pick(self, X: np.ndarray, y: np.ndarray, sigma: float, params: tuple[str, ...],
              progress: Progress | None, search: Callable[..., Any] | None = None,
              h: np.ndarray | None = None) -> Pick:
        """The hypothesis the scores choose (:func:`~perfcompose.fit.selection_policy.select`), before the forward
        check, of aggregated values ``y`` with relative noise ``sigma`` (0: unknown) and the points'
        weights ``h`` beside it (:func:`~perfcompose.fit.noise.point_weights`; None: alike); ``search``
        stands in for :meth:`_groups` where the hypotheses were fitted beforehand (:mod:`perfcompose.fit.profile`)."""
        fitted = self._groups if search is None else search
        if X.shape != (len(y), len(params)):
            raise FitError(f"{len(y)} values for coordinates of shape {X.shape} and parameters {params}")
        for k, p in enumerate(params):
            values = distinct(X[:, k])
            if values < 3 and (len(params) == 1 or all(distinct(X[:, q]) < 3 for q in range(len(params)))):
                raise FitError(f"parameter {p} takes {values} distinct value(s); a model c0 + c1*f({p}) "
                               f"needs at least 3 (coefficients plus one)")
        if np.any(y < 0) or not np.all(np.isfinite(y)):
            raise FitError("values must be finite and non-negative")
        if np.all(y == 0):
            return Pick(Candidate(0.0, (), 0.0), [], (), 0.0)
        found, multi, notes = fitted(X, y, sigma, params, progress, h=h)
        measured = sigma
        if sigma <= 0 and self.policy.scatter_noise:
            sigma = scatter_noise(found, len(y), multi)
            if sigma > 0:
                found, multi, notes = fitted(X, y, sigma, params, progress, h=h)
        groups, scatter = with_lack_of_fit(found, sigma, len(y), self.policy)
        if scatter > sigma:
            # no hypothesis is the law within the noise: the search runs again at the noise the
            # points scatter by (the candidate factors voted with it too), each constant judged
            # by its own standard error
            found, multi, notes = fitted(X, y, scatter, params, progress, scattered=True, h=h)
            groups, scatter = with_lack_of_fit(found, scatter, len(y), self.policy)
        return Pick(select(groups, scatter, self.policy, multi=multi), groups, notes, measured,
                    lack_of_fit=0 < measured < scatter)

    def _checked(self, X: np.ndarray, y: np.ndarray, pick: Pick, error: float,
                 alternatives: bool = True) -> tuple[Candidate, list[Candidate]]:
        """The hypothesis of a pick after the forward check (``error``: the picked one's
        :func:`~perfcompose.fit.holdout.extrapolation_errors`), and the runners-up (none without
        ``alternatives``)."""
        if not pick.groups:
            return pick.chosen, [pick.chosen] if alternatives else []
        ranked = functools.cache(lambda: runners_up(pick.groups, self.keep))   # listed where first needed
        chosen = pick.chosen
        # points of one parameter that rise or fall with it are not a constant: of the hypotheses
        # with terms the score supports, the one that predicts the largest points best
        trend = X.shape[1] == 1 and monotone(X[:, 0], y, self.policy.trend)
        termed = [c for c in ranked() if c.n_terms and c.score <= chosen.score + self.policy.plausible] \
            if trend and chosen.n_terms == 0 else []
        if termed:
            errors = extrapolation_errors(termed, X, y)
            chosen, error = termed[int(np.argmin(errors))], float(np.min(errors))
        if self.policy.forward_choice and pick.lack_of_fit and ranked():
            # no hypothesis is the law within the runs' noise, so their scores do not rank their
            # extrapolations: of the plausible ones, the one that predicts the largest points best
            limit = ranked()[0].score + self.policy.plausible
            plausible = [chosen, *(c for c in ranked() if c.score <= limit)]
            errors = extrapolation_errors(plausible, X, y)
            if not np.all(np.isnan(errors)):
                return plausible[int(np.nanargmin(errors))], ranked() if alternatives else []
        if self.policy.forward_check:
            # only hypotheses the score supports: a term the policy prices out stays out
            limit = chosen.score + self.policy.plausible
            chosen = rechoose(chosen, lambda: [c for c in ranked() if c.score <= limit], X, y,
                              single_values=pick.measured <= 0, error=error, constant=not trend)
        return chosen, ranked() if alternatives else []

    def _groups(self, X: np.ndarray, y: np.ndarray, sigma: float, params: tuple[str, ...],
                progress: Progress | None, scattered: bool = False,
                h: np.ndarray | None = None) -> tuple[list[Group], bool, tuple[str, ...]]:
        """Every hypothesis fitted and scored: the groups, whether they span several parameters, and
        the notes on parameters that could not be separated. ``scattered`` (the points scatter beyond
        their repetitions' noise): a negative constant is a cancelling form only beyond two of its own
        standard errors (:func:`~perfcompose.fit.noise.intercept_slack`), not two noise widths of the
        smallest value (:func:`~perfcompose.fit.noise.constant_slack`). ``h``: the points' weights
        beside the noise (:func:`~perfcompose.fit.noise.point_weights`)."""
        far = X.max(axis=0) * self.policy.horizon
        notes: tuple[str, ...] = ()
        multi = len(params) > 1
        if not multi:
            return self._single_groups(X[:, 0], y, sigma, far[0], scattered, h), False, notes
        lined = [bool(line_layout(X, k)) for k in range(len(params))]
        if not any(lined):
            lead = diagonal_lead(X)
            if lead is None:
                raise FitError(f"no line of at least 3 points along any of {', '.join(params)} with the "
                               "others fixed; measure a line of points per parameter")
            others = [p for k, p in enumerate(params) if k != lead]
            notes = (f"the points lie on a diagonal: {', '.join(others)} change(s) with {params[lead]}, so "
                     f"the model is in {params[lead]} alone and their own effect is not separated; measure "
                     f"a line along {others[0]} with {params[lead]} fixed",)
            groups = self._single_groups(X[:, lead], y, sigma, far[lead], scattered, h)
            return [dataclasses.replace(g, hyps=[tuple(tuple((lead, f) for _, f in shape) for shape in h)
                                                 for h in g.hyps]) for g in groups], False, notes
        missing = [p for p, ok in zip(params, lined) if not ok]
        if missing:
            notes = (f"no line of at least 3 points along {', '.join(missing)} with the others fixed "
                     f"(at least 3 distinct values each): {', '.join(missing)} left out of the model; "
                     f"measure such a line to model {'it' if len(missing) == 1 else 'them'}",)
        return multi_groups_many(self, X, y[None], np.array([sigma]), scattered, lined=lined, progress=progress,
                                 weights=None if h is None else h[None])[0], \
            True, notes

    def _scored(self, hyps: Any, batch: BatchFit, k_terms: int, sigma: float | np.ndarray,
                slack: float | np.ndarray = np.inf) -> Group:
        """Score a fitted batch: the chi-square against the measured noise plus a price per term
        or, without repetitions to measure the noise, the cross-validation error with a
        parsimony margin. With ``nonnegative``, terms must have positive coefficients and the
        constant must not fall below -``slack`` (see :func:`constant_slack`). ``sigma`` and
        ``slack`` may hold one value per hypothesis (hypotheses of many series fitted at once)."""
        ok = batch.valid
        if self.nonnegative and k_terms:
            ok = ok & rows_all(batch.coef[:, 1:] > 0) & (batch.coef[:, 0] >= -slack)
        noisy = np.asarray(sigma) > 0
        # sigma * sigma, not sigma ** 2: a float's power (libm's pow) and an array's (a product)
        # may differ in the last digit, and one series must score alike alone and among many
        if np.all(noisy):
            scores = batch.rel_rss / (sigma * sigma) + self.policy.penalty(k_terms)
        else:
            scores = batch.cv * (1.0 + self.policy.tolerance * k_terms) + 1e-9 * k_terms
            if np.any(noisy):
                safe = np.where(noisy, sigma, 1.0)
                scores = np.where(noisy, batch.rel_rss / (safe * safe) + self.policy.penalty(k_terms), scores)
        return Group(hyps, batch, ok, np.where(ok, scores, np.inf))

    def _single_groups(self, x: np.ndarray, y: np.ndarray, sigma: float, far: float, scattered: bool,
                       h: np.ndarray | None = None) -> list[Group]:
        """Constant, one-term and two-term hypotheses in x; ``far`` is predicted, not fitted."""
        rows, yy = np.append(x, far), np.append(y, 0.0)
        w, sc = self._weights(y, x[:, None], h)
        w, sc = np.append(w, 0.0), np.append(sc, 1.0)
        allow = self.allow_negative_exponents
        basis = self._basis_with(x, falls_rows(x, y[None, :])[0] if allow is None else allow)
        FT = factor_values(rows, basis.exponent_arrays).T
        pairs = self.max_terms >= 2 and distinct(x) >= 4
        slack: Any = constant_slack(y, sigma)
        slack2: Any = slack
        if scattered:
            F = FT[:, :len(x)]
            slack = intercept_slack(F, y, sigma, np.arange(len(F))[:, None])
            slack2 = intercept_slack(F, y, sigma, np.stack(basis.pairs, axis=1)) if pairs else slack
        groups: list[Group] = []

        def need_pairs(const: BatchFit, one: BatchFit) -> bool:
            # With measured noise a two-term score is at least its price: if that is beyond the
            # plausible window of the best, no two-term hypothesis can be chosen or weigh in (a
            # rescoring for lack of fit lowers the other scores, never the price); skip them, and
            # the runners-up are the constant and one-term fits.
            groups.extend([self._scored([()], const, 0, sigma), self._scored(basis.one_term, one, 1, sigma, slack)])
            scores = np.concatenate([g.scores for g in groups])
            return sigma <= 0 or bool(scores.min() + self.policy.plausible >= self.policy.penalty(2))

        pa, pb = basis.pairs if pairs else (None, None)
        _, _, two = fit_one_and_two_terms(FT, yy, w, pa, pb, sc, need_pairs)
        if two is not None:
            groups.append(self._supported(self._scored(basis.two_term, two, 2, sigma, slack2), FT[:, :len(x)], pa, pb,
                                          sigma))
        return groups

    def _supported(self, group: Group, F: np.ndarray, pa: Any, pb: Any, sigma: float) -> Group:
        """The two-term hypotheses of ``group`` (terms of factors ``pa`` and ``pb``, rows of ``F`` at
        the points) whose every term is seen at enough points (beyond ``policy.term_noise`` times the
        relative noise ``sigma`` of the fitted value at ``policy.term_points`` points); the others
        rejected. Without a noise estimate every term is seen."""
        if not self.policy.term_points or sigma <= 0:
            return group
        coef = group.batch.coef
        first, second = np.abs(coef[:, 1:2] * F[pa]), np.abs(coef[:, 2:3] * F[pb])
        total = np.abs(coef[:, :1]) + first + second
        floor = self.policy.term_noise * sigma * total
        seen = [np.sum(t >= floor, axis=1) >= self.policy.term_points for t in (first, second)]
        ok = group.ok & seen[0] & seen[1]
        return dataclasses.replace(group, ok=ok, scores=np.where(ok, group.scores, np.inf))

    def _weights(self, y: np.ndarray, X: np.ndarray | None = None,
                 h: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Row weights of the fit (y^-weight_power) and the factors that turn weighted
        residuals into relative ones, which the noise is measured in. A value of zero (a count
        that is 0 at the smallest size) weighs as the smallest positive one: relative to zero,
        any residual would be infinitely large. ``h`` (shaped as ``y``): the points' weights beside
        the pooled noise (:func:`~perfcompose.fit.noise.point_weights`), in the fit and in the
        residuals the noise judges alike."""
        smallest = np.min(np.where(y > 0, y, np.inf), axis=-1, keepdims=True)
        yf = np.where(y > 0, y, np.where(np.isfinite(smallest), smallest, 0.0))
        yf = np.maximum(yf, np.maximum(np.max(y, axis=-1, keepdims=True) * 1e-12, 1e-300))
        w, sc = yf ** -self.weight_power, yf ** (self.weight_power - 1.0)
        if self.tilt and X is not None:
            L = np.log(X)
            lo, hi = L.min(axis=0), L.max(axis=0)
            u = np.mean((L - lo) / np.where(hi > lo, hi - lo, 1.0), axis=1)
            g = np.exp(self.tilt * (u - 1.0))
            w, sc = w * g, sc / g
        return (w, sc) if h is None else (w * h, sc)

    def _candidates(self, X: np.ndarray, Y: np.ndarray, sigma: np.ndarray, k: int, count: int, negative: Any,
                    scattered: bool = False, H: np.ndarray | None = None) -> np.ndarray:
        """The indices (S, count) into the basis of parameter ``k`` of the ``count`` most likely factors
        of each series (a row of ``Y``, its noise in ``sigma``, its points' weights in ``H``), voted on
        every line: the constant and each one-term fit scored on each line, a factor rejected there
        (e.g. a negative coefficient) counted as absent."""
        basis = self._basis_with(X[:, k], negative)
        m, S = len(basis.factors), len(Y)
        total = np.zeros((S, m))
        for index, xs in line_layout(X, k):
            L, rows = index.shape
            FT = factor_values(xs, basis.exponent_arrays).T
            YL = Y[:, index].reshape(S * L, rows)
            sig = np.repeat(sigma, L)
            W, Sc = self._weights(YL, None, None if H is None else H[:, index].reshape(S * L, rows))
            # relative weights (power 1) leave every scale factor exactly 1: nothing to multiply by
            const, one = fit_one_term_lines(FT, YL, W, None if self.weight_power == 1 else Sc)
            c0 = self._scored(None, const, 0, sig).scores
            c0 = np.where(np.isfinite(c0), c0, 0.0)
            slack = intercept_slack(FT, YL, sig, np.arange(m)[:, None]).reshape(-1) if scattered \
                else np.repeat(constant_slack(YL, sig), m)
            s1 = self._scored(None, one, 1, np.repeat(sig, m), slack).scores.reshape(S * L, m)
            total += np.where(np.isfinite(s1), s1, (c0 + self.policy.penalty(1))[:, None]).reshape(S, L, m).sum(axis=1)
        return np.argsort(total, axis=1, kind="stable")[:, :count]

    # -- statistics -------------------------------------------------------------------------

    def _result(self, params: Sequence[str], chosen: Candidate, ranked: list[Candidate], pick: Pick,
                stats: Mapping[str, float]) -> FitResult:
        """The result of ``chosen`` with its statistics (:func:`~perfcompose.fit.quality.fit_statistics`)."""
        shown = {**{k: stats[k] for k in ("rss", "smape", "adj_r2")}, "cv_error": chosen.cv_error * 100,
                 "points": stats["points"]}
        warnings = pick.notes + low_fit_warnings(shown, constant=chosen.n_terms == 0, noise=pick.measured)
        if pick.lack_of_fit and self.policy.forward_choice:
            warnings += ("no PMNF form fits within the runs' noise (a change of regime, such as a cache filling "
                         "up?): chosen by how well it predicts its largest points; extrapolate with care",)
        return FitResult(chosen, tuple(params), shown, alternatives=tuple(ranked[:self.keep]), warnings=warnings)
