"""Bootstrap intervals of fitted models: coverage on data of a known law, JSON and unit carry."""
import numpy as np
import pytest

from perfcompose.data.experiment import Experiment
from perfcompose.fit import PMNFFitter
from perfcompose.fit.uncertainty import basis, bootstrap, fit_with_uncertainty
from perfcompose.model import Model

XS = [2.0 ** k for k in range(10, 19)]


def _experiment(rng, law, noise=0.05, reps=5):
    pts = [((x,), tuple(law(x) * rng.lognormal(0, noise, reps))) for x in XS]
    return Experiment.single(["x"], pts, metric="time", unit="ns")


def test_basis_is_the_models_terms_with_unit_coefficients():
    terms = basis(Model.parse("3 + 2*x*log2(x)"))
    assert [float(t(x=8.0)) for t in terms] == [1.0, 24.0]
    assert basis(Model.parse("exp(x)")) is None


def test_the_90_percent_interval_covers_the_true_law_at_least_85_percent_of_the_time():
    rng = np.random.default_rng(7)
    def law(x):
        return 300 + 536 * np.asarray(x)
    inside = []
    for _ in range(30):
        model = fit_with_uncertainty(PMNFFitter(max_terms=1), _experiment(rng, law))
        lo, hi = model.interval(x=np.array(XS), level=0.9)
        inside.extend((lo <= law(XS)) & (law(XS) <= hi))
    assert np.mean(inside) >= 0.85


def test_interval_narrows_with_less_noise():
    rng = np.random.default_rng(3)
    def law(x):
        return 536 * np.asarray(x)
    widths = []
    for noise in (0.2, 0.01):
        model = fit_with_uncertainty(PMNFFitter(max_terms=1), _experiment(rng, law, noise))
        lo, hi = model.interval(x=65536.0)
        widths.append((hi - lo) / law(65536.0))
    assert widths[1] < widths[0] / 3


def test_interval_survives_json_and_unit_conversion():
    rng = np.random.default_rng(5)
    model = fit_with_uncertainty(PMNFFitter(max_terms=1), _experiment(rng, lambda x: 536 * np.asarray(x)))
    model = model.with_meta(unit="ns")
    back = Model.from_json(model.to_json_text())
    assert back.interval(x=4096.0) == pytest.approx(model.interval(x=4096.0))
    us = model.in_unit("us")
    assert us.interval(x=4096.0) == pytest.approx(tuple(v / 1000 for v in model.interval(x=4096.0)))


def test_a_model_without_ensemble_has_no_interval():
    assert Model.parse("2*x").interval(x=3.0) is None
    # a changed expression drops members that described the old one
    rng = np.random.default_rng(1)
    model = fit_with_uncertainty(PMNFFitter(max_terms=1), _experiment(rng, lambda x: 5 * np.asarray(x)))
    assert model.with_meta(expr=model.expr * 2).interval(x=3.0) is None


def test_bootstrap_resamples_repetitions():
    exp = Experiment.single(["x"], [((x,), (x, x)) for x in XS], metric="time")
    ens = bootstrap(Model.parse("x"), exp)
    # identical repetitions and an exact law leave nothing to resample: zero width
    lo, hi = Model.parse("x").with_meta(ensemble=ens).interval(x=1024.0)
    assert hi - lo == pytest.approx(0, abs=1e-6)


def test_the_members_scatter_about_the_model_the_fitter_chose():
    # a model the fitter chose by weighing the points otherwise than the members' plain relative
    # least squares (here: a line 10 % above every point) gets an interval around its own
    # prediction, not around a refit of the data
    rng = np.random.default_rng(2)
    exp = _experiment(rng, lambda x: 1000 + 5 * np.asarray(x), noise=0.01)
    chosen = Model.parse("1100 + 5.5*x")
    lo, hi = chosen.with_meta(ensemble=bootstrap(chosen, exp)).interval(x=np.array(XS))
    assert np.all((lo <= chosen(x=np.array(XS))) & (chosen(x=np.array(XS)) <= hi))


def test_a_constant_models_interval_has_the_shape_of_the_sizes_also_after_json():
    exp = Experiment.single(["x"], [((x,), (5.0, 5.5, 4.5)) for x in XS], metric="time")
    model = fit_with_uncertainty(PMNFFitter(max_terms=1), exp)
    for m in (model, Model.from_json(model.to_json_text())):
        lo, hi = m.interval(x=np.array(XS))
        assert lo.shape == hi.shape == (len(XS),)
