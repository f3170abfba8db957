"""The MapReduce operator per reduction strategy: eq. 5-7 of 000 with k(x), d(x) per strategy,
and the calibrated operator's engine terms."""
from __future__ import annotations

import pytest
import sympy as sp

from perfcompose.compose.mapreduce import (
    EngineCosts,
    calibrated_model,
    critical_hops,
    crossing_bytes,
    paper_model,
    paper_term,
)
from perfcompose.errors import ModelError
from perfcompose.model import Model, symbol

X = symbol("x")
PARTS = {"map": Model.constant(0.016, params=("x",)), "reduce_p": Model.constant(2e-6, params=("x",)),
         "reduce_v": Model.parse("1e-7 + 3e-10*x")}


def test_pairwise_reduces_x_collections_of_768_as_eq6():
    model = paper_model("pairwise", 1, 2, PARTS)
    assert sp.simplify(model.expr - X * (0.016 + 2e-6) / 2) == 0


def test_per_key_strategies_reduce_768_keys_of_x_values():
    model = paper_model("local", 1, 2, PARTS)
    assert sp.simplify(model.expr - (X * 0.016 / 2 + 768 * (1e-7 + 3e-10 * X) / 2)) == 0


def test_shuffle_strategy_uses_eq7_with_the_measured_bandwidth_and_8_byte_pairs():
    bw = 1e9
    model = paper_model("shuffle", 2, 1, PARTS, bandwidth=bw)
    expected = X * 0.016 / 2 + sp.Rational(1, 2) * 768 * 8 * X / bw + 768 * (1e-7 + 3e-10 * X) / 2
    assert float(sp.simplify((model.expr - expected) / X).subs(X, 7)) == pytest.approx(0, abs=1e-12)
    assert "bandwidth=1000000000.0" in paper_term("shuffle", 2, 1, bw)


def test_node_results_sent_to_one_node_cost_a_constant():
    one, two = paper_model("local", 1, 1, PARTS), paper_model("local", 2, 1, PARTS, bandwidth=1e9)
    assert float(two(x=10) * 2 - one(x=10)) == pytest.approx(768 * 8 / 1e9 * 2, rel=1e-6)


def test_several_nodes_need_a_bandwidth():
    with pytest.raises(ModelError, match="bandwidth"):
        paper_term("shuffle", 2, 1)


def test_calibrated_operator_adds_dispatch_hops_job_and_crossing_bytes():
    costs = EngineCosts(job=0.01, dispatch=0.002, hop_local=0.005, hop_remote=0.007, bandwidth=1e9)
    model = calibrated_model("shuffle", 2, 1, PARTS, costs)
    x = 16
    expected = (0.01 + x * (0.016 + 0.002) / 2 - 0.002 + 0.005 + 2 * 0.007 + 0.5 * 768 * 8 * (x + 1) / 1e9
                + 768 * (1e-7 + 3e-10 * x) / 2)
    assert float(model(x=x)) == pytest.approx(expected)
    assert critical_hops("pairwise", 1, 2) == (2, 0)
    assert critical_hops("pairwise", 2, 1) == (1, 1)
    assert crossing_bytes("local", 1) == 0


def test_unknown_strategy_is_an_error():
    with pytest.raises(ModelError, match="pairwise"):
        paper_term("tree", 1, 1)
