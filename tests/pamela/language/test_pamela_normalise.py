"""Normalisation by substitution (paper 004, section 2.1) and PAMELA's strong typing."""
from __future__ import annotations

from pathlib import Path

import pytest
import sympy as sp
from case_files import cases
from hypothesis import given, settings
from hypothesis import strategies as st
from pamela_models import MRM

from perfcompose.errors import InputError
from perfcompose.model import symbol
from perfcompose.pamela import normalise, parse
from perfcompose.pamela.compile import ir
from perfcompose.pamela.compile.symbolic import UnitVec

P, N = symbol("P"), symbol("N")


def test_mrm_normal_form_is_the_papers():
    # process main = par (p = 1, P) seq (i = 1, N) { delay(10) ; use(fcfs(0,1), 0.1) }
    nf = normalise(parse(MRM))
    assert nf.parameters == ("P", "N")
    main = nf.processes["main"]
    assert isinstance(main, ir.Loop) and main.kind == "par" and (main.lo, main.hi) == (1, P)
    inner = main.body
    assert isinstance(inner, ir.Loop) and inner.kind == "seq" and (inner.lo, inner.hi) == (1, N)
    think, serve = inner.body.left, inner.body.right
    assert think.resource is ir.RHO and think.time == 10
    assert serve.resource == ir.Resource(sp.Integer(0), sp.Integer(1)) and serve.time == sp.Rational(1, 10)


def test_formal_parameters_are_substituted_by_name_without_capture():
    # f's own loop index must not capture the caller's i
    nf = normalise(parse("numeric parameter N\nresource cpu(p) = fcfs(p, 1)\n"
                         "process f(k) = seq (i = 1, k) use(cpu(i), 1)\n"
                         "process main = par (i = 1, N) f(i)"))
    main = nf.processes["main"]
    inner = main.body
    assert inner.index != main.index and inner.hi == main.index
    assert inner.body.resource.key == inner.index


def test_numeric_equations_are_values_vectors_and_reductions():
    nf = normalise(parse("numeric parameter N\nnumeric v = [1, 2, 3] * 4\nnumeric u = 10 * unitvec(3)\n"
                         "numeric m = max(v)\nnumeric s = sum (i = 1, N) i\nnumeric c = if (N < 5) 1 else 2"))
    assert nf.numerics["v"] == 4 * UnitVec(0) + 8 * UnitVec(1) + 12 * UnitVec(2)
    assert nf.numerics["u"] == 10 * UnitVec(3)
    assert nf.numerics["c"] == sp.Piecewise((1, N < 5), (2, True))


def _error(text: str) -> InputError:
    with pytest.raises(InputError) as info:
        normalise(parse(text, "model.pam"))
    return info.value


@pytest.mark.parametrize("text, line, column, words", cases(Path(__file__).with_name("bad_models.toml"),
                                                            "text", "line", "column", "words"))
def test_errors_name_line_and_column(text, line, column, words):
    err = _error(text)
    assert (err.line, err.column) == (line, column)
    assert words in str(err) and "model.pam" in str(err)
    assert "^" in str(err)  # the source line with a caret


TOKENS = ["numeric", "process", "resource", "parameter", "main", "N", "x", "=", "(", ")", "{", "}", "[", "]",
          ",", ";", "||", "+", "*", "/", "-", "mod", "div", "==", "<", "0", "1", "2.5", "seq", "par", "sum",
          "max", "if", "else", "use", "delay", "fcfs", "unitvec", "i", "=", "\n"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=30))
def test_any_token_soup_is_read_or_refused_with_a_located_error(tokens):
    text = " ".join(tokens)
    try:
        normalise(parse(text))
    except InputError as err:
        assert "line" in str(err) or "model" in str(err) or err.path is None


_LEAVES = st.sampled_from(["N", "1", "0", "2.5", "i", "x", "delay(1)", "use(fcfs(0, 1), 2)", "work", "[1, 2]",
                           "unitvec(N)", "rho", "fcfs(1, 2)", "cpu(i)"])
_EXPRS = st.recursive(_LEAVES, lambda inner: st.one_of(
    st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "mod", "div", "==", "<", ";", "||", "^"]), inner).map(
        lambda t: f"({t[0]} {t[1]} {t[2]})"),
    st.tuples(st.sampled_from(["seq", "par", "sum", "max"]), inner, inner).map(
        lambda t: f"{t[0]} (i = 1, {t[1]}) {{ {t[2]} }}"),
    st.tuples(inner, inner, inner).map(lambda t: f"if ({t[0]}) {{ {t[1]} }} else {{ {t[2]} }}"),
    st.tuples(st.sampled_from(["use", "delay", "max", "unitvec", "cpu", "work"]), inner).map(
        lambda t: f"{t[0]}({t[1]})")), max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(_EXPRS, st.sampled_from(["process", "numeric"]))
def test_well_formed_but_ill_typed_models_fail_only_with_located_errors(expr, kind):
    # every outcome is a compiled model or an InputError that names a line: never a traceback
    from perfcompose.pamela import compile_program

    text = (f"numeric parameter N\nnumeric x = 3\nprocess work = delay(x)\nresource cpu(p) = fcfs(p, 1)\n"
            f"{kind} main = {expr}\n")
    try:
        cm = compile_program(parse(text))
        if kind == "process":
            cm.costs("main")
            cm.evaluate({"N": 3})
    except InputError as err:
        assert err.line is not None or "parameter" in str(err) or "resource ind" in str(err), str(err)
