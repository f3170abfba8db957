"""PMNF fitting (paper 003, section II): recovery of known laws, multi-parameter, failures."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from perfcompose.data import Experiment
from perfcompose.errors import FitError
from perfcompose.fit import PMNFFitter
from perfcompose.fit.hypotheses import DEFAULT_I, DEFAULT_J

X_SMALL = np.array([4.0, 8, 16, 32, 64, 128])
X_LARGE = 1024.0 * 2.0 ** np.arange(9)


def _lead(model, param="x"):
    constant, terms = model.terms()
    return sorted(t.exponent(param) for t in terms)


PAIRS = [(i, j) for i in DEFAULT_I for j in DEFAULT_J if i or j]


@pytest.mark.parametrize("i,j", PAIRS, ids=[f"x^{i}*log^{j}" for i, j in PAIRS])
def test_exact_recovery_of_every_exponent_pair_without_noise(i, j):
    y = 3.0 + 0.5 * X_SMALL ** float(i) * np.log2(X_SMALL) ** float(j)
    result = PMNFFitter().fit_arrays(X_SMALL, y, ["x"])
    assert _lead(result.model) == [(Fraction(i), Fraction(j))]
    constant, (term,) = result.model.terms()
    assert term.coefficient == pytest.approx(0.5, rel=1e-6)
    assert constant == pytest.approx(3.0, rel=1e-6, abs=1e-6)


def test_two_term_law_recovered_without_noise():
    y = 10.0 + 2.0 * X_SMALL ** 2 + 7.0 * X_SMALL * np.log2(X_SMALL)
    model = PMNFFitter().fit_arrays(X_SMALL, y, ["x"]).model
    assert _lead(model) == [(Fraction(1), Fraction(1)), (Fraction(2), Fraction(0))]


def test_table1_qsort_law_recovered_with_two_percent_noise():
    """1034.17 x log2(x) on x = 1024 ... 262144, 2 % noise: term x log2 x, coefficient within 3 %."""
    rng = np.random.default_rng(7)
    points = [((x,), tuple(1034.17 * x * np.log2(x) * (1 + 0.02 * rng.standard_normal(5)))) for x in X_LARGE]
    model = PMNFFitter().fit(Experiment.single(["x"], points, unit="ns")).model_
    constant, terms = model.terms()
    lead = max(terms, key=lambda t: t.exponent("x"))
    assert lead.exponent("x") == (1, 1)
    assert lead.coefficient == pytest.approx(1034.17, rel=0.03)
    assert model.unit == "ns"


def test_constant_data_gives_constant_model():
    model = PMNFFitter().fit_arrays(X_SMALL, np.full(len(X_SMALL), 5422.97), ["x"]).model
    assert model.terms() == (5422.97, ()) or model.terms()[1] == ()
    assert model(x=1e6) == pytest.approx(5422.97)


def test_noisy_constant_is_not_given_a_growing_term():
    rng = np.random.default_rng(3)
    y = 100.0 * (1 + 0.01 * rng.standard_normal(len(X_LARGE)))
    model = PMNFFitter().fit_arrays(X_LARGE, y, ["x"]).model
    assert model(x=X_LARGE[-1] * 16) == pytest.approx(100.0, rel=0.05)


def test_too_few_points_is_a_clear_error():
    with pytest.raises(FitError, match="at least 3"):
        PMNFFitter().fit_arrays(np.array([4.0, 8.0]), np.array([1.0, 2.0]), ["x"])


def test_aggregation_choices_change_the_data_fitted():
    points = [((x,), (2 * x, 2 * x, 3 * x)) for x in X_SMALL]
    e = Experiment.single(["x"], points)
    med = PMNFFitter(aggregate="median").fit(e).model_
    mx = PMNFFitter(aggregate="max").fit(e).model_
    assert med(x=64) == pytest.approx(128, rel=0.05)
    assert mx(x=64) == pytest.approx(3 * 64, rel=0.05)


def test_unknown_aggregation_rejected_when_fitting():
    fitter = PMNFFitter(aggregate="mode")  # __init__ only stores its arguments
    with pytest.raises(FitError, match="unknown aggregation 'mode'"):
        fitter.fit_arrays(X_SMALL, np.ones(len(X_SMALL)), ["x"])


GRID_P = np.array([4.0, 8, 16, 32, 64])
GRID_N = np.array([10.0, 20, 40, 80, 160])


@pytest.mark.parametrize("law,expected", [
    (lambda p, n: 2 + 0.5 * p * n ** 0.5, [{"p": (1, 0), "n": (Fraction(1, 2), 0)}]),
    (lambda p, n: 3 + 0.5 * p ** 2 + 4 * np.log2(n), [{"p": (2, 0)}, {"n": (0, 1)}]),
    (lambda p, n: 1 + 2 * p * np.log2(p) * n + 3 * p * np.log2(p), [{"p": (1, 1), "n": (1, 0)}, {"p": (1, 1)}]),
    (lambda p, n: 7 + 0.3 * n ** 1.5, [{"n": (Fraction(3, 2), 0)}]),
])
def test_two_parameter_laws_recovered_on_a_grid(law, expected):
    X = np.array([(p, n) for p in GRID_P for n in GRID_N])
    y = law(X[:, 0], X[:, 1])
    model = PMNFFitter().fit_arrays(X, y, ["p", "n"]).model
    _, terms = model.terms()
    got = sorted(sorted((name, (i, j)) for name, i, j in t.exponents) for t in terms)
    want = sorted(sorted((k, (Fraction(v[0]), Fraction(v[1]))) for k, v in e.items()) for e in expected)
    assert got == want


def test_three_parameters_multiplicative_law():
    vals = np.array([2.0, 4, 8, 16])
    X = np.array([(a, b, c) for a in vals for b in vals for c in vals])
    y = 1 + 0.25 * X[:, 0] * X[:, 1] * np.log2(X[:, 2])
    model = PMNFFitter().fit_arrays(X, y, ["a", "b", "c"]).model
    assert model(a=32, b=32, c=32) == pytest.approx(1 + 0.25 * 32 * 32 * 5, rel=1e-6)


def test_sparse_lines_through_the_space_are_enough():
    """Extra-P's sparse modeling: a line of points per parameter plus a few others."""
    pts = [(p, 10.0) for p in GRID_P] + [(4.0, n) for n in GRID_N[1:]] + [(64.0, 160.0), (16.0, 40.0)]
    X = np.array(pts)
    y = 2 + 0.5 * X[:, 0] * X[:, 1] ** 0.5
    model = PMNFFitter().fit_arrays(X, y, ["p", "n"]).model
    assert model(p=256, n=640) == pytest.approx(2 + 0.5 * 256 * 640 ** 0.5, rel=1e-6)


