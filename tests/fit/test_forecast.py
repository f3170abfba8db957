"""Forecasting methods of 001 section 3: R's spline, loess and lm(poly), and the automatic choice.

Reference values were computed with R 4.2 (Debian r-base-core) on the same points:
    x <- c(2203, 2281, 3217, 4253, 4423, 9689); y <- c(1.882, 2.094, 5.284, 10.77, 12.16, 96.95)
    spline(x, y, xout = 11213)$y                                       126.1037954
    spline(x, y, method = "natural", xout = 11213)$y                   127.2016261
    predict(loess(y ~ x, control = loess.control(surface = "direct")),
            data.frame(x = 11213))                                     136.5744332
    predict(lm(y ~ poly(x, 3)), data.frame(x = 11213))                 144.5761549
and for the five LBM points (p, T) of 001 Table 2, where R warns and uses a pseudoinverse:
    p <- c(32768, 65536, 98304, 131072, 196608); T <- c(16.285, 9.99, 6.82, 6.80, 5.284)
    predict(loess(T ~ p, control = loess.control(surface = "direct")),
            data.frame(p = 262144))                                    3.633262
"""
from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfcompose.errors import FitError
from perfcompose.fit.forecast import (
    ForecastError,
    Lm,
    LmPoly,
    Loess,
    MeanOf,
    Spline,
    choose,
    forecaster,
)

RM_X = [2203, 2281, 3217, 4253, 4423, 9689]
RM_Y = [1.882, 2.094, 5.284, 10.77, 12.16, 96.95]


@pytest.mark.parametrize("method, r_value", [
    (Spline(), 126.1037954), (Spline("natural"), 127.2016261), (Loess(), 136.5744332), (LmPoly(3), 144.5761549),
])
def test_methods_agree_with_r_on_rabin_miller_points(method, r_value):
    assert float(method.fit(RM_X, RM_Y).predict(11213.0)) == pytest.approx(r_value, rel=1e-9)


def test_loess_in_rs_pseudoinverse_regime_matches_r():
    p = [32768, 65536, 98304, 131072, 196608]
    t = [16.285, 9.99, 6.82, 6.80, 5.284]
    assert float(Loess().fit(p, t).predict(262144.0)) == pytest.approx(3.633262, rel=1e-6)


def test_spline_interpolates_every_point():
    s = Spline().fit(RM_X, RM_Y)
    np.testing.assert_allclose(s.predict(RM_X), RM_Y, rtol=1e-13)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-2, 2), min_size=4, max_size=4))
def test_fmm_end_conditions_reproduce_a_cubic_everywhere(coef):
    # the end conditions match the third derivative of the cubic through the outer four points,
    # so a cubic is reproduced exactly, inside the data and beyond it
    x = np.array([1.0, 2.0, 3.5, 4.0, 6.0, 7.5])
    f = np.polynomial.Polynomial(coef)
    u = np.array([0.5, 2.7, 5.0, 9.0])
    np.testing.assert_allclose(Spline().fit(x, f(x)).predict(u), f(u), atol=1e-9 * (1 + np.abs(f(u)).max()))


def test_natural_spline_extrapolates_linearly():
    s = Spline("natural").fit(RM_X, RM_Y)
    a, b, c = s.predict([10000.0, 11000.0, 12000.0])
    assert (c - b) == pytest.approx(b - a, rel=1e-12)


def test_lm_poly_reproduces_a_cubic_and_lm_a_line():
    x = np.linspace(1, 10, 7)
    assert float(LmPoly(3).fit(x, x ** 3 - 2 * x).predict(20.0)) == pytest.approx(20.0 ** 3 - 40, rel=1e-10)
    assert float(Lm().fit(x, 3 * x + 1).predict(50.0)) == pytest.approx(151.0, rel=1e-12)


def test_loess_of_degree_two_reproduces_a_quadratic():
    x = np.linspace(1, 20, 12)
    y = 0.5 * x ** 2 - x + 3
    assert float(Loess().fit(x, y).predict(25.0)) == pytest.approx(0.5 * 625 - 25 + 3, rel=1e-9)


def test_mean_is_the_mean_of_its_methods():
    m = MeanOf(Loess(), LmPoly(3)).fit(RM_X, RM_Y)
    assert float(m.predict(11213.0)) == pytest.approx((136.5744332 + 144.5761549) / 2, rel=1e-9)
    assert m.label == "mean(loess, lm(poly))"


def test_bad_points_are_refused():
    with pytest.raises(FitError, match="appears twice"):
        Spline().fit([1, 2, 2, 3], [1, 2, 3, 4])
    with pytest.raises(FitError, match="at least 4 points"):
        LmPoly(3).fit([1, 2, 3], [1, 2, 3])
    with pytest.raises(FitError, match="unknown forecast method"):
        forecaster("cubic")


