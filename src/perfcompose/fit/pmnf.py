"""Fitting PMNF models ``c0 + sum c_k * prod x^i * log2(x)^j`` to measurements, as Extra-P does.

One parameter: the constant, every one-term and every two-term hypothesis over the exponent sets
are fitted at once (batched, column-scaled weighted least squares) and ranked by leave-one-out
cross-validation. Several parameters: per-parameter candidate terms are found on the lines of
the point set, then combined additively and multiplicatively and ranked the same way.
"""
from __future__ import annotations

import copy
import dataclasses
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from statistics import NormalDist
from typing import TYPE_CHECKING, Any, Self, cast

import numpy as np

from perfcompose.data.experiment import AGGREGATES, Experiment, Series
from perfcompose.errors import FitError
from perfcompose.fit.base import Estimator
from perfcompose.fit.holdout import extrapolation_errors, rechoose
from perfcompose.fit.hypotheses import (
    DEFAULT_I,
    DEFAULT_J,
    BatchFit,
    Factor,
    exponent_set,
    factor_values,
    factors,
    fit_batch,
    fit_batch_chunked,
    fit_constant,
    fit_one_and_two_terms,
    fit_one_term_lines,
    gram_fits,
    negative_factors,
    rows_all,
    split_batch,
)
from perfcompose.fit.quality import fit_statistics_many, low_fit_warnings
from perfcompose.fit.scaling import falls_along
from perfcompose.fit.selection_policy import DEFAULT_POLICY, SelectionPolicy
from perfcompose.fit_options import FitOptions
from perfcompose.pmnf_text import extrap_text

if TYPE_CHECKING:
    from perfcompose.model import Model

# A hypothesis: the constant plus terms; a term maps each parameter index to its factor.
TermShape = tuple[tuple[int, Factor], ...]
Hypothesis = tuple[TermShape, ...]
# a progress callback: (what runs now, steps done, steps in all)
Progress = Callable[[str, int, int], None]

# Several parameters: the product of the per-parameter candidate list lengths (absent included)
# that the additive/multiplicative search may combine; beyond it fewer candidates per parameter
# are kept (4 parameters: 2 each), since the number of hypotheses grows as that product squared.
MAX_COMBINATIONS = 125
# Several parameters, many points: when hypotheses times points exceed SCREEN_CELLS, every
# hypothesis is first scored from the Gram matrix of the columns (cost independent of the
# number of points) and only the SCREEN_KEEP best are fitted exactly and ranked.
SCREEN_CELLS = 1 << 21
SCREEN_KEEP = 256
# the relative noise of exact data: rounding is not noise, and it keeps them on the chi-square path
NOISE_FLOOR = 1e-9
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


@dataclass(frozen=True)
class Candidate:
    """One fitted hypothesis: its constant, its terms each with its coefficient, and the fit's quality."""

    constant: float
    #: (coefficient, shape) of each term beside the constant
    terms: tuple[tuple[float, TermShape], ...]
    cv_error: float
    score: float = 0.0

    @property
    def hypothesis(self) -> Hypothesis:
        """The terms' shapes: what was fitted, without the coefficients."""
        return tuple(shape for _, shape in self.terms)

    @property
    def coefficients(self) -> tuple[float, ...]:
        """The terms' coefficients, in the order of the terms."""
        return tuple(coef for coef, _ in self.terms)

    @property
    def n_terms(self) -> int:
        return len(self.terms)


@dataclass(frozen=True)
class Group:
    """A batch of hypotheses with the same number of terms, fitted and scored."""

    hyps: list[Hypothesis]
    batch: BatchFit
    ok: np.ndarray
    scores: np.ndarray  # inf where the fit is invalid or rejected

    def candidate(self, h: int) -> Candidate:
        coef = self.batch.coef[h].tolist()
        return Candidate(coef[0], tuple(zip(coef[1:], self.hyps[h])), float(self.batch.cv_of(h)), float(self.scores[h]))

    def candidates(self, hs: np.ndarray) -> list[Candidate]:
        """The hypotheses at indices ``hs`` (valid fits), with one NumPy call per quantity."""
        coefs = self.batch.coef[hs].tolist()
        cvs = np.atleast_1d(self.batch.cv_of(hs)).tolist()
        scores = self.scores[hs].tolist()
        return [Candidate(c[0], tuple(zip(c[1:], self.hyps[int(h)])), cv, sc)
                for h, c, cv, sc in zip(hs.tolist(), coefs, cvs, scores)]


@dataclass(frozen=True)
class Pick:
    """The hypothesis the scores choose for one series, the groups it was chosen from (none where
    every value is 0), the notes of the search and the measured noise."""

    chosen: Candidate
    groups: list[Group]
    notes: tuple[str, ...]
    measured: float


@dataclass(frozen=True)
class FitResult:
    """The hypothesis chosen for one series, its statistics and the runners-up.

    ``model`` is the chosen hypothesis as a :class:`~perfcompose.model.Model`, built on first use.
    """

    chosen: Candidate
    params: tuple[str, ...]
    stats: Mapping[str, float]
    region: str = ""
    metric: str = ""
    unit: str = "s"
    source: str = "fit"
    alternatives: tuple[Candidate, ...] = field(default=(), repr=False)
    #: what the user should know about this fit: a low adjusted R², a parameter left out
    warnings: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.region}/{self.metric}" if self.region else self.metric

    @cached_property
    def model(self) -> Model:
        return _shape_model(self.params, self.chosen, self.unit, self.source, self.stats)

    def text(self, digits: int | None = None) -> str:
        """The chosen model in Extra-P's syntax, as ``model.to_extrap`` writes it, without
        building the symbolic model (SymPy is not loaded)."""
        c = self.chosen
        terms = [(coef, [(self.params[k], f[0], f[1]) for k, f in shape])
                 for coef, shape in c.terms]
        return extrap_text(c.constant, terms, self.params, digits)