def test_every_region_and_metric_modelled():
    x = X_SMALL
    from perfcompose.data.experiment import Point, Series
    series = (Series("time", tuple(Point((v,), (2 * v, 2 * v)) for v in x), "a"),
              Series("bytes", tuple(Point((v,), (v * v,)) for v in x), "a"),
              Series("time", tuple(Point((v,), (5.0,)) for v in x), "b"))
    results = PMNFFitter().fit(Experiment(("x",), series)).results_
    assert [(r.region, r.metric) for r in results] == [("a", "time"), ("a", "bytes"), ("b", "time")]
    assert all({"smape", "adj_r2", "cv_error", "rss"} <= set(r.stats) for r in results)
    assert results[1].model.order("x") == (2, 0)


def test_consensus_pick_prefers_the_supported_hypothesis_nearest_the_median():
    from perfcompose.fit.selection_policy import consensus_pick
    delta = np.array([0.0, 0.3, 0.4, 3.0])
    preds = np.array([10.0, 20.0, 12.0, 11.0])
    # the weighted median is 12 (weights exp(-delta/2)); 12 is among the indistinguishable ones
    assert consensus_pick(delta, preds, indistinct=0.5, shrink=0.0, risk=0.0, factor=2.0) == 2


def test_consensus_pick_caps_the_risk_of_a_large_overshoot():
    from perfcompose.fit.selection_policy import consensus_pick
    delta = np.array([0.0, 0.1, 0.2, 0.3])
    preds = np.array([100.0, 1.0, 1.1, 120.0])
    # half the weight predicts ~1: anything above 2x the 30 % quantile is too risky
    pick = consensus_pick(delta, preds, indistinct=0.5, shrink=0.0, risk=0.3, factor=2.0)
    assert preds[pick] <= 2.2
    # without the cap the median (100) would be chosen
    assert preds[consensus_pick(delta, preds, indistinct=0.5, shrink=0.0, risk=0.0, factor=2.0)] == 100.0