def test_choice_takes_the_method_with_the_smallest_holdout_error():
    # T(n) = n^3 + n: the cubic fit predicts the held-out point exactly; a straight line cannot
    x = np.arange(1.0, 9.0)
    c = choose(x, x ** 3 + x, 10.0, methods=[Lm(), LmPoly(3)], epsilon=0.05)
    assert c.method == "lm(poly)" and c.holdout == (8.0,)
    assert c.value == pytest.approx(1010.0, rel=1e-9)
    assert abs(c.errors["lm(poly)"]) < 1e-9 and c.errors["lm"] < -0.05


class Scaled(Lm):
    """A straight line scaled by a factor: a method whose hold-out error is known in advance."""

    def __init__(self, factor: float):
        super().__init__()
        self.factor = factor

    @property
    def label(self) -> str:
        return f"lm*{self.factor:g}"

    def clone(self) -> Scaled:
        return Scaled(self.factor)

    def _predict(self, u):
        return super()._predict(u) * self.factor


def test_choice_falls_back_to_the_mean_of_the_two_nearest():
    # the least-squares line through (n, n^2), n = 1..4, predicts 20 at the held-out n = 5 (known 25):
    # scaled by 0.9 it is off by -28 %, by 1.6 by +28 %, and their mean (25) is exact
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    y = x ** 2
    assert float(Lm().fit(x[:4], y[:4]).predict(5.0)) == pytest.approx(20.0)
    c = choose(x, y, 6.0, methods=[Scaled(0.9), Scaled(1.6)], epsilon=0.05)
    assert c.method == "mean(lm*0.9, lm*1.6)" and c.rule.startswith("mean of the two nearest")
    assert c.errors["lm*0.9"] == pytest.approx(-0.28) and c.errors["lm*1.6"] == pytest.approx(0.28)
    # scaled by 0.9 and 1.2 (-28 %, -4 %): the best alone is within 5 %
    assert choose(x, y, 6.0, methods=[Scaled(0.9), Scaled(1.2)], epsilon=0.05).method == "lm*1.2"
    # 0.5 and 0.9 (-60 %, -28 %; mean -44 %): nothing is within 5 %, so no forecast
    with pytest.raises(ForecastError, match="within 5 %"):
        choose(x, y, 6.0, methods=[Scaled(0.5), Scaled(0.9)], epsilon=0.05)


def test_choice_discards_negative_times_as_nonsense():
    # the line through the first five points reaches -1.98 at n = 6: a negative time
    x = np.array([1.0, 2, 3, 4, 5, 6])
    y = np.array([10.0, 7, 4, 1.5, 1.2, 1.0])
    c = choose(x, y, 6.5, methods=[Lm(), Spline("natural")], epsilon=0.5)
    assert "lm" in c.discarded and "< 0" in c.discarded["lm"]
    assert c.method == "spline(natural)"


def test_real_life_strategies_train_on_several_known_points():
    x = np.arange(1.0, 11.0)
    y = 2 * x ** 2 + 3
    two = choose(x, y, 12.0, strategy="best-two", training=3)
    assert two.method.startswith("mean(") and two.value == pytest.approx(2 * 144 + 3, rel=0.05)
    three = choose(x, y, 12.0, strategy="three", training=3)
    assert three.method.startswith("three(") and three.value == pytest.approx(2 * 144 + 3, rel=0.05)


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="R (Debian r-base-core) is not installed")
def test_random_point_sets_agree_with_live_r_to_1e_9(tmp_path):
    rng = np.random.default_rng(7)
    x = np.sort(rng.choice(np.arange(1, 5000), 15, replace=False)).astype(float)
    y = 1e-3 * x ** 1.5 * (1 + rng.normal(0, 0.05, x.size))
    u = np.array([x[3] + 0.5, x[-1] * 1.1])
    np.savetxt(tmp_path / "x", x, fmt="%.17g")
    np.savetxt(tmp_path / "y", y, fmt="%.17g")
    script = (f"x <- scan('{tmp_path}/x', quiet=TRUE); y <- scan('{tmp_path}/y', quiet=TRUE); "
              f"u <- c({float(u[0])!r}, {float(u[1])!r}); options(digits=17); "
              "cat(spline(x, y, xout=u)$y, predict(loess(y ~ x, control=loess.control(surface='direct')), "
              "data.frame(x=u)), predict(lm(y ~ poly(x, 3)), data.frame(x=u)))")
    out = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True, check=True).stdout
    ref = np.array(out.split(), dtype=float).reshape(3, 2)
    for k, m in enumerate((Spline(), Loess(), LmPoly(3))):
        np.testing.assert_allclose(m.fit(x, y).predict(u), ref[k], rtol=1e-9)
