"""Jackknife+ members of a skeleton forecast: every prediction composed from one has a width."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from perfcompose.compose import Composer, load_design
from perfcompose.ensemble import RebuiltEnsemble
from perfcompose.skeleton import RuntimeTable, SkeletonSource
from perfcompose.skeleton.jackknife import column_groups
from perfcompose.skeleton.table import SEQ

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NS = (1024, 2048, 4096, 8192, 16384, 32768)


def _table(noise: float, seed: int = 1, law: str = "nlogn") -> RuntimeTable:
    """T(n) measured (2e-8 n log2 n, or 2e-7 n), T(n, p) = T(n)/p + 2e-9 n p, with relative noise."""
    rng = np.random.default_rng(seed)

    def t(n: float) -> float:
        return 2e-8 * n * math.log2(n) if law == "nlogn" else 2e-7 * n

    rows = [(n, SEQ, t(n)) for n in NS]
    rows += [(n, p, (t(n) / p + 2e-9 * n * p) * (1 + noise * rng.standard_normal())) for n in NS for p in (1, 2, 4)]
    return RuntimeTable.from_rows(rows, source="farm.csv")


def test_members_are_the_forecasts_without_a_column_widened_by_its_errors():
    source = SkeletonSource(_table(0.05), method_t="lm-poly", method_a="lm")
    model = source.model("farm", interval=True)
    ensemble = model.ensemble
    assert isinstance(ensemble, RebuiltEnsemble) and ensemble.size == 2 * len(ensemble.basis)
    # the largest n left out: the rest forecasts it one step beyond what it has seen
    group = [k for k in source.table.times if k[0] == NS[-1]]
    rest = source.on(source.table.without_all(group))
    error = abs(math.log(source.table.times[(NS[-1], 4)] / rest.estimate(NS[-1], 4).value))
    assert min(abs(ensemble.spread - error)) < 1e-12
    members = ensemble.members(n=np.array([65536.0]), p=np.array([4.0]))
    assert members.shape == (ensemble.size, 1)
    lo, hi = model.interval(n=65536.0, p=4)
    assert lo < model(n=65536.0, p=4) < hi


def test_the_interval_is_narrow_where_the_method_is_exact_and_grows_with_the_noise():
    widths = []
    for noise in (0.0, 0.05, 0.2):
        model = SkeletonSource(_table(noise, law="linear"), method_t="lm-poly", method_a="lm").model(
            "farm", interval=True)
        lo, hi = model.interval(n=65536.0, p=4)
        widths.append((hi - lo) / model(n=65536.0, p=4))
    assert widths[0] < 0.01 < widths[1] < widths[2]


def test_binding_and_units_carry_the_members_along():
    model = SkeletonSource(_table(0.05), method_t="lm-poly", method_a="lm").model("farm", interval=True)
    bound = model.bind({"n": "x", "p": 4}).in_unit("us")
    lo, hi = model.interval(n=65536.0, p=4)
    assert bound.interval(x=65536.0) == pytest.approx((lo * 1e6, hi * 1e6), rel=1e-12)


def test_a_design_with_a_skeleton_component_predicts_with_an_interval():
    design = load_design(EXAMPLES / "designs" / "mixed.toml")
    checksum = design.components["checksum"]
    assert isinstance(checksum.ensemble, RebuiltEnsemble)
    composer = Composer(design.components, pipe="pointwise")
    from perfcompose.compose.interval import with_interval

    model = with_interval(composer, design.program)
    lo, hi = model.interval(x=1024.0)
    assert lo < model(x=1024.0) < hi  # at x = 1024 the skeleton part is the bottleneck


def test_without_points_to_leave_out_the_model_stays_exact():
    table = RuntimeTable.from_rows([(n, SEQ, 1e-6 * n) for n in (10, 20, 30)] + [(10, 2, 6e-6), (20, 2, 11e-6)])
    model = SkeletonSource(table).model("tiny", interval=True)
    assert model.ensemble is None


def test_times_outside_the_training_window_are_neither_learnt_from_nor_scored():
    table = _table(0.02)
    rows = {**table.times, **{(n, 16): 10.0 * table.times[(n, 4)] for n in NS}}  # a law of its own at p = 16
    wild = RuntimeTable.from_rows([(n, p, t) for (n, p), t in rows.items()])
    inside = SkeletonSource(wild, method_t="lm-poly", method_a="lm", train="p<=8").model("farm", interval=True)
    plain = SkeletonSource(table, method_t="lm-poly", method_a="lm").model("farm", interval=True)
    assert inside.interval(n=65536.0, p=4) == pytest.approx(plain.interval(n=65536.0, p=4), rel=1e-9)


def test_a_large_table_leaves_out_its_edge_columns_and_a_few_between():
    ns = [1000.0 * k for k in range(1, 41)]
    rows = [(n, SEQ, 1e-6 * n) for n in ns] + [(n, p, 1e-6 * n / p + 1e-8 * n * p) for n in ns for p in (1, 2, 4)]
    groups = column_groups(RuntimeTable.from_rows(rows))
    left_out_n = [g[0][0] for g in groups[:-3]]
    assert len(left_out_n) == 8 and left_out_n[0] == ns[0] and left_out_n[-1] == ns[-1]
    assert [g[0][1] for g in groups[-3:]] == [1, 2, 4]
