"""The estimator convention (fit/base.py): parameters from ``__init__``, derived clone, fitted
attributes only from ``fit`` and forgotten by a refit."""
import numpy as np
import pytest

from perfcompose.data import Experiment
from perfcompose.fit.base import Estimator, clone
from perfcompose.fit.forecast import Lm, LmPoly, Loess, MeanOf, Spline
from perfcompose.fit.pmnf import PMNFFitter
from perfcompose.fit.segmented import SegmentedFitter

X = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])
Y = 2.0 + X ** 2

ESTIMATORS = [Spline("natural"), Loess(span=0.9, degree=1), LmPoly(2), Lm(),
              MeanOf(Spline(), LmPoly(2)), PMNFFitter(exponents_i=("1/2", 1), max_terms=1, tilt=0.5),
              SegmentedFitter(min_points=5, margin=3.0), SegmentedFitter(PMNFFitter(max_terms=1))]


def _fitted(est: Estimator) -> list[str]:
    return sorted(n for n in vars(est) if n.endswith("_") and not n.startswith("__"))


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_clone_is_an_unfitted_copy_with_equal_params(est):
    if isinstance(est, PMNFFitter | SegmentedFitter):
        est.fit(Experiment.single(["x"], [((x,), (y,)) for x, y in zip(X, Y)]))
    else:
        est.fit(X, Y)
    assert _fitted(est)
    copy = clone(est)
    assert type(copy) is type(est) and copy is not est
    assert _fitted(copy) == []
    params, copied = est.get_params(), copy.get_params()
    assert params.keys() == copied.keys()
    for name, value in params.items():
        if isinstance(value, Estimator):
            assert copied[name] is not value and copied[name].get_params() == value.get_params()
        elif isinstance(value, tuple) and value and isinstance(value[0], Estimator):
            assert [c.get_params() for c in copied[name]] == [v.get_params() for v in value]
            assert all(c is not v for c, v in zip(copied[name], value))
        else:
            assert copied[name] == value


def test_params_are_stored_unchanged_under_their_init_names():
    f = PMNFFitter(exponents_i=("1/3", 2), exponents_j=(0, 1), max_terms=1)
    assert f.get_params()["exponents_i"] == ("1/3", 2)
    assert f.get_params()["max_terms"] == 1
    assert "factors_" not in vars(f)
    assert SegmentedFitter().get_params() == {"fitter": None, "min_points": 4, "margin": 10.0}


def test_a_loess_refit_forgets_the_warning_of_the_previous_fit():
    # ten points at span 0.3 leave three per neighbourhood: R's loess warns of near singularities
    # and goes on with a pseudoinverse; twenty points at the same span fit cleanly
    x = np.arange(1.0, 11.0)
    f = Loess(span=0.3, degree=1).fit(x, 1.0 + x ** 2)
    assert f.warning_.startswith("There are other near singularities")
    x = np.arange(1.0, 21.0)
    f.fit(x, 1.0 + x ** 2)
    assert not hasattr(f, "warning_")


def test_a_refit_resets_every_fitted_attribute():
    f = Spline().fit(X, Y)
    f.stale_ = "from an earlier fit"
    f.fit(X[:4], Y[:4])
    assert not hasattr(f, "stale_") and f.x_.size == 4


def test_an_estimator_with_keyword_catch_all_cannot_be_cloned():
    class Loose(Estimator):
        def __init__(self, **options):
            self.options = options

    with pytest.raises(TypeError, match="name every parameter"):
        clone(Loose(a=1))
