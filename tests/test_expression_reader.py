"""Model expressions are read as data: a whitelist walk of the syntax tree, never ``eval``."""
from __future__ import annotations

import json

import pytest
import sympy as sp
from run_cli import perfcompose

from perfcompose.errors import ModelSyntaxError
from perfcompose.expression_reader import ExpressionRefused, nowhere_finite, read_srepr, read_text
from perfcompose.model import Model

SUBCLASSES = "Symbol('x').__class__.__mro__[-1].__subclasses__()"


@pytest.mark.parametrize("text", [
    SUBCLASSES,
    "().__class__.__base__.__subclasses__()",
    "__import__('os').system('touch /tmp/pwned')",
    "Integer.__subclasses__()",
    "Add(*[Integer(1)])",
    "Function('f')(Symbol('x'))",
    "[c for c in ().__class__.__base__.__subclasses__()]",
    "(lambda: 1)()",
    "Symbol('x', **{'positive': True})",
    "Symbol('__class__')",
    "Integer(1) if True else Integer(2)",
])
def test_srepr_that_reaches_beyond_sympy_constructors_is_refused(text):
    with pytest.raises(ExpressionRefused):
        read_srepr(text)


def test_srepr_applies_only_the_numeric_functions_it_is_given():
    f = Model.numeric("halo", lambda v: v + 1.0, ["x"]).expr.func
    x = sp.Symbol("x", positive=True)
    text = "Add(Function('halo')(Symbol('x', positive=True)), Integer(3))"
    assert read_srepr(text, {"halo": f}) == f(x) + 3
    for bad, functions in ((text, None), (text, {"other": f}),
                           ("Function('halo')(Symbol('x'), **{'a': 1})", {"halo": f}),
                           ("Function(halo)(Symbol('x'))", {"halo": f})):
        with pytest.raises(ExpressionRefused):
            read_srepr(bad, functions)


def test_srepr_round_trip_of_written_models():
    for text in ["5.2 + 0.51*x^(3/2)*log2(x) + max(x, n)/3 + exp(-x) + sqrt(x)", "x/(x-3) + min(x, 4)"]:
        m = Model.parse(text)
        assert Model.from_json(json.loads(m.to_json_text())) == m
    x = sp.Symbol("x", positive=True)
    piecewise = sp.Piecewise((x, x <= 3), (x ** 2, True)) + sp.ceiling(x) + sp.Abs(x - 3) + sp.pi
    assert read_srepr(sp.srepr(piecewise)) == piecewise


def test_malicious_model_file_given_with_c_exits_2_and_runs_nothing(tmp_path):
    marker = tmp_path / "ran"
    record = {"format": "perfcompose-model/1", "parameters": ["x"], "unit": "s",
              "expr": f"().__class__.__base__.__subclasses__()[0]('{marker}')"}
    evil = tmp_path / "evil.json"
    evil.write_text(json.dumps({**record, "expr": SUBCLASSES}))
    r = perfcompose("compose", "seq(a, b)", "-c", f"a={evil}", "-c", "b=x")  # in this process: nothing may run here
    assert r.returncode == 2, r.stderr
    assert "invalid model expression" in r.stderr and "Traceback" not in r.stderr
    with pytest.raises(ModelSyntaxError):
        Model.from_json(record)
    assert not marker.exists()


@pytest.mark.parametrize("text", ["log2(-x)", "I", "nan", "oo", "zoo", "x**1e9", "2**2**2**2**2", "10**10**10",
                                  "1e999999", "0**-1", "(" * 5000 + "x" + ")" * 5000, "x+" * 50_000 + "x",
                                  "x.real", "x[0]", "lambda: 0", "max"])
def test_text_that_is_not_a_finite_real_model_is_refused(text):
    with pytest.raises(ModelSyntaxError):
        Model.parse(text)


def test_a_model_undefined_at_one_point_only_is_kept():
    assert Model.parse("x/(x-3)")(x=4.0) == 4.0


def test_read_text_builds_exact_rationals_and_doubles():
    x = sp.Symbol("x", positive=True)
    assert read_text("x**(3/2) + 0.5", {"x": x}) == x ** sp.Rational(3, 2) + sp.Float(0.5)


def test_nowhere_finite_tells_complex_and_overflowing_models():
    x = sp.Symbol("x", positive=True)
    assert nowhere_finite(sp.log(-x)) and nowhere_finite(x ** sp.Float(1e9)) and nowhere_finite(sp.nan + x)
    assert not nowhere_finite(x / (x - 3)) and not nowhere_finite(sp.exp(x) + sp.log(x, 2))


def test_a_maximum_of_a_value_that_is_not_real_is_a_located_error():
    # SymPy's Max refuses log2(-x) (not comparable): a located error, not a ValueError traceback
    with pytest.raises(ModelSyntaxError, match="max\\(\\): .* not comparable"):
        Model.parse("5.2 + 0.51*x^(3/2)*log2(x) + max(x,log2(-x))/3")