def test_consensus_pick_spread_keeps_the_cap_near_the_cautious_end():
    from perfcompose.fit.selection_policy import consensus_pick
    delta = np.array([0.0, 0.1, 0.2, 0.3, 0.4])
    preds = np.array([10.0, 30.0, 32.0, 34.0, 36.0])
    # the 40 % quantile alone caps at 30; within 1.5x the 5 % quantile (10) only 10 is left
    loose = consensus_pick(delta, preds, indistinct=0.5, shrink=0.0, risk=0.4, factor=1.0)
    assert preds[loose] == 30.0
    tight = consensus_pick(delta, preds, indistinct=0.5, shrink=0.0, risk=0.4, factor=1.0, spread=1.5,
                            spread_risk=0.05)
    assert preds[tight] == 10.0


def test_noisy_law_without_constant_keeps_its_form():
    """A cost with no constant part (c0 = 0): noise must not make the fitter reject the true form."""
    rng = np.random.default_rng(11)
    hits = 0
    for _ in range(20):
        values = [5.0 * x * (1 + 0.05 * rng.standard_normal(5)) for x in X_LARGE]
        model = PMNFFitter(aggregate="mean").fit_arrays(X_LARGE, np.array(values), ["x"]).model
        hits += _lead(model)[-1] == (Fraction(1), Fraction(0))
    assert hits >= 10


def test_negative_constant_forms_rejected_under_noise():
    """Run times have no negative part: a form that fits only with a constant far below zero loses."""
    rng = np.random.default_rng(5)
    values = np.array([(30.0 + 2.0 * x ** 2) * (1 + 0.02 * rng.standard_normal(5)) for x in X_SMALL])
    result = PMNFFitter(aggregate="mean").fit_arrays(X_SMALL, values, ["x"])
    assert result.chosen.constant > -0.1 * values.mean(axis=1).min()


def test_tilt_leans_a_misspecified_fit_toward_the_largest_points():
    """c0 + c*x^2 fitted to x^2 + 30x: leaning on the largest points extrapolates closer."""
    y = X_SMALL ** 2 + 30 * X_SMALL
    far = 16 * X_SMALL.max()
    truth = far ** 2 + 30 * far
    errors = []
    for tilt in (0.0, 1.0, 2.0):
        fitter = PMNFFitter(exponents_i=(2,), exponents_j=(0,), max_terms=1, tilt=tilt)
        c = fitter.fit_arrays(X_SMALL, y, ["x"]).chosen
        assert c.hypothesis == (((0, (Fraction(2), Fraction(0))),),)
        errors.append(abs(c.constant + c.coefficients[0] * far ** 2 - truth) / truth)
    assert errors[0] > errors[1] > errors[2]


def test_overshoot_cap_grows_with_the_noise_for_one_parameter_only(monkeypatch):
    import perfcompose.fit.selection_policy as consensus
    seen = []
    original = consensus.consensus_pick

    def spy(delta, preds, indistinct, shrink, risk, factor, **cap):
        seen.append((risk, factor, cap.get("spread", np.inf)))
        return original(delta, preds, indistinct, shrink, risk, factor, **cap)

    monkeypatch.setattr(consensus, "consensus_pick", spy)
    rng = np.random.default_rng(3)
    x = X_SMALL[:5]
    values = (2.0 + x ** 1.5)[:, None] * (1 + 0.1 * rng.standard_normal((5, 5)))
    result = PMNFFitter(aggregate="mean").fit_arrays(x, values, ["x"])
    sigma = np.sqrt(np.mean(values.var(axis=1, ddof=1) / values.mean(axis=1) ** 2) * (np.pi / 2) / 5)
    assert seen and seen[-1] == (0.05, pytest.approx(1.0 + 25.0 * sigma), np.inf)
    assert result.chosen.n_terms >= 1
    seen.clear()
    p, n = np.meshgrid([4.0, 8, 16, 32, 64], [10.0, 20, 40, 80, 160], indexing="ij")
    X = np.column_stack([p.ravel(), n.ravel()])
    base = (50.0 + X[:, 0] ** 0.5 * X[:, 1])[:, None]
    for _ in range(10):
        PMNFFitter(aggregate="mean").fit_arrays(X, base * (1 + 0.1 * rng.standard_normal((25, 5))), ["p", "n"])
    policy = PMNFFitter().policy
    assert seen and all(s == (policy.multi_overshoot_risk, 1.0, policy.multi_overshoot_spread) for s in seen)


