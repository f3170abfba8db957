"""Evaluating compiled models: the paper's numbers, the Model they become, and the text round trip."""
from __future__ import annotations

import pytest
import sympy as sp
from pamela_models import MRM

from perfcompose.errors import InputError
from perfcompose.model import Model, symbol
from perfcompose.pamela import compile_text, normalise, parse
from perfcompose.pamela.compile.symbolic_evaluation import evaluate, load_list


def test_mrm_at_p_1000_n_1e6_is_1e8():
    # max(10.1 * 10^6, 0.1 * 10^6 * 1000) = max(1.01e7, 1e8) = 1e8  (paper 004, section 2.2)
    ev = compile_text(MRM).evaluate({"P": 1000, "N": 1e6})
    assert ev.T == 1e8 and ev.omega == 1e8 and ev.phi == pytest.approx(1.01e7)
    assert ev.as_json() == {"T_main": 1e8, "phi_main": pytest.approx(1.01e7), "omega_main": 1e8,
                            "delta_main": [1e8]}


def test_compiled_model_is_a_model_that_composes():
    m = compile_text(MRM).model()
    assert isinstance(m, Model) and m.params == ("P", "N") and m.name == "T_main"
    P, N = symbol("P"), symbol("N")
    assert m.expr == sp.Max(sp.Float(10.1) * N, sp.Float(0.1) * N * P)
    assert m(P=1000, N=1e6) == 1e8
    assert (m + 5)(P=1, N=1) == 15.1
    assert m.order("N").i == 1


def test_fast_function_agrees_with_the_model():
    cm = compile_text(MRM)
    f = cm.function()
    for p, n in ((1, 1), (100, 1000), (1000, 1e6)):
        assert f(p, n) == cm.model()(P=p, N=n)


def test_unknown_and_missing_parameters_are_reported():
    cm = compile_text(MRM)
    with pytest.raises(InputError, match="'Q' is not a parameter"):
        cm.evaluate({"P": 1, "N": 1, "Q": 2})
    with pytest.raises(InputError, match="no value for parameter N"):
        cm.evaluate({"P": 1})


def test_the_cost_model_is_again_a_pamela_model():
    # Section 2.2: remove the parameter modifiers, give P and N values and recompile: 100000000.
    text = compile_text(MRM).text("main", everything=True)
    assert "numeric delta_main = [0.1*N*P]" in text
    instance = text.replace("numeric parameter P", "numeric P = 1000").replace(
        "numeric parameter N", "numeric N = 1000000")
    nf = normalise(parse(instance))
    assert evaluate(nf.numerics["T_main"], {}) == 100000000
    assert evaluate(nf.numerics["phi_main"], {}) == pytest.approx(10100000)


def test_text_of_an_unclosed_model_recompiles_to_the_same_values():
    text = ("numeric parameter N\nnumeric parameter P\nresource cpu(p) = fcfs(p, 1)\n"
            "process main = par (i = 1, N) { use(cpu(i mod P), 1) ; use(cpu((i + 1) mod P), 2) }")
    cm = compile_text(text)
    again = normalise(parse(cm.text("main", everything=True)))
    for values in ({"N": 10, "P": 4}, {"N": 7, "P": 3}):
        assert evaluate(again.numerics["T_main"], values) == cm.evaluate(values).T
        assert evaluate(again.numerics["omega_main"], values) == cm.evaluate(values).omega


def test_load_list_is_base_zero_with_zeros_between():
    assert load_list({0: 1.0, 3: 2.0}) == [1.0, 0.0, 0.0, 2.0]
    assert load_list({}) == []
    with pytest.raises(InputError):
        load_list({-1: 1.0})


def test_other_processes_and_formal_parameters():
    cm = compile_text("numeric parameter N\nresource cpu(p) = fcfs(p, 1)\n"
                      "process work(k) = seq (i = 1, k) use(cpu(0), 2)\nprocess main = work(N) || work(3)")
    assert cm.evaluate({"N": 5}, "main").T == 16.0  # both on cpu 0: 2 (5 + 3)
    assert cm.costs("work").T == 2 * symbol("k")  # formals compile as parameters
    with pytest.raises(InputError, match="no process 'nope'"):
        cm.evaluate({"N": 1}, "nope")
