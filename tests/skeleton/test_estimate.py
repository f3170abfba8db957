"""T(n, p) = T(n)/p + Ā(n, p) (equation * of 001), the skeletons' formulas, the serial fraction."""
from __future__ import annotations

import math

import numpy as np
import pytest

from perfcompose.errors import FitError, InputError
from perfcompose.model import Model
from perfcompose.skeleton import RuntimeTable, Skeleton, estimate, penalties, penalty, quality, serial_fraction


def synthetic(ns=(10, 20, 30, 40, 50, 60), ps=(1, 2, 4, 8)) -> RuntimeTable:
    """T(n) = n^2/100 s and a penalty of 0.01·n + 0.05·p s: every part is a low-degree polynomial."""
    rows = []
    for n in ns:
        for p in ps:
            t = n * n / 100 if p == 1 else n * n / 100 / p + 0.01 * n + 0.05 * p
            rows.append((n, p, t))
    return RuntimeTable.from_rows(rows)


def test_equation_star_splits_time_into_work_and_penalty():
    assert float(penalty(3.6038, 10.059, 7)) == pytest.approx(3.6038 - 10.059 / 7)


def test_forecast_wrt_n_recovers_both_parts():
    est = estimate(synthetic(), 80, 4, method_t="lm-poly", method_a="lm")
    assert est.sequential.value == pytest.approx(64.0, rel=1e-9)           # T(80) = 80^2/100
    assert est.penalty.direction == "n" and est.penalty.value == pytest.approx(0.8 + 0.2, rel=1e-9)
    assert est.value == pytest.approx(16 + 1.0, rel=1e-9) and est.measured is None


def test_forecast_wrt_p_when_the_target_p_was_never_measured():
    est = estimate(synthetic(), 60, 16, method_t="lm-poly", method_a="lm")
    # T(60) = 36 is measured; Ā(60, p) = 0.6 + 0.05 p along p = 2, 4, 8 (and 0 at p = 1, relative point)
    assert est.sequential.method == "measured" and est.penalty.direction == "p"
    assert 1.0 in est.penalty.x and est.penalty.y[est.penalty.x.index(1.0)] == 0.0


def test_a_measured_target_is_left_out_and_its_error_reported():
    table = synthetic()
    est = estimate(table, 60, 8, method_t="lm-poly", method_a="lm")
    assert est.measured == table.times[(60.0, 8)]
    assert est.penalty.direction == "n" and 60.0 not in est.penalty.x and 50.0 in est.penalty.x
    assert est.error == pytest.approx((est.value - est.measured) / est.measured)
    assert abs(est.error) < 1e-9


def test_auto_choice_and_its_holdout_errors():
    est = estimate(synthetic(), 70, 8)
    assert est.sequential.errors and est.penalty.errors
    assert est.value == pytest.approx(49 / 8 + 0.7 + 0.4, rel=1e-6)


def test_farm_shares_t_of_n_over_p():
    # farm: T(n, p) = T(n/p) + Ā; with T(n) = n^2/100, T(40/4) = 1
    T = lambda n: np.asarray(n, float) ** 2 / 100  # noqa: E731
    assert float(Skeleton("farm").share(T, 40, 4)) == pytest.approx(1.0)
    assert float(Skeleton().share(T, 40, 4)) == pytest.approx(4.0)


def test_skeleton_formulas_as_models():
    T = Model.parse("0.01*n^2")
    A = Model.parse("0.01*n + 0.05*p")
    assert Skeleton().time(T, A)(n=40, p=4) == pytest.approx(4 + 0.4 + 0.2)
    assert Skeleton("farm").time(T, A)(n=40, p=4) == pytest.approx(1 + 0.4 + 0.2)
    # W(n, p) = T(n) + p·Ā
    assert Skeleton("parmap").work(T, A)(n=40, p=4) == pytest.approx(16 + 4 * 0.6)
    assert Skeleton("dc", r=3, d=2).name == "dc(r=3, d=2)"
    with pytest.raises(InputError):
        Skeleton("dc", r=1)
    with pytest.raises(InputError):
        Skeleton("pipeline")


def test_karp_flatt_serial_fraction():
    # perfect speedup: f = 0; no speedup at all: f = 1
    assert float(serial_fraction(25.0, 100.0, 4)) == pytest.approx(0.0)
    assert float(serial_fraction(100.0, 100.0, 4)) == pytest.approx(1.0)
    with pytest.raises(InputError):
        serial_fraction(1.0, 2.0, 1)


def test_quality_rows_per_point():
    rows = quality(synthetic())
    r = next(r for r in rows if r.n == 20 and r.p == 4)
    assert r.penalty == pytest.approx(0.2 + 0.2) and r.speedup == pytest.approx(4 / (1 + 0.4))
    assert r.serial_fraction == pytest.approx((1.4 / 4 - 0.25) / 0.75)


def test_penalties_at_relative_reference_skip_p1():
    pen = penalties(synthetic())
    assert all(p != 1 for _, p in pen) and pen[(10.0, 2)] == pytest.approx(0.1 + 0.1)


def test_no_direction_to_forecast_the_penalty():
    table = RuntimeTable.from_rows([(10, 1, 1.0), (20, 1, 4.0), (30, 1, 9.0), (10, 4, 0.5)])
    with pytest.raises(FitError, match="fewer than 2 penalties"):
        estimate(table, 30, 4, method_t="lm", method_a="lm")


def test_negative_forecast_is_refused_as_nonsense():
    table = RuntimeTable.from_rows([(n, 1, t) for n, t in ((1, 5.0), (2, 3.0), (3, 1.0), (4, 0.5))]
                                   + [(n, 2, 3.0) for n in (1, 2, 3, 4)])
    with pytest.raises(FitError, match="nonsense"):
        estimate(table, 8, 2, method_t="lm", method_a="lm")


def test_unknown_method_is_an_input_error():
    with pytest.raises(InputError, match="unknown method"):
        estimate(synthetic(), 70, 8, method_t="cubic")
    assert math.isfinite(estimate(synthetic(), 70, 8, method_t="spline", method_a="loess").value)