def test_skipping_two_term_fits_that_cannot_matter_changes_nothing(monkeypatch):
    """On noisy data the two-term search is skipped when no two-term score can reach the
    plausible window; the chosen model must equal that of the full search."""
    import perfcompose.fit.pmnf as pmnf
    rng = np.random.default_rng(5)
    x = X_SMALL[:5]
    data = [(1.0 + 0.2 * x ** 1.5 + 3.0 * np.log2(x))[:, None] * (1 + s * rng.standard_normal((5, 5)))
            for s in (0.01, 0.05, 0.1) for _ in range(8)]
    fast = [PMNFFitter(aggregate="mean").fit_arrays(x, v, ["x"]) for v in data]
    original = pmnf.fit_one_and_two_terms
    asked = []

    def full(F, y, w, pa, pb, sc, need_pairs):   # every pair fitted; whether the fitter would have skipped them
        return original(F, y, w, pa, pb, sc, lambda *fits: asked.append(not need_pairs(*fits) and pa is not None) or 1)

    monkeypatch.setattr(pmnf, "fit_one_and_two_terms", full)
    slow = [PMNFFitter(aggregate="mean").fit_arrays(x, v, ["x"]) for v in data]
    assert any(asked)  # the skip happened on some of them
    for a, b in zip(fast, slow):
        assert a.chosen == b.chosen
        # without the two-term fits the runners-up are the constant and one-term ones, in order
        fewer = [c for c in b.alternatives if c.n_terms < 2]
        assert list(a.alternatives[:len(fewer)]) == fewer


def test_diagonal_design_is_fitted_along_one_parameter_with_a_warning_naming_the_other():
    p = np.array([1000.0, 2000, 4000, 8000, 16000])
    X = np.column_stack([p, p / 100])
    result = PMNFFitter().fit_arrays(X, 1e-6 * p ** 2, ["p", "q"])
    _, (term,) = result.model.terms()
    assert term.exponent("p") == (Fraction(2), Fraction(0)) and term.exponent("q") == (0, 0)
    assert result.stats["adj_r2"] == pytest.approx(1.0)
    assert len(result.warnings) == 1 and "diagonal" in result.warnings[0] and "q" in result.warnings[0]


def test_parameter_without_a_line_is_left_out_by_name():
    # a grid in p and n, and r changing only across three points that are not on a line along r
    p, n = np.meshgrid([4.0, 8, 16, 32], [10.0, 20, 40, 80], indexing="ij")
    r = np.where((p == 4) & (n == 10), 1.0, np.where((p == 8) & (n == 20), 2.0, np.where(p == 16, 3.0, 4.0)))
    X = np.column_stack([p.ravel(), n.ravel(), r.ravel()])
    result = PMNFFitter().fit_arrays(X, 2 + X[:, 0] * X[:, 1], ["p", "n", "r"])
    assert any("r left out" in w for w in result.warnings)
    assert all(t.exponent("r") == (0, 0) for t in result.model.terms()[1])


def test_scattered_points_without_any_line_are_refused_by_parameter_names():
    X = np.array([[1.0, 1], [1, 2], [2, 2], [2, 3], [3, 3], [3, 1]])  # neither determines the other
    with pytest.raises(FitError, match="along any of p, q"):
        PMNFFitter().fit_arrays(X, X[:, 0] + X[:, 1], ["p", "q"])


def test_four_parameters_keep_fewer_candidates_each_and_find_the_law():
    axes = [np.array([2.0, 4, 8, 16, 32])] * 4
    grid = np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, 4)
    y = 1.5 + 1.5 * grid[:, 0] ** 2 * grid[:, 3]
    result = PMNFFitter().fit_arrays(grid, y, ["x", "y", "z", "t"])
    _, (term,) = result.model.terms()
    assert term.exponent("x") == (Fraction(2), Fraction(0)) and term.exponent("t") == (Fraction(1), Fraction(0))


