"""000 Tables 4, 6 and 7: spreads of leading coefficients, relation (iv) and the core limit."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from perfcompose.compose.parser import parse_term
from perfcompose.model import Model
from perfcompose.validate.paper_relations import LAYERING_GROUPS, coefficient_spreads, core_limit, relation_iv


def _fitted(configuration: str, model: str, measured: tuple[float, ...] = (1.0,)) -> SimpleNamespace:
    return SimpleNamespace(configuration=str(parse_term(configuration)), monolithic=Model.parse(model, unit="ns"),
                           measured=measured)


def test_table4_spread_counts_every_nesting_of_the_pipes():
    group = ["pipe(pipe(qsort, inc), nop)", "pipe(qsort, pipe(inc, nop))"]
    comparisons = [_fitted(group[0], "100 + 3.0*x*log2(x)"), _fitted(group[1], "100 + 3.3*x*log2(x)")]
    (spread,) = coefficient_spreads(comparisons, [group])
    assert spread.group == tuple(group) and spread.percent == pytest.approx(10.0)


def test_spread_of_models_of_different_orders_is_none():
    group = LAYERING_GROUPS[1]
    comparisons = [_fitted(group[0], "2*x"), _fitted(group[1], "2*x*log2(x)")]
    assert [s.percent for s in coefficient_spreads(comparisons, [group])] == [None]


def test_a_group_with_one_measured_program_has_no_spread():
    group = LAYERING_GROUPS[0]
    assert coefficient_spreads([_fitted(group[0], "2*x")], [group]) == []


def test_relation_iv_is_the_median_ratio_of_pool_to_pipe():
    comparisons = [_fitted("tpool_2(seq(qsort, inc))", "x", (1.0, 3.0, 5.0)),
                   _fitted("pipe(qsort, inc)", "x", (2.0, 2.0, 4.0)),
                   _fitted("tpool_2(seq(inc, nop))", "x", (3.0,))]
    (pair,) = relation_iv(comparisons)
    assert (pair.pooled, pair.pipe) == ("tpool_2(seq(qsort, inc))", "pipe(qsort, inc)")
    assert pair.ratio == pytest.approx(1.25) and not pair.holds


def test_tables_comparing_programs_with_one_another_may_oversubscribe_the_cores():
    assert core_limit("table2", cores=4) == core_limit("table7", cores=4) == 4
    assert core_limit("table4", cores=4) == core_limit("table6", cores=4) == 8