def _shape_model(params: Sequence[str], c: Candidate, unit: str, source: str,
                 stats: Mapping[str, float]) -> Model:
    from perfcompose.model import Model

    terms = []
    for coef, shape in c.terms:
        terms.append((coef, {params[k]: f for k, f in shape}))
    return Model.from_terms(c.constant, terms, params=params, unit=unit, source=source, stats=stats)


class SeriesFitter(Estimator):
    """What every fitter of an experiment shares: ``fit`` models each series (region x metric)
    with ``fit_series`` into ``results_``; ``model_`` is the model when there is one."""

    results_: list[Any]

    def fit_series(self, params: Sequence[str], series: Series, source: str = "",
                   progress: Progress | None = None) -> Any:
        raise NotImplementedError

    def fit(self, experiment: Experiment, metric: str | None = None, region: str | None = None,
            progress: Progress | None = None) -> Self:
        """Model every series (region x metric) of the experiment, or the selected ones;
        ``progress(label, done, total)`` hears of every series started and of the end, or, when
        there is one series, of the steps of its fit."""
        chosen = experiment.select(metric, region) if (metric or region) else experiment
        series = chosen.series
        self._reset()
        self.results_ = []
        if len(series) == 1:
            self.results_.append(self.fit_series(chosen.parameters, series[0], source=experiment.source,
                                                 progress=progress))
            return self
        for k, s in enumerate(series):
            if progress is not None:
                progress(f"fitting {s.label}", k, len(series))
            self.results_.append(self.fit_series(chosen.parameters, s, source=experiment.source))
        if progress is not None:
            progress("fitted", len(series), len(series))
        return self

    @property
    def model_(self) -> Model:
        """The model when exactly one series was fitted."""
        if len(self.results_) != 1:
            raise FitError(f"{len(self.results_)} series were fitted; use results_ to pick one")
        return self.results_[0].model


