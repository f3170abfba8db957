"""The compilation rules of paper 004, section 2.2, and the two documented deviations."""
from __future__ import annotations

import sympy as sp
from pamela_models import MRM

from perfcompose.model import symbol
from perfcompose.pamela import compile_text
from perfcompose.pamela.compile.symbolic import MaxOver, UnitVec, VMax, index_symbol

P, N = symbol("P"), symbol("N")


def test_mrm_compiles_to_the_papers_time_domain_model_before_simplification():
    # numeric T_main = max(max (p = 1, P) { sum (i = 1, N) { 10.1 } },
    #                      max(sum (p = 1, P) { sum (i = 1, N) { [0.1] } }))
    raw = compile_text(MRM).raw("main")
    p, i = index_symbol("p"), index_symbol("i")
    assert raw.T == sp.Max(MaxOver(sp.Sum(sp.Rational(101, 10), (i, 1, N)), (p, 1, P)),
                           VMax(sp.Sum(sp.Sum(UnitVec(0) / 10, (i, 1, N)), (p, 1, P))))


def test_mrm_simplifies_to_max_of_think_bound_and_server_bound():
    # T_main = max((N * 10.1), (P * (N * 0.1)))  -- paper 004, section 2.2
    cm = compile_text(MRM)
    c = cm.costs("main")
    assert c.T == sp.Max(sp.Rational(101, 10) * N, N * P / 10)
    assert c.phi == sp.Rational(101, 10) * N
    assert c.omega == N * P / 10
    assert c.delta == N * P / 10 * UnitVec(0)
    assert cm.text("main").splitlines()[-1] == "numeric T_main = max(10.1*N, 0.1*N*P)"


def test_parallel_loads_add_element_wise():
    # a || b with a = use(r0, 2), b = use(r0, 3): delta = [5] (the paper's printed max would give [3])
    c = compile_text("process main = use(fcfs(0, 1), 2) || use(fcfs(0, 1), 3)").costs("main")
    assert c.delta == 5 * UnitVec(0)
    assert c.T == 5 and c.phi == 3


def test_use_phi_is_t_and_the_paper_literal_rule_is_t_over_b():
    text = "process main = use(fcfs(0, 4), 8)"
    c = compile_text(text).costs("main")
    assert (c.phi, c.delta, c.omega, c.T) == (8, 2 * UnitVec(0), 2, 8)
    literal = compile_text(text, paper_phi=True).costs("main")
    assert (literal.phi, literal.T) == (2, 2)


def test_sequence_adds_and_delay_loads_no_resource():
    # phi = 1 + 2 + 3; delta = 2*[1, 0] + 3*[0, 1] = [2, 3]; T = 6
    c = compile_text("process main = delay(1) ; use(fcfs(0, 1), 2) ; use(fcfs(1, 1), 3)").costs("main")
    assert c.phi == 6 and c.T == 6
    assert c.delta == 2 * UnitVec(0) + 3 * UnitVec(1) and c.omega == 3


def test_conditional_is_weighted_by_its_probability():
    # if (0.25) a else b  ->  0.25 X_a + 0.75 X_b  for X in phi, delta, omega, T
    c = compile_text("process main = if (0.25) use(fcfs(0, 1), 4) else delay(2)").costs("main")
    assert c.T == sp.Rational(1, 4) * 4 + sp.Rational(3, 4) * 2
    assert c.delta == UnitVec(0)
    assert c.omega == 1
