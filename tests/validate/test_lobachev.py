"""001's case studies redone from the printed numbers (Tables 1-4, Figures 4 and 7(c))."""
from __future__ import annotations

import pytest

from perfcompose.validate.lobachev import (
    gauss,
    karatsuba_nonuniform,
    karatsuba_uniform,
    lbm,
    rabin_miller,
    reproduce,
    serial_fractions,
)


def test_table4_has_all_twelve_combinations_in_the_papers_order():
    rows = [r for r in rabin_miller() if r.quantity == "T(11213, 8)"]
    assert [r.method for r in rows] == [f"{t} + {a}" for t in ("spline", "loess", "lm(poly)")
                                        for a in ("spline", "loess", "lm(poly)", "mean")]


def test_table4_lm_poly_plus_mean_gives_21_78_seconds():
    row = next(r for r in rabin_miller() if r.method == "lm(poly) + mean")
    assert row.ours == pytest.approx(21.78, rel=1e-4)          # the paper: 21.78 s
    assert abs(row.error) < 1e-4                                # the paper: 0.01 %
    assert row.reproduced


def test_table4_lm_poly_and_loess_rows_lie_within_input_rounding():
    rows = [r for r in rabin_miller() if r.quantity == "T(11213, 8)" and not r.method.startswith("spline")]
    assert all(r.reproduced for r in rows)
    penalties = [r for r in rabin_miller() if r.quantity == "Ā(11213, 8)"]
    assert len(penalties) == 4 and all(r.reproduced for r in penalties)


def test_table4_spline_t_is_not_rs_default_spline():
    # the paper's spline T(11213) = 127.25 lies outside the default (fmm) spline's rounding range
    # but inside R's natural spline's: reported, not hidden
    rows = {r.method: r for r in rabin_miller() if r.quantity == "T(11213)"}
    assert rows["spline"].reproduced is False and rows["spline(natural)"].reproduced is True


def test_lbm_lm_poly_forecast_wrt_p():
    rows = {(r.quantity, r.method): r for r in lbm()}
    t = rows[("T(n, 262144)", "T(n)/p + lm(poly, 3)")]
    assert t.ours == pytest.approx(5.2, abs=0.05) and t.reproduced    # the paper: 5.196 s, -1.47 %
    assert -0.02 < t.error < 0
    assert all(r.reproduced for (q, m), r in rows.items() if m == "computed")  # Figure 4's Ā values


def test_lbm_direct_estimate_fails_by_about_31_percent():
    best = next(r for r in lbm() if r.quantity.endswith("all-best error"))
    assert best.method == "loess" and best.error == pytest.approx(-0.31, abs=0.005) and best.reproduced


def test_karatsuba_nonuniform_lm_poly_long_distance_forecast():
    rows = {r.method: r for r in karatsuba_nonuniform()}
    assert 36.4 <= rows["lm(poly)"].ours <= 36.7 and rows["lm(poly)"].reproduced
    assert rows["spline"].reproduced  # its error, 8.984 % in the paper, within input rounding


def test_omitted_inputs_are_said_not_invented():
    assert any("not printed" in r.note and r.ours is None for r in karatsuba_uniform())
    assert any("not printed" in r.note and r.ours is None for r in gauss())
    assert all(r.reproduced is None for r in gauss())


def test_figure_7c_serial_fractions_from_table4():
    rows = {r.quantity: r for r in serial_fractions()}
    for q in ("f(9689, 7)", "f(9689, 8)", "Ā(9689, 7)", "Ā(9689, 8)"):
        assert rows[q].reproduced, q
    assert rows["f(9689, 7)"].ours == pytest.approx(0.009379, abs=6e-5)
    assert rows["f(9689, 8)"].ours == pytest.approx(0.029992, abs=6e-5)


def test_every_row_serialises():
    for r in reproduce():
        rec = r.to_json()
        assert rec["case"] and "reproduced" in rec
