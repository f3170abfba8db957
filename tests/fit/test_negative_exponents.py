"""Strong scaling: negative exponents (Extra-P's allow_negative_exponents), opt-in and automatic."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from perfcompose.fit import PMNFFitter
from perfcompose.fit.trend import falls_rows

P = np.array([1000.0, 2000, 4000, 8000, 16000])
P_SMALL = np.array([2.0, 4, 8, 16, 32])


def _terms(result):
    constant, terms = result.model.terms()
    return constant, sorted((t.exponent("p"), t.coefficient) for t in terms)


def _noisy(y, rel, reps=5, seed=0):
    rng = np.random.default_rng(seed)
    return y[:, None] * (1 + rel * rng.standard_normal((len(y), reps)))


LAWS = {
    "p^-1": (lambda p: 5e6 / p, (Fraction(-1), Fraction(0))),
    "p^-2": (lambda p: 2.56e8 / p ** 2, (Fraction(-2), Fraction(0))),
    "c+p^-1": (lambda p: 40 + 3e5 / p, (Fraction(-1), Fraction(0))),
}


@pytest.mark.parametrize("law", LAWS)
@pytest.mark.parametrize("noise", [0.0, 0.01])
def test_falling_data_get_the_negative_lead_term_automatically(law, noise):
    f, lead = LAWS[law]
    values = f(P) if noise == 0 else _noisy(f(P), noise)
    result = PMNFFitter().fit_arrays(P, values, ["p"])
    constant, terms = _terms(result)
    assert [e for e, _ in terms] == [lead]
    assert result.stats["adj_r2"] > 0.99
    assert not result.warnings


@pytest.mark.parametrize("law", LAWS)
def test_extrap_strong_scaling_laws_on_its_own_points(law):
    """Extra-P's test of negative exponents uses p = 2 ... 32 and opts in."""
    f, lead = LAWS[law]
    result = PMNFFitter(allow_negative_exponents=True).fit_arrays(P_SMALL, f(P_SMALL), ["p"])
    constant, terms = _terms(result)
    assert [e for e, _ in terms] == [lead]


def test_opting_out_leaves_a_constant_with_a_warning():
    result = PMNFFitter(allow_negative_exponents=False).fit_arrays(P, 2.56e8 / P ** 2, ["p"])
    constant, terms = _terms(result)
    assert all(e[0] >= 0 for e, _ in terms)
    assert result.stats["adj_r2"] < 0.5
    assert result.warnings and "adjusted R²" in result.warnings[0]


def test_rising_data_never_get_negative_terms_automatically():
    rng = np.random.default_rng(3)
    for _ in range(20):
        y = (10 + 0.1 * P ** 0.5) * (1 + 0.05 * rng.standard_normal(5))
        result = PMNFFitter().fit_arrays(P, y, ["p"])
        _, terms = _terms(result)
        assert all(e[0] >= 0 and e[1] >= 0 for e, _ in terms)


def test_falling_along_one_of_two_parameters():
    p, n = np.meshgrid([4.0, 8, 16, 32, 64], [10.0, 20, 40, 80, 160], indexing="ij")
    X = np.column_stack([p.ravel(), n.ravel()])
    y = 3 + 50 * X[:, 1] / X[:, 0]
    result = PMNFFitter().fit_arrays(X, y, ["p", "n"])
    _, terms = result.model.terms()
    assert {t.exponent("p") for t in terms} == {(Fraction(-1), Fraction(0))}
    assert {t.exponent("n") for t in terms} == {(Fraction(1), Fraction(0))}


def test_falls_needs_a_clear_monotone_drop():
    rows = [1 / P, [4.1, 3.9, 4.0, 4.0, 4.1],  # flat within noise
            [10.0, 1, 10, 1, 8],                 # drops, but not monotonically
            1 + P]
    assert falls_rows(P, np.array(rows)).tolist() == [True, False, False, False]