def test_the_chosen_class_does_not_change_between_median_and_mean():
    """Clean measurements of 0.213 + 0.2012*x^2 on a narrow range (x = 20 ... 60, 0.1 % noise, 6
    repetitions): the noise that decides which hypotheses the data tell apart is the same for
    both aggregates. (At 1 % noise x^2, x^(7/4)*log2(x) and x^(3/2)*log2(x)^2 lie within two
    chi-square units of each other on this range, and either aggregate may pick any of them.)"""
    x = np.array([20.0, 30, 40, 50, 60])
    flips = 0
    for seed in range(30):
        rng = np.random.default_rng(seed)
        values = (0.213 + 0.2012 * x ** 2)[:, None] * (1 + 0.001 * rng.standard_normal((5, 6)))
        classes = {PMNFFitter(aggregate=a).fit_arrays(x, values, ["x"]).chosen.hypothesis for a in ("median", "mean")}
        flips += len(classes) > 1
    assert flips == 0


def test_screening_large_searches_keeps_the_exact_choice(monkeypatch):
    import perfcompose.fit.batched as batched
    axes = [np.array([2.0, 4, 8, 16, 32])] * 4
    grid = np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, 4)
    rng = np.random.default_rng(5)
    y = 3 + 0.5 * grid[:, 0] * np.log2(grid[:, 0]) + 0.1 * grid[:, 1] ** 1.5 * grid[:, 2]
    values = y[:, None] * (1 + 0.02 * rng.standard_normal((len(y), 5)))
    screened = PMNFFitter().fit_arrays(grid, values, ["x", "y", "z", "t"])
    monkeypatch.setattr(batched, "SCREEN_CELLS", 1 << 62)
    exact = PMNFFitter().fit_arrays(grid, values, ["x", "y", "z", "t"])
    assert screened.chosen == exact.chosen
    assert [c.hypothesis for c in screened.alternatives[:5]] == [c.hypothesis for c in exact.alternatives[:5]]


def test_parameter_with_two_values_is_left_out_by_name_where_others_have_lines():
    p, n = np.meshgrid([4.0, 8, 16, 32, 64], [10.0, 20], indexing="ij")
    X = np.column_stack([p.ravel(), n.ravel()])
    result = PMNFFitter().fit_arrays(X, 3 + 2 * X[:, 0], ["p", "n"])
    _, (term,) = result.model.terms()
    assert term.exponent("p") == (Fraction(1), Fraction(0))
    assert any("n left out" in w for w in result.warnings)


def test_a_zero_value_weighs_as_the_smallest_positive_one():
    # a count that is 0 at the smallest size: relative to zero every residual is infinite
    e = Experiment.single(["x"], [((x,), (x - 1.0,)) for x in (1, 2, 4, 8, 16, 32)])
    assert PMNFFitter().fit(e).results_[0].text(4) == "-1 + 1 * x^(1)"


def test_coordinates_that_overflow_a_factor_leave_it_out_without_warnings():
    import warnings

    e = Experiment.single(["x", "y"], [((x, y), (1.0 + x * y,)) for x in (1e100, 1e101, 1e102, 1e103)
                                       for y in (1.0, 2.0, 3.0, 4.0)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert PMNFFitter().fit(e).results_[0].text(4) == "1 * x^(1) * y^(1)"


def test_exponent_sets_as_extraps_poly_and_log_exponents():
    e = Experiment.single(["x"], [((x,), (2.0 + 0.5 * x ** 1.5,)) for x in (4, 8, 16, 32, 64)])
    assert PMNFFitter(exponents_i="0, 1/2, 3/2", exponents_j="0").fit(e).model_.to_extrap(digits=4) == \
        "2 + 0.5 * x^(3/2)"
    assert PMNFFitter(exponents_i="0,1,2", exponents_j=[0, 1]).factors == [
        (Fraction(0), Fraction(1)), (Fraction(1), Fraction(0)), (Fraction(1), Fraction(1)),
        (Fraction(2), Fraction(0)), (Fraction(2), Fraction(1))]


@pytest.mark.parametrize("text, message", [
    ("1, x", "'x' is not an exponent"), ("1,,2", "'' is not an exponent"), ("-1", "outside 0..10"),
    ("0", "no term besides the constant"),
])
def test_bad_exponent_sets_are_refused_with_what_to_give(text, message):
    fitter = PMNFFitter(exponents_i=text, exponents_j="0")
    with pytest.raises(FitError, match=message):
        fitter.fit_arrays(X_SMALL, np.ones(len(X_SMALL)), ["x"])