class PMNFFitter(SeriesFitter):
    """Fits a PMNF model per region and metric of an experiment (scikit-learn style).

    >>> from perfcompose.data import Experiment
    >>> e = Experiment.single(["x"], [((x,), (3 + 2 * x,)) for x in (4, 8, 16, 32, 64)])
    >>> PMNFFitter().fit(e).model_.to_extrap(digits=6)
    '3 + 2 * x^(1)'

    Options: exponent sets ``exponents_i`` / ``exponents_j``; ``max_terms`` (1 or 2 for one
    parameter); ``aggregate`` of repetitions (median, mean, min, max); ``nonnegative`` rejects
    hypotheses whose terms have negative coefficients (run times do not shrink as inputs grow);
    ``policy``: the selection heuristics, a frozen
    :class:`perfcompose.fit.selection_policy.SelectionPolicy` (the price of a term, the noise
    rules of :meth:`_with_lack_of_fit` and :meth:`_scatter_noise`, and the choice among
    hypotheses the data cannot tell apart, :meth:`_select`);
    ``candidates_per_parameter``: factors per parameter that the multi-parameter search
    combines; ``weight_power``: rows are weighted by y^-power (1 fits relative errors);
    ``tilt``: rows are further weighted by exp(tilt * (u - 1)), u the point's position between
    the smallest (0) and largest (1) coordinates on a log scale, so that the fit leans toward
    the largest measurements, which decide the extrapolation; ``unreplicated_weight_power``: the
    power for a series of at most ``FEW_POINTS`` points measured once each (None:
    ``weight_power``). There neither repetitions nor enough points say how much a point may be
    off, and 0 (least squares of the values themselves, as Extra-P fits) lets the largest values,
    which decide the extrapolation, weigh most: on Extra-P's LULESH profile (868 call paths, one
    value at each of 4 sizes) the median error at the next size falls from 16 % to 9 %. With more
    points the scatter shows the noise to be relative, and relative least squares keeps the
    class (``tests/fit/test_scatter_noise.py``). ``__init__`` only stores the
    options; a fit checks them (:class:`FitError` naming the one out of range).
    """

    keep = 10  # runners-up kept in FitResult.alternatives

    def __init__(self, *, exponents_i: Sequence[Any] = DEFAULT_I, exponents_j: Sequence[Any] = DEFAULT_J,
                 max_terms: int = 2, aggregate: str = FitOptions().aggregate, nonnegative: bool = True,
                 candidates_per_parameter: int = 5, weight_power: float = 1.0, tilt: float = 1.0,
                 allow_negative_exponents: bool | None = None, policy: SelectionPolicy = DEFAULT_POLICY,
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
    def _basis(self) -> _Basis:
        return _Basis(tuple(self.factors))

    @cached_property
    def _negative_bases(self) -> dict[bool, _Basis]:
        return {}

    @cached_property
    def _layouts(self) -> dict[tuple, list[tuple[np.ndarray, np.ndarray]]]:
        return {}

    @cached_property
    def factors(self) -> list[Factor]:
        """The PMNF factors (i, j) the exponent sets allow (exponents may be given as text, e.g. "1/3",
        or as one comma-separated text)."""
        found = factors(exponent_set(self.exponents_i, "exponents_i"), exponent_set(self.exponents_j, "exponents_j"))
        if not found:
            raise FitError("the exponent sets allow no term besides the constant; give a non-zero exponent")
        return found

    def _basis_for(self, x: np.ndarray, y_lines: Sequence[tuple[np.ndarray, np.ndarray]]) -> _Basis:
        """The factors for a parameter with coordinates ``x``: with the negative exponents too
        when allowed, or (``allow_negative_exponents`` None) when the values fall along it on
        ``y_lines`` ((x, y) per line). Negative powers of log2 need every coordinate above 1."""
        allow = self.allow_negative_exponents
        return self._basis_with(x, allow is True or (allow is None and falls_along(y_lines)))

    def _basis_with(self, x: np.ndarray, negative: bool) -> _Basis:
        """The factors for a parameter with coordinates ``x``, with the negative exponents or without."""
        if not negative:
            return self._basis
        logs = bool(np.min(x) > 1)
        basis = self._negative_bases.get(logs)
        if basis is None:
            basis = _Basis(tuple(sorted(set(self.factors) | set(negative_factors(self.factors, logs)))))
            self._negative_bases[logs] = basis
        return basis

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
        """Fit measurements at coordinates ``X`` (n, d).

        ``values`` holds one value per point, or the repetitions of every point (a list of
        sequences, or an (n, r) array); repetitions are aggregated and also tell the fitter how
        noisy the data are, which decides how many terms the data can support. A parameter
        along which no line of 3 points with the others fixed was measured is left out of the
        model, with a warning; points on a diagonal (every parameter a function of one) are
        fitted along that one. ``progress(label, done, total)`` hears of the batches of a
        search over several parameters. A hypothesis whose values overflow at these coordinates
        is an invalid fit, left out without a floating-point warning.
        """
        self._validate()
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            return self._fit_arrays(X, values, params, progress)

    def _fit_arrays(self, X: Any, values: Any, params: Sequence[str], progress: Progress | None) -> FitResult:
        X = np.asarray(X, dtype=float)
        if X.ndim == 1:
            X = X[:, None]
        fitter = self.for_values(values)
        y, sigma = fitter._aggregate(values)
        return fitter._fit_aggregated(X, y, sigma, tuple(params), progress)

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

    def _fit_aggregated(self, X: np.ndarray, y: np.ndarray, sigma: float, params: tuple[str, ...],
                        progress: Progress | None, search: Callable[..., Any] | None = None) -> FitResult:
        """The fit of aggregated values ``y`` with relative noise ``sigma`` (0: unknown);
        ``search`` stands in for :meth:`_groups` where the hypotheses were fitted beforehand
        (many series at the same coordinates at once, see :mod:`perfcompose.fit.profile`)."""
        pick = self._pick(X, y, sigma, params, progress, search)
        return self._finish(params, X, y, pick, extrapolation_errors([pick.chosen], X, y)[0])

    def _pick(self, X: np.ndarray, y: np.ndarray, sigma: float, params: tuple[str, ...],
              progress: Progress | None, search: Callable[..., Any] | None = None) -> Pick:
        """The hypothesis the scores choose (:meth:`_select`), before the forward check."""
        fitted = self._groups if search is None else search
        if X.shape != (len(y), len(params)):
            raise FitError(f"{len(y)} values for coordinates of shape {X.shape} and parameters {params}")
        for k, p in enumerate(params):
            distinct = _distinct(X[:, k])
            if distinct < 3 and (len(params) == 1 or all(_distinct(X[:, q]) < 3 for q in range(len(params)))):
                raise FitError(f"parameter {p} takes {distinct} distinct value(s); a model c0 + c1*f({p}) "
                               f"needs at least 3 (coefficients plus one)")
        if np.any(y < 0) or not np.all(np.isfinite(y)):
            raise FitError("values must be finite and non-negative")
        if np.all(y == 0):
            return Pick(Candidate(0.0, (), 0.0), [], (), 0.0)
        found, multi, notes = fitted(X, y, sigma, params, progress)
        measured = sigma
        if sigma <= 0 and self.policy.scatter_noise:
            sigma = self._scatter_noise(found, len(y), multi)
            if sigma > 0:
                found, multi, notes = fitted(X, y, sigma, params, progress)
        groups, scatter = self._with_lack_of_fit(found, sigma, len(y))
        if scatter > sigma:
            # no hypothesis is the law within the noise: the search runs again at the noise the
            # points scatter by (the candidate factors voted with it too), each constant judged
            # by its own standard error
            found, multi, notes = fitted(X, y, scatter, params, progress, scattered=True)
            groups, scatter = self._with_lack_of_fit(found, scatter, len(y))
        return Pick(self._select(groups, scatter, multi=multi), groups, notes, measured)

    def _finish(self, params: Sequence[str], X: np.ndarray, y: np.ndarray, pick: Pick, error: float,
                alternatives: bool = True) -> FitResult:
        """The result of a pick: the forward check (``error``: the extrapolation error of the
        picked hypothesis, :func:`~perfcompose.fit.holdout.extrapolation_errors`) and the
        statistics; the runners-up are listed where the check or ``alternatives`` asks for them."""
        chosen, ranked = self._checked(X, y, pick, error, alternatives)
        stats = fit_statistics_many(y[None, :], predict(chosen, X)[None, :], np.array([1 + chosen.n_terms]))
        return self._result(params, chosen, ranked, pick, {k: float(v[0]) for k, v in stats.items()})

    def _checked(self, X: np.ndarray, y: np.ndarray, pick: Pick, error: float,
                 alternatives: bool = True) -> tuple[Candidate, list[Candidate]]:
        """The hypothesis of a pick after the forward check, and the runners-up (none without
        ``alternatives``)."""
        if not pick.groups:
            return pick.chosen, [pick.chosen] if alternatives else []
        listed: list[list[Candidate]] = []

        def ranked() -> list[Candidate]:
            if not listed:
                listed.append(_runners_up(pick.groups, self.keep))
            return listed[0]

        chosen = pick.chosen
        if self.policy.forward_check:
            # only hypotheses the score supports: a term the policy prices out stays out
            limit = chosen.score + self.policy.plausible
            chosen = rechoose(chosen, lambda: [c for c in ranked() if c.score <= limit], X, y,
                              single_values=pick.measured <= 0, error=error)
        return chosen, ranked() if alternatives else []

    def _groups(self, X: np.ndarray, y: np.ndarray, sigma: float, params: tuple[str, ...],
                progress: Progress | None, scattered: bool = False) -> tuple[list[Group], bool, tuple[str, ...]]:
        """Every hypothesis fitted and scored: the groups, whether they span several parameters,
        and the notes on parameters that could not be separated.

        ``scattered``: the points scatter beyond the noise of their repetitions
        (:meth:`_with_lack_of_fit`), so no hypothesis is the law and each is an approximation.
        Its constant is then read off where its terms vanish, which may lie far from the
        measured range (``c0 + c1 * log2(p)`` fitted on p = 32 ... 256 meets it at p = 1), and a
        negative one is a cancelling form only where it lies more than two of its own standard
        errors below zero (:func:`_intercept_slack`), not two noise widths of the smallest value
        (:func:`constant_slack`): that rule, meant for exact laws, leaves an approximation only
        the forms that grow fastest beyond the data."""
        far = X.max(axis=0) * self.policy.horizon
        notes: tuple[str, ...] = ()
        multi = len(params) > 1
        if not multi:
            return self._single_groups(X[:, 0], y, sigma, far[0], self.max_terms, scattered), False, notes
        lined = [bool(self._line_layout(X, k)) for k in range(len(params))]
        if not any(lined):
            lead = _diagonal_lead(X)
            if lead is None:
                raise FitError(f"no line of at least 3 points along any of {', '.join(params)} with the "
                               "others fixed; measure a line of points per parameter")
            others = [p for k, p in enumerate(params) if k != lead]
            notes = (f"the points lie on a diagonal: {', '.join(others)} change(s) with {params[lead]}, so "
                     f"the model is in {params[lead]} alone and their own effect is not separated; measure "
                     f"a line along {others[0]} with {params[lead]} fixed",)
            return _moved(self._single_groups(X[:, lead], y, sigma, far[lead], self.max_terms, scattered),
                          lead), False, notes
        missing = [p for p, ok in zip(params, lined) if not ok]
        if missing:
            notes = (f"no line of at least 3 points along {', '.join(missing)} with the others fixed "
                     f"(at least 3 distinct values each): {', '.join(missing)} left out of the model; "
                     f"measure such a line to model {'it' if len(missing) == 1 else 'them'}",)
        return self._multi_groups(X, y, sigma, far, lined, progress, scattered), True, notes

    @staticmethod
    def _scatter_noise(groups: list[Group], n: int, multi: bool) -> float:
        """The relative noise of a point, estimated from the scatter of the points when no
        repetitions measure it: the residual of the best simple hypothesis per degree of freedom
        (one parameter: the constant and one-term fits, a term's chosen exponents counted as one
        more coefficient, since the best of 1,378 two-term fits on a handful of points would take
        luck for precision; several parameters: the best of any, with their many points). Exact
        data keep the floor, and so the exact law; 0 where too few points leave no degree of
        freedom to spare (the cross-validated choice then)."""
        if n < (6 if multi else 4):
            return 0.0
        if min(float(np.min(np.where(g.batch.valid, g.batch.rel_rss, np.inf), initial=np.inf))
               for g in groups) <= 1e-20 * n:
            return NOISE_FLOOR
        simple = groups if multi else [g for g in groups if g.batch.coef.shape[1] <= 2]
        # one parameter: a term's exponents were chosen to fit, and cost a degree of freedom too
        lost = [g.batch.coef.shape[1] + (not multi and g.batch.coef.shape[1] > 1) for g in simple]
        per_dof = [float(np.min(np.where(g.ok, g.batch.rel_rss, np.inf), initial=np.inf)) / (n - k)
                   for g, k in zip(simple, lost) if n > k]
        best = min(per_dof, default=np.inf)
        return max(float(np.sqrt(best)), NOISE_FLOOR) if np.isfinite(best) else 0.0

    # -- search -----------------------------------------------------------------------------

    def _aggregate(self, values: Any) -> tuple[np.ndarray, float]:
        """Aggregated values and the relative noise of an aggregate (0 when unknown)."""
        if isinstance(values, np.ndarray) and values.ndim == 1:
            return values.astype(float), 0.0
        if isinstance(values, np.ndarray) and values.ndim == 2 and values.shape[1] >= 1:
            v = values.astype(float)
            m = v.mean(axis=1)
            reductions: dict[str, Callable[..., np.ndarray]] = {"median": np.median, "min": np.min, "max": np.max}
            y = m if self.aggregate == "mean" else reductions[self.aggregate](v, axis=1)
            if v.shape[1] < 2:
                return y, 0.0
            good = m > 0
            if not good.any():
                return y, 0.0
            dev = v[good] - m[good, None]
            rel = np.einsum("nr,nr->n", dev, dev) / (v.shape[1] - 1) / m[good] ** 2
            return y, self._noise(float(rel.mean()), v.shape[1])
        rows = [np.atleast_1d(np.asarray(v, dtype=float)) for v in values]
        if any(len(r) == 0 for r in rows):
            raise FitError("a point has no repetitions")
        agg = AGGREGATES[self.aggregate]
        y = np.array([agg(r) for r in rows])
        rel = [np.var(r, ddof=1) / np.mean(r) ** 2 for r in rows if len(r) >= 2 and np.mean(r) > 0]
        if not rel:
            return y, 0.0
        return y, self._noise(float(np.mean(rel)), float(np.mean([len(r) for r in rows])))

    def _noise(self, relative_variance: float, reps: float) -> float:
        """Relative noise of an aggregate of ``reps`` repetitions with this relative variance.

        The median's (the variance of a mean times pi/2) also stands for the mean: the noise
        decides which hypotheses the data can tell apart, and that must not change with the
        choice between two estimates of the same centre (on the same measurements the chosen
        class would flip between ``median`` and ``mean``); the extremes ``min`` and ``max`` are
        noisier. A floor keeps exact (noise-free) data on the chi-square path: rounding is not
        noise.
        """
        efficiency = 2.0 if self.aggregate in ("min", "max") else np.pi / 2
        return max(float(np.sqrt(relative_variance * efficiency / reps)), NOISE_FLOOR)

    def _penalty(self, k_terms: int) -> float:
        if isinstance(self.policy.term_penalty, (int, float)):
            return float(self.policy.term_penalty) * k_terms
        steps = list(self.policy.term_penalty)
        steps += [steps[-1]] * max(0, k_terms - len(steps))
        return float(sum(steps[:k_terms]))

    def _with_lack_of_fit(self, groups: list[Group], sigma: float, n: int) -> tuple[list[Group], float]:
        """The groups rescored with the noise the points scatter by, where that exceeds the noise
        of the repetitions.

        Repetitions measure how much one point varies, not how much the points scatter around the
        law: timings at neighbouring sizes differ by cache, alignment or a busy minute while each
        size's repetitions agree. Then every extra term buys a chi-square gain far above its price
        and the fitter follows the scatter (a constant fitted as 80 + 2e-17*x^3). When the
        best-scored hypothesis leaves a chi-square above the ``lack_of_fit`` quantile of its
        degrees of freedom, the noise is scaled by the square root of its reduced chi-square (the
        Birge ratio) and every hypothesis is scored again; with fewer than 3 degrees of freedom
        the scatter cannot be told from the fit and nothing changes.
        """
        if sigma <= 0 or not self.policy.lack_of_fit:
            return groups, sigma
        best = min(groups, key=lambda g: float(g.scores.min()) if len(g.scores) else np.inf)
        h = int(np.argmin(best.scores))
        dof = n - best.batch.coef.shape[1]
        if dof < 3:
            return groups, sigma
        chi2 = float(best.batch.rel_rss[h]) / sigma ** 2
        if chi2 <= _chi2_quantile(self.policy.lack_of_fit, dof):
            return groups, sigma
        scatter = sigma * np.sqrt(chi2 / dof)
        rescored = [dataclasses.replace(g, scores=np.where(np.isfinite(g.scores), g.batch.rel_rss / scatter ** 2
                                                           + self._penalty(g.batch.coef.shape[1] - 1), np.inf))
                    for g in groups]
        return rescored, scatter

    def _group(self, hyps: Any, cols: list[np.ndarray], y: np.ndarray, w: np.ndarray, scale: np.ndarray,
               sigma: float, slack: float = np.inf) -> Group:
        """Fit one batch of hypotheses with the same number of terms and score them."""
        return self._scored(hyps, fit_batch(cols, y, w, scale), len(cols) - 1, sigma, slack)

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
            scores = batch.rel_rss / (sigma * sigma) + self._penalty(k_terms)
        else:
            scores = batch.cv * (1.0 + self.policy.tolerance * k_terms) + 1e-9 * k_terms
            if np.any(noisy):
                safe = np.where(noisy, sigma, 1.0)
                scores = np.where(noisy, batch.rel_rss / (safe * safe) + self._penalty(k_terms), scores)
        return Group(hyps, batch, ok, np.where(ok, scores, np.inf))

    def _single_groups(self, x: np.ndarray, y: np.ndarray, sigma: float, far: float | None,
                       max_terms: int, scattered: bool = False) -> list[Group]:
        """Constant, one-term and two-term hypotheses in x; ``far`` is predicted, not fitted."""
        rows = np.append(x, far) if far is not None else x
        yy = np.append(y, 0.0) if far is not None else y
        w, sc = self._weights(y, x[:, None])
        if far is not None:
            w, sc = np.append(w, 0.0), np.append(sc, 1.0)
        basis = self._basis_for(x, [(x, y)])
        FT = factor_values(rows, basis.exponent_arrays).T
        pairs = max_terms >= 2 and _distinct(x) >= 4
        slack: Any = constant_slack(y, sigma)
        slack2: Any = slack
        if scattered:
            F = FT[:, :len(x)]
            slack = _intercept_slack(F, y, sigma, np.arange(len(F))[:, None])
            slack2 = _intercept_slack(F, y, sigma, np.stack(basis.pairs, axis=1)) if pairs else slack
        groups = [self._scored([()], fit_constant(yy, w, sc), 0, sigma)]

        scored: list[Group] = []

        def need_pairs(one: BatchFit) -> bool:
            # With measured noise a two-term score is at least its price: if that is beyond the
            # plausible window of the best, no two-term hypothesis can be chosen or weigh in (a
            # rescoring for lack of fit lowers the other scores, never the price); skip them, and
            # the runners-up are the constant and one-term fits.
            scored.append(self._scored(basis.one_term, one, 1, sigma, slack))
            if sigma <= 0:
                return True
            scores = np.concatenate([groups[0].scores, scored[0].scores])
            return bool(scores.min() + self.policy.plausible >= self._penalty(2))

        pa, pb = basis.pairs if pairs else (None, None)
        one, two = fit_one_and_two_terms(FT, yy, w, pa, pb, sc, need_pairs)
        groups.append(scored[-1] if scored else self._scored(basis.one_term, one, 1, sigma, slack))
        if two is not None:
            groups.append(self._scored(basis.two_term, two, 2, sigma, slack2))
        return groups

    def _select(self, groups: list[Group], sigma: float, multi: bool = False) -> Candidate:
        """The best-supported hypothesis whose extrapolation agrees with the consensus of the plausible ones.

        Hypotheses within ``plausible`` score units of the best are weighted exp(-delta/2)
        (Akaike weights); their predictions at ``horizon`` times the largest measured
        coordinates form the consensus: the weighted median (weights divided by the prediction
        to the power ``shrink``), capped at a factor times a cautious weighted quantile of the
        predictions, so that the chance of over-predicting by more than that factor stays below
        that quantile's risk. With one parameter the spread of the plausible predictions comes
        mostly from the noise, so the tolerated factor grows with it: ``overshoot_factor`` +
        ``overshoot_noise`` times the measured relative noise of an aggregate, over the
        ``overshoot_risk`` quantile (1.7 at 5 % noise per repetition and 5 repetitions, 2.4 at
        10 %), and never below ``overshoot_floor``: at 1 % noise the plausible forms differ at the
        horizon by more than the noise alone explains (the exponents of a short range are
        uncertain), and a tighter cap would exclude the best-supported form for its runner-up.
        The weights are divided by the prediction (``shrink`` 1): of two forms the data support
        alike, the one predicting less counts more, since an over-prediction is unbounded and an
        under-prediction is not. With several parameters the spread comes from the choice between additive and
        multiplicative combinations, which differ at the horizon by factors no noise level
        explains; there the cap is ``overshoot_factor`` times the ``multi_overshoot_risk``
        quantile (0.4; a cap at the lower fifth left the median two-parameter extrapolation at
        16x 8 to 40 % below the truth, by class of law, at 5 and 10 % noise), and at most
        ``multi_overshoot_spread`` times their ``overshoot_risk`` quantile, so that where the
        plausible combinations disagree widely the cap stays near the cautious end. Among the
        hypotheses within ``indistinct`` score units of the best (the data cannot tell them apart) the
        one predicting closest to the consensus is chosen; if none lies under the cap, the best-scored
        one that does. On noisy data this keeps one lucky steep hypothesis from deciding the
        extrapolation while the chosen form stays one the data support best; on exact data only the
        exact fit is plausible. Without a noise estimate the scores are cross-validation errors and
        the best one wins.
        """
        groups = [g for g in groups if len(g.scores)]
        every = np.concatenate([g.scores for g in groups]) if groups else np.zeros(0)
        best = float(every.min()) if len(every) else np.inf
        if not np.isfinite(best):
            raise FitError("no hypothesis could be fitted; the data may be degenerate")
        idx = np.flatnonzero(every - best <= self.policy.plausible)
        starts = np.cumsum([0] + [len(g.scores) for g in groups])
        gidx = np.searchsorted(starts, idx, side="right") - 1
        hidx = idx - starts[gidx]
        scores = every[idx]
        preds = np.concatenate([g.batch.predicted[:, -1] for g in groups])[idx]
        policy = self.policy
        if len(scores) == 1 or policy.plausible <= 0 or sigma <= 0:
            pick = int(np.argmin(scores))
        else:
            spread = np.inf
            if multi:
                risk, factor = policy.multi_overshoot_risk, policy.overshoot_factor
                spread = policy.multi_overshoot_spread
            else:
                risk = policy.overshoot_risk
                factor = max(policy.overshoot_floor, policy.overshoot_factor + policy.overshoot_noise * sigma)
            pick = _consensus_pick(scores - best, np.maximum(np.abs(preds), 1e-300), policy.indistinct,
                                   policy.shrink, risk, factor, spread=spread, spread_risk=policy.overshoot_risk)
        return groups[int(gidx[pick])].candidate(int(hidx[pick]))

    def _weights(self, y: np.ndarray, X: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Row weights of the fit (y^-weight_power) and the factors that turn weighted
        residuals into relative ones, which the noise is measured in. A value of zero (a count
        that is 0 at the smallest size) weighs as the smallest positive one: relative to zero,
        any residual would be infinitely large."""
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
        return w, sc

    def _lines(self, X: np.ndarray, k: int) -> list[np.ndarray]:
        """Index sets of the points where every parameter but ``k`` is fixed (>= 3 distinct values)."""
        others = np.delete(X, k, axis=1)
        _, inverse = np.unique(others, axis=0, return_inverse=True)
        inverse = inverse.ravel()
        lines = [np.flatnonzero(inverse == g) for g in range(inverse.max() + 1)]
        return [idx for idx in lines if len(np.unique(X[idx, k])) >= 3]

    def _line_layout(self, X: np.ndarray, k: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """The lines along parameter ``k`` grouped by their coordinates: per group the (L, rows)
        point indices in increasing order of ``k`` and the coordinates of ``k`` there (rows).
        It depends only on the coordinates, which repeat from series to series, so it is cached."""
        key = (X.shape, X.tobytes(), k)
        layout = self._layouts.get(key)
        if layout is None:
            by_x: dict[bytes, list[np.ndarray]] = {}
            for idx in self._lines(X, k):
                order = idx[np.argsort(X[idx, k], kind="stable")]
                by_x.setdefault(X[order, k].tobytes(), []).append(order)
            layout = [(np.stack(same), X[same[0], k]) for same in by_x.values()]
            if len(self._layouts) >= 64:
                self._layouts.clear()
            self._layouts[key] = layout
        return layout

    def _parameter_candidates(self, X: np.ndarray, y: np.ndarray, sigma: float, k: int,
                              count: int, scattered: bool = False) -> list[Factor | None]:
        """The ``count`` most likely factors of parameter ``k``, voted on every line through the points."""
        layout = self._line_layout(X, k)
        basis = self._basis_for(X[:, k], [(xs, y[i]) for index, xs in layout for i in index])
        m = len(basis.factors)
        total = np.zeros(m + 1)
        for index, xs in layout:
            FT = factor_values(xs, basis.exponent_arrays).T
            Y = y[index]
            W, S = self._weights(Y)
            const, one = fit_one_term_lines(FT, Y, W, S)
            c0 = self._scored([()] * len(Y), const, 0, sigma).scores
            c0 = np.where(np.isfinite(c0), c0, 0.0)
            if scattered:
                one_term = np.arange(m)[:, None]
                slack = np.concatenate([_intercept_slack(FT, line, sigma, one_term) for line in Y])
            else:
                slack = np.repeat(constant_slack(Y, sigma), m)
            s1 = self._scored([()] * (len(Y) * m), one, 1, sigma, slack).scores.reshape(len(Y), m)
            # a factor rejected on a line (e.g. a negative coefficient) counts as absent there
            total[0] += c0.sum()
            total[1:] += np.where(np.isfinite(s1), s1, (c0 + self._penalty(1))[:, None]).sum(axis=0)
        best = np.argsort(total[1:], kind="stable")[:count]
        return [None, *(basis.factors[i] for i in best)]

    def _multi_groups(self, X: np.ndarray, y: np.ndarray, sigma: float, far: np.ndarray,
                      lined: Sequence[bool] | None = None, progress: Progress | None = None,
                      scattered: bool = False) -> list[Group]:
        """Additive and multiplicative combinations of every parameter's candidate factors
        (only absent for a parameter without lines, where ``lined`` says False)."""
        d = X.shape[1]
        lined = [True] * d if lined is None else list(lined)
        count = candidates_within(self.candidates_per_parameter, sum(lined), MAX_COMBINATIONS)
        per_param: list[list[Factor | None]] = [
            self._parameter_candidates(X, y, sigma, k, count, scattered) if ok else [None]
            for k, ok in enumerate(lined)]
        rows = np.vstack([X, far[None, :]])
        yy = np.append(y, 0.0)
        w, sc = self._weights(y, X)
        w, sc = np.append(w, 0.0), np.append(sc, 1.0)
        values = [factor_values(rows[:, k], [f for f in per_param[k] if f is not None]).T for k in range(d)]
        keys, by_size = combination_templates(tuple(len(c) for c in per_param))
        columns = np.empty((len(keys), len(rows)))
        for c, key in enumerate(keys):
            (k, ci), *more = key
            v = values[k][ci - 1]
            for k, ci in more:
                v = v * values[k][ci - 1]
            columns[c] = v
        slack = np.inf if scattered else constant_slack(y, sigma)
        if sigma > 0 and sum(len(v) for v in by_size.values()) * len(rows) > SCREEN_CELLS:
            by_size = self._screened(columns, by_size, yy, w, sc, sigma, slack)
        slacks = {r: _intercept_slack(columns[:, :len(y)], y, sigma, index) if scattered and r else slack
                  for r, index in by_size.items()}
        # one batch for every size: a smaller hypothesis leaves its last columns absent
        sizes = list(by_size)
        width = max(sizes)
        stacked = [np.ones((1, len(rows)))]
        present = np.ones((sum(len(by_size[r]) for r in sizes), width + 1), dtype=bool)
        starts = np.cumsum([0] + [len(by_size[r]) for r in sizes])
        for t in range(width):
            col = np.zeros((len(present), len(rows)))
            for r, a, b in zip(sizes, starts[:-1], starts[1:]):
                if t < r:
                    col[a:b] = columns[by_size[r][:, t]]
                else:
                    present[a:b, t + 1] = False
            stacked.append(col)
        batch = fit_batch_chunked(stacked, yy, w, sc, present, progress=progress)
        return [self._scored(TemplateHypotheses(keys, by_size[r], per_param), split_batch(batch, a, b, r + 1), r,
                             sigma, slacks[r]) for r, a, b in zip(sizes, starts[:-1], starts[1:])]

    def _screened(self, columns: np.ndarray, by_size: dict[int, np.ndarray], y: np.ndarray, w: np.ndarray,
                  sc: np.ndarray, sigma: float, slack: float) -> dict[int, np.ndarray]:
        """The hypotheses of every size among the SCREEN_KEEP best by their Gram-matrix scores
        (the same chi-square, price per term and sign rules as :meth:`_scored`)."""
        scores = {}
        for r, index in by_size.items():
            coef, rss = gram_fits(columns, index, y, w, sc)
            ok = np.all(np.isfinite(coef), axis=1)
            if self.nonnegative and r:
                ok &= np.all(coef[:, 1:] > 0, axis=1) & (coef[:, 0] >= -slack)
            scores[r] = np.where(ok, rss / sigma ** 2 + self._penalty(r), np.inf)
        every = np.concatenate(list(scores.values()))
        limit = np.partition(every, SCREEN_KEEP - 1)[SCREEN_KEEP - 1] if len(every) > SCREEN_KEEP else np.inf
        return {r: index[(scores[r] <= limit) | (r == 0)] for r, index in by_size.items()}

    # -- statistics -------------------------------------------------------------------------

    def _result(self, params: Sequence[str], chosen: Candidate, ranked: list[Candidate], pick: Pick,
                stats: Mapping[str, float]) -> FitResult:
        """The result of ``chosen`` with its statistics (:func:`~perfcompose.fit.quality.fit_statistics_many`)."""
        shown = {**{k: stats[k] for k in ("rss", "smape", "adj_r2")}, "cv_error": chosen.cv_error * 100,
                 "points": stats["points"]}
        warnings = pick.notes + low_fit_warnings(shown, constant=chosen.n_terms == 0, noise=pick.measured)
        return FitResult(chosen, tuple(params), shown, alternatives=tuple(ranked[:self.keep]), warnings=warnings)


def replicated(values: Any) -> bool:
    """Whether some point of these values (one value or a sequence of repetitions per point, or
    an (n, r) array) holds at least two repetitions."""
    if isinstance(values, np.ndarray):
        return values.ndim == 2 and values.shape[1] >= 2
    return any(np.size(v) >= 2 for v in values)


@lru_cache(maxsize=256)
def _chi2_quantile(q: float, dof: int) -> float:
    """The ``q`` quantile of the chi-square distribution with ``dof`` degrees of freedom, by
    Wilson and Hilferty's cube-root normal approximation (within 1 % from 3 degrees of freedom
    on; SciPy's exact quantile costs its import, a third of a second, in every fit process)."""
    a = 2.0 / (9.0 * dof)
    return float(dof * (1.0 - a + NormalDist().inv_cdf(q) * math.sqrt(a)) ** 3)


def candidates_within(count: int, d: int, limit: int) -> int:
    """The most candidates per parameter (at most ``count``, at least 1) whose combinations over
    ``d`` parameters, each also absent, stay within ``limit``."""
    while count > 1 and (count + 1) ** d > limit:
        count -= 1
    return count


def _distinct(v: np.ndarray) -> int:
    """The number of distinct values of a few coordinates (a set is faster than np.unique there)."""
    return len(set(v.tolist()))


def _runners_up(groups: list[Group], keep: int) -> list[Candidate]:
    """The ``keep`` best-scored valid hypotheses of all groups, best first."""
    scores = np.concatenate([g.scores for g in groups])
    finite = np.flatnonzero(np.isfinite(scores))
    if keep <= 0 or not len(finite):
        return []
    if len(finite) > keep:
        finite = finite[np.argpartition(scores[finite], keep - 1)[:keep]]
    order = finite[np.argsort(scores[finite], kind="stable")]
    starts = np.cumsum([0] + [len(g.scores) for g in groups])
    owner = np.searchsorted(starts, order, side="right") - 1
    found: dict[int, Candidate] = {}
    for k in np.unique(owner).tolist():
        mine = order[owner == k]
        found.update(zip(mine.tolist(), groups[k].candidates(mine - starts[k])))
    return [found[i] for i in order.tolist()]


def _diagonal_lead(X: np.ndarray) -> int | None:
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


def _moved(groups: list[Group], k: int) -> list[Group]:
    """Groups fitted in one parameter with their hypotheses moved to parameter ``k``."""
    return [dataclasses.replace(g, hyps=[tuple(tuple((k, f) for _, f in shape) for shape in h) for h in g.hyps])
            for g in groups]


def constant_slack(y: np.ndarray, sigma: float | np.ndarray) -> Any:
    """How far below zero a fitted constant may fall and still count as non-negative.

    A cost has no negative part, so with measured noise ``sigma`` (relative, of an aggregate) a
    constant more than two noise widths of the smallest value below zero marks a form that
    fits only by cancelling its own growth. Without a noise estimate there is no such scale, and
    exact data (the noise at its floor) have no noise to cancel: there the constant is not
    restricted (``p - 1`` messages is a law). ``y`` may hold one series per row (one slack each),
    and ``sigma`` then one noise per row.
    """
    if np.ndim(sigma) == 0 and sigma <= NOISE_FLOOR:
        return np.full(y.shape[:-1], np.inf) if y.ndim > 1 else np.inf
    slack = 2.0 * sigma * np.min(y, axis=-1) + 1e-9 * np.max(y, axis=-1)
    return slack if np.ndim(sigma) == 0 else np.where(sigma <= NOISE_FLOOR, np.inf, slack)


def _intercept_slack(F: np.ndarray, y: np.ndarray, sigma: float, index: np.ndarray) -> np.ndarray:
    """Two standard errors of the fitted constant of each hypothesis, at relative noise ``sigma``.

    ``F`` (m, n) holds term columns at the n measured points, ``index`` (H, k) the columns of each
    hypothesis besides the constant. The fit weighs relative residuals, so the design is each
    column divided by ``y``; the variance of the constant is sigma^2 times the first diagonal
    element of the inverse of that design's Gram matrix (columns scaled to unit length first,
    which steep terms need). A constant read off far from the measured points (a log term
    fitted on 32 ... 256) has a large standard error; one pinned by small measured values has
    a small one. Non-finite columns give no slack.
    """
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


def _weighted_quantile(values: np.ndarray, weights: np.ndarray, q: float) -> int:
    """Index of the weighted ``q`` quantile of ``values`` (the first whose cumulative weight reaches q)."""
    order = np.argsort(values, kind="stable")
    cum = np.cumsum(weights[order])
    return int(order[min(int(np.searchsorted(cum, q * cum[-1])), len(order) - 1)])


def _consensus_pick(delta: np.ndarray, preds: np.ndarray, indistinct: float, shrink: float,
                    risk: float, factor: float, spread: float = np.inf, spread_risk: float = 0.05) -> int:
    """Index of the hypothesis chosen by :meth:`PMNFFitter._select` from score differences
    ``delta`` (>= 0) and positive predictions ``preds`` at the horizon; the cap is also at most
    ``spread`` times the ``spread_risk`` quantile of the predictions."""
    w = np.exp(-0.5 * delta)
    target = preds[_weighted_quantile(preds, w / preds ** shrink, 0.5)]
    cap = factor * preds[_weighted_quantile(preds, w, risk)] if risk > 0 else np.inf
    if spread < np.inf:
        cap = min(cap, spread * preds[_weighted_quantile(preds, w, spread_risk)])
    target = min(target, cap)
    close = np.flatnonzero((delta <= indistinct) & (preds <= cap * (1 + 1e-12)))
    if len(close):
        return int(close[np.argmin(np.abs(np.log(preds[close] / target)))])
    under = np.flatnonzero(preds <= cap * (1 + 1e-12))
    return int(under[np.argmin(delta[under])])


@lru_cache(maxsize=64)
def combination_templates(sizes: tuple[int, ...], max_terms: int = 3
                           ) -> tuple[list[tuple[tuple[int, int], ...]], dict[int, np.ndarray]]:
    """Every additive/multiplicative hypothesis over per-parameter candidate lists of ``sizes``.

    Candidate 0 of each parameter means "absent". A column is a product of one candidate per
    parameter of a subset; a hypothesis is a set of columns that together use exactly the
    parameters whose chosen candidate is not absent. Returns the column keys and, per number of
    terms, the hypotheses as rows of column indices.
    """
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


@lru_cache(maxsize=64)
def template_layout(sizes: tuple[int, ...], r: int) -> list[tuple[tuple[tuple[int, int], ...], ...]]:
    """Per hypothesis of ``r`` terms of :func:`combination_templates` (``sizes``), the keys of its columns."""
    keys, by_size = combination_templates(sizes)
    return [tuple(keys[c] for c in row) for row in by_size[r].tolist()]


def predict(candidate: Candidate, X: np.ndarray) -> np.ndarray:
    """Values of a fitted hypothesis at coordinates ``X`` (n, d), without building a Model."""
    X = np.asarray(X, dtype=float)
    out = np.full(X.shape[0], candidate.constant)
    with np.errstate(divide="ignore", invalid="ignore"):
        for coef, shape in candidate.terms:
            v = np.full(X.shape[0], coef)
            for k, (i, j) in shape:
                v = v * X[:, k] ** float(i) * np.log2(X[:, k]) ** float(j)
            out += v
    return out


def fit(experiment: Experiment, **options: Any) -> list[FitResult]:
    """Fit every series of ``experiment`` with a :class:`PMNFFitter` built from ``options``."""
    return PMNFFitter(**options).fit(experiment).results_
