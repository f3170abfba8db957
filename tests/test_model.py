"""perfcompose.model: parsing, printing, JSON, evaluation, asymptotic order, arithmetic, maximum."""
from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from perfcompose.errors import ModelError, ModelSyntaxError
from perfcompose.model import Model, Order, symbol
from perfcompose.model_maximum import compare_order, maximum

x, p, n = symbol("x"), symbol("p"), symbol("n")

# the paper's Table 1 unit models (ns)
QSORT = "1034.17*x*log2(x)"
INC = "536.185*x"
NOP = "5422.97"


def log2(v):
    return sp.log(v, 2)


# ---------------------------------------------------------------------------------------------
# Parsing

def test_parse_plain_text():
    m = Model.parse("5.2 + 0.51 * x**(3/2) * log2(x)", unit="ns")
    assert m.expr == sp.Float(5.2) + sp.Float(0.51) * x ** sp.Rational(3, 2) * log2(x)
    assert m.params == ("x",)
    assert m.unit == "ns"


def test_parameters_are_positive_symbols():
    m = Model.parse("x + 1")
    (sym,) = m.expr.free_symbols
    assert sym.is_positive


def test_parse_extrap_syntax_with_caret_powers_and_explicit_exponent_one():
    m = Model.parse("x^(3/2) * log2(x)^(1)")
    assert m.expr == x ** sp.Rational(3, 2) * log2(x)
    assert m.order("x") == Order(Fraction(3, 2), Fraction(1))


def test_parse_extrap_negative_coefficient_written_as_plus_minus():
    m = Model.parse("99.99999999999997 + -2.9999999999999942 * log2(x)^(1)")
    assert m.expr == sp.Float(99.99999999999997) - sp.Float(2.9999999999999942) * log2(x)
    constant, (term,) = m.terms()
    assert constant == 99.99999999999997
    assert term.coefficient == -2.9999999999999942
    assert term.exponents == (("x", Fraction(0), Fraction(1)),)


def test_parse_extrap_plus_minus_with_fractional_coefficient():
    m = Model.parse("1 + -2.5 * log2(x)^(1)")
    assert m(x=8.0) == pytest.approx(1 - 2.5 * 3)


def test_parse_extrap_multi_parameter_model_as_extrap_prints_it():
    text = "3.0000000001547247 + 0.5000000000000878 * p^(2) + 4.000000000000003 * log2(n)^(1)"
    m = Model.parse(text)
    assert m.params == ("p", "n")  # order of first appearance
    expected = 3.0000000001547247 + 0.5000000000000878 * 9 + 4.000000000000003 * 4
    assert m(p=3.0, n=16.0) == pytest.approx(expected)
    assert m.order("p") == Order(Fraction(2), Fraction(0))
    assert m.order("n") == Order(Fraction(0), Fraction(1))


def test_parse_extrap_multiplicative_two_parameter_term():
    m = Model.parse("1.9999816877138314 + 0.49999995969841976 * p^(1) * n^(1/2)")
    assert m.expr == sp.Float(1.9999816877138314) + sp.Float(0.49999995969841976) * p * sp.sqrt(n)


def test_parse_unicode_middle_dot_and_times_sign_and_minus():
    ascii_model = Model.parse("2 + 0.5*p*n^(1/2) - 1")
    assert Model.parse("2 + 0.5 · p × n^(1/2) − 1") == ascii_model


def test_parse_with_declared_params_keeps_their_order_and_unused_ones():
    m = Model.parse("n + p", params=["p", "n", "q"])
    assert m.params == ("p", "n", "q")


def test_parse_log_functions():
    m = Model.parse("log2(x) + log10(x) + ln(x) + sqrt(x)")
    assert m(x=100.0) == pytest.approx(math.log2(100) + 2 + math.log(100) + 10)


def test_parse_keeps_source_and_name():
    m = Model.parse("x", source="fit.json", name="qsort")
    assert (m.source, m.name) == ("fit.json", "qsort")


def _syntax_error(text: str) -> ModelSyntaxError:
    with pytest.raises(ModelSyntaxError) as info:
        Model.parse(text)
    return info.value


def _caret_column(err: ModelSyntaxError) -> int:
    """The 1-based column the caret line of the message points at, relative to the source line."""
    lines = str(err).split("\n")
    caret = next(k for k, line in enumerate(lines) if line.strip() == "^")
    return lines[caret].index("^") - 4 + 1  # both lines are indented by four spaces


def test_unknown_function_names_the_function_points_at_it_and_lists_known_ones():
    err = _syntax_error("2 * foo(x)")
    assert "unknown function 'foo'" in str(err)
    assert err.column == 5
    assert _caret_column(err) == 5
    assert err.hint.startswith("known functions:")
    for known in ("log2", "log", "sqrt", "exp", "max", "min"):
        assert known in err.hint


def test_parameter_used_as_function_is_an_unknown_function():
    err = _syntax_error("x(2)")
    assert "unknown function 'x'" in str(err)
    assert err.column == 1


def test_python_keyword_in_model_is_rejected_at_its_column():
    err = _syntax_error("log2(x) and 3")
    assert "'and' is not allowed" in str(err)
    assert err.column == 9
    assert _caret_column(err) == 9


def test_underscore_parameter_names_are_rejected_at_their_column():
    err = _syntax_error("x + _y")
    assert "may not start with '_'" in str(err)
    assert err.column == 5


@pytest.mark.parametrize("text", ["", "   ", "\t"])
def test_empty_model_is_a_syntax_error_with_an_example(text):
    err = _syntax_error(text)
    assert "empty model expression" in str(err)
    assert "log2" in err.hint


@pytest.mark.parametrize("text", ["1 + * x", "x y", "2 +", "x ** * 2", "x * (1 + 2", "3 * x)", "x $ 2"])
def test_malformed_models_raise_model_syntax_error(text):
    err = _syntax_error(text)
    assert str(err).startswith("cannot parse model") or "cannot parse" in str(err)
    assert text.strip() in str(err)  # the source line is shown


def test_syntax_error_caret_is_under_the_offending_token_for_adjacent_names():
    err = _syntax_error("x y")
    assert err.column == 3
    assert _caret_column(err) == 3


def test_syntax_error_column_points_into_the_source_line():
    err = _syntax_error("1 + * x")
    assert err.column == 5
    assert _caret_column(err) == 5


@pytest.mark.parametrize("text", ["1/0", "x/0", "0/0", "log(-1)", "sqrt(-1)"])
def test_non_finite_or_complex_models_are_rejected(text):
    with pytest.raises(ModelSyntaxError):
        Model.parse(text)


def test_a_tuple_is_not_a_model():
    err = _syntax_error("1, 2")
    assert "numeric expression" in str(err)


def test_syntax_error_names_source_and_line_when_given():
    with pytest.raises(ModelSyntaxError) as info:
        from perfcompose.model import parse_expression
        parse_expression("foo(x)", source="models.txt", line=7)
    assert str(info.value).startswith("models.txt, line 7, column 1: unknown function 'foo'")


def test_model_rejects_non_sympy_objects():
    with pytest.raises(ModelError):
        Model("x + 1")  # a string is not a SymPy expression: use Model.parse


def test_model_from_python_number_is_a_constant():
    assert Model(2.5).expr == sp.Float(2.5)
    assert Model(3).expr == sp.Integer(3)


def test_model_from_sympy_with_plain_symbols_uses_positive_parameters():
    m = Model(sp.Symbol("x") * 2)
    assert m == Model.parse("2*x")


# ---------------------------------------------------------------------------------------------
# Round trips on random PMNF models

EXPONENTS_I = [Fraction(v) for v in ("0", "1/4", "1/3", "1/2", "2/3", "3/4", "1", "5/4", "4/3", "3/2", "5/3",
                                     "7/4", "2", "9/4", "7/3", "5/2", "8/3", "11/4", "3")]
EXPONENTS_J = [0, 1, 2]

magnitudes = st.floats(min_value=1e-3, max_value=1e6, allow_nan=False, allow_infinity=False)
coefficients = st.tuples(magnitudes, st.booleans()).map(lambda t: -t[0] if t[1] else t[0])
coefficients_not_one = coefficients.filter(lambda c: c != 1.0)


@st.composite
def pmnf_models(draw, coefs=coefficients):
    """``c0 + sum c * prod p^i log2(p)^j``: 1-3 terms over ('x',) or ('p', 'n')."""
    params = draw(st.sampled_from([("x",), ("p", "n")]))
    terms = []
    for _ in range(draw(st.integers(1, 3))):
        exps = {name: (draw(st.sampled_from(EXPONENTS_I)), draw(st.sampled_from(EXPONENTS_J)))
                for name in params}
        if all(i == 0 and j == 0 for i, j in exps.values()):
            exps[params[0]] = (Fraction(1), 0)  # a term with no factor would be a second constant
        terms.append((draw(coefs), exps))
    return Model.from_terms(draw(coefs), terms, params=params, unit=draw(st.sampled_from(["s", "ns", "B"])))


ROUND_TRIP = settings(max_examples=60, deadline=None, derandomize=True,
                      suppress_health_check=[HealthCheck.too_slow])


def _same_terms(a: Model, b: Model) -> bool:
    """Same PMNF structure with coefficients equal to within 2 ulp."""
    ca, ta = a.terms()
    cb, tb = b.terms()
    if not math.isclose(ca, cb, rel_tol=4.5e-16, abs_tol=0.0):
        return False
    da = {t.exponents: t.coefficient for t in ta}
    db = {t.exponents: t.coefficient for t in tb}
    return da.keys() == db.keys() and all(math.isclose(da[k], db[k], rel_tol=4.5e-16) for k in da)


@ROUND_TRIP
@given(pmnf_models())
def test_plain_text_round_trip_keeps_terms(m):
    back = Model.parse(str(m), params=m.params)
    assert back.params == m.params
    assert _same_terms(back, m)


@ROUND_TRIP
@given(pmnf_models(coefficients_not_one))
def test_extrap_text_round_trip_keeps_terms(m):
    back = Model.parse(m.to_extrap(), params=m.params)
    assert back.params == m.params
    assert _same_terms(back, m)


# The exact round trips. Parsing is given params=m.params: text alone cannot tell that a model
# over ('p', 'n') whose first printed factor is n has p as its first parameter.
# 312140.4319717676 is a double that SymPy's own float parsing reads back 1 ulp off.
DOUBLE_ROUNDED = Model.from_terms(312140.4319717676, [(2.5, {"x": (Fraction(3, 2), 1)})], params=("x",))


@ROUND_TRIP
@given(pmnf_models())
@example(DOUBLE_ROUNDED)
def test_plain_text_round_trip_is_exact(m):
    assert Model.parse(str(m), params=m.params) == m


@ROUND_TRIP
@given(pmnf_models(coefficients_not_one))
@example(DOUBLE_ROUNDED)
def test_extrap_text_round_trip_is_exact(m):
    assert Model.parse(m.to_extrap(), params=m.params) == m


def test_parse_reads_a_shortest_repr_float_back_exactly():
    value = 312140.4319717676
    assert float(Model.parse(repr(value)).expr) == value


def test_extrap_round_trip_keeps_a_unit_float_coefficient():
    m = Model.from_terms(2.5, [(1.0, {"x": ("3/4", 1)})], params=("x",))
    assert Model.parse(m.to_extrap(), params=m.params) == m


def test_unit_float_coefficient_round_trip_is_equal_in_value():
    m = Model.from_terms(2.5, [(1.0, {"x": ("3/4", 1)})], params=("x",))
    assert m.to_extrap().endswith("x^(3/4) * log2(x)^(1)")
    back = Model.parse(m.to_extrap())
    xs = np.array([2.0, 1000.0])
    np.testing.assert_allclose(back(x=xs), m(x=xs), rtol=1e-15)


@ROUND_TRIP
@given(pmnf_models(), st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12),
       st.dictionaries(st.sampled_from(["rss", "smape", "ar2", "n"]),
                       st.floats(allow_nan=False, allow_infinity=False), max_size=3))
def test_json_round_trip_is_exact_with_metadata(m, source, stats):
    m = m.with_meta(source=source, stats=stats, name="kernel")
    back = Model.from_json(m.to_json())
    assert back == m
    assert (back.unit, back.source, back.name, back.stats) == (m.unit, source, "kernel", stats)
    # through JSON text as well
    again = Model.from_json(json.dumps(m.to_json()))
    assert again == m
    assert again.stats == stats


def test_json_stats_nan_is_written_as_null_and_read_back_as_nan():
    m = Model.parse("2*x").with_meta(stats={"rss": float("nan"), "n": 5})
    record = m.to_json()
    assert record["stats"] == {"rss": None, "n": 5}
    assert math.isnan(Model.from_json(record).stats["rss"])


def test_json_record_fields():
    m = Model.parse("5422.97", unit="ns", source="fit")
    record = m.to_json()
    assert record["format"] == "perfcompose-model/1"
    assert record["text"] == "5422.97"
    assert record["unit"] == "ns"
    assert record["source"] == "fit"
    assert "name" not in record and "stats" not in record


def test_json_with_only_text_is_parsed():
    m = Model.from_json({"text": "x^(2) + 1", "parameters": ["x"], "unit": "ns"})
    assert m == Model.parse("x**2 + 1")
    assert m.unit == "ns"


@pytest.mark.parametrize("record", [{}, {"unit": "s"}, "[1, 2]"])
def test_json_without_expression_is_a_syntax_error(record):
    with pytest.raises(ModelSyntaxError):
        Model.from_json(record)


def test_json_text_that_is_not_json_reports_line_and_column():
    with pytest.raises(ModelSyntaxError) as info:
        Model.from_json('{\n  "expr": oops}')
    assert (info.value.line, info.value.column) == (2, 11)
    assert "not JSON" in str(info.value)


@pytest.mark.parametrize("expr", ["__import__('os')", "Add(", "open('x')", "[1, 2]"])
def test_json_expr_that_is_not_a_sympy_srepr_is_rejected(expr):
    with pytest.raises(ModelSyntaxError):
        Model.from_json({"expr": expr})


# ---------------------------------------------------------------------------------------------
# Evaluation

def test_evaluate_scalar_against_hand_computed_value():
    m = Model.parse(QSORT, unit="ns")
    value = m(x=1024)
    assert isinstance(value, float)
    assert value == pytest.approx(1034.17 * 1024 * 10, rel=1e-15)


def test_evaluate_docstring_example():
    assert round(Model.parse("1034.17 * x * log2(x) + 5422.97")(x=1024)) == 10595324


def test_evaluate_array():
    m = Model.parse("2 + 3*x^(1/2)")
    out = m(x=np.array([1.0, 4.0, 9.0, 16.0]))
    assert isinstance(out, np.ndarray)
    np.testing.assert_allclose(out, [5.0, 8.0, 11.0, 14.0])


def test_evaluate_list_input():
    np.testing.assert_allclose(Model.parse("x*log2(x)")(x=[2, 4, 8]), [2.0, 8.0, 24.0])


def test_evaluate_two_parameters_broadcast_to_a_grid():
    m = Model.parse("2 + 0.5 * p^(1) * n^(1/2)")
    out = m(p=np.array([4.0, 8.0])[:, None], n=np.array([16.0, 100.0]))
    assert out.shape == (2, 2)
    np.testing.assert_allclose(out, [[10.0, 22.0], [18.0, 42.0]])


def test_evaluate_two_parameters_scalar_and_array():
    m = Model.parse("p * n")
    np.testing.assert_allclose(m(p=3.0, n=np.array([1.0, 2.0, 3.0])), [3.0, 6.0, 9.0])


def test_evaluate_without_a_parameter_raises_model_error_naming_it():
    m = Model.parse("2 + 0.5 * p * n^(1/2)")
    with pytest.raises(ModelError, match=r"needs values for n \(got p\)"):
        m(p=4.0)
    with pytest.raises(ModelError, match=r"needs values for p, n \(got none\)"):
        m()


def test_constant_model_with_a_parameter_returns_an_array_of_the_input_shape():
    m = Model.constant(5422.97, params=["x"], unit="ns")
    out = m(x=np.ones((2, 3)))
    assert out.shape == (2, 3)
    assert np.all(out == 5422.97)
    assert m(x=7.0) == 5422.97


def test_constant_model_from_text_with_declared_parameter_broadcasts():
    m = Model.parse(NOP, params=["x"])
    np.testing.assert_array_equal(m(x=np.array([1024.0, 2048.0, 4096.0])), [5422.97] * 3)


def test_evaluation_result_is_writable_copy():
    m = Model.constant(1.0, params=["x"])
    out = m(x=np.zeros(3) + 1)
    out[0] = 5.0  # broadcast views are read-only; the result must not be one
    assert out[0] == 5.0


def test_subs_fixes_a_parameter():
    m = Model.parse("2 + 0.5 * p * n^(1/2)", unit="ns").subs(n=16)
    assert m.params == ("p",)
    assert m.unit == "ns"
    assert m(p=4.0) == pytest.approx(10.0)


# ---------------------------------------------------------------------------------------------
# Asymptotic order

def test_order_of_the_paper_table_1_models():
    qsort, inc, nop = Model.parse(QSORT), Model.parse(INC), Model.parse(NOP, params=["x"])
    assert qsort.order("x") == Order(Fraction(1), Fraction(1))
    assert inc.order("x") == Order(Fraction(1), Fraction(0))
    assert nop.order("x") == Order(Fraction(0), Fraction(0))
    assert compare_order(qsort, inc) == 1
    assert compare_order(inc, nop) == 1
    assert compare_order(nop, qsort) == -1
    assert compare_order(inc, qsort) == -1


def test_polynomial_power_beats_any_log_factor():
    a, b = Model.parse("x^(3/2)"), Model.parse("x*log2(x)^2")
    assert a.order("x") == Order(Fraction(3, 2), Fraction(0))
    assert b.order("x") == Order(Fraction(1), Fraction(2))
    assert compare_order(a, b) == 1
    assert compare_order(b, a) == -1


def test_order_is_that_of_the_dominant_term():
    m = Model.parse("5 + 3*x^(1/2) + 0.001 * x^2 * log2(x) + 100*x")
    assert m.order("x") == Order(Fraction(2), Fraction(1))


def test_order_of_sqrt_log_and_parameter_free_model():
    assert Model.parse("sqrt(x)").order("x") == Order(Fraction(1, 2), Fraction(0))
    assert Model.parse("log2(x)^2").order("x") == Order(Fraction(0), Fraction(2))
    assert Model.parse("7").order("x") == Order(Fraction(0), Fraction(0))


def test_order_str():
    assert str(Order(Fraction(3, 2), Fraction(1))) == "x^(3/2) * log2(x)^(1)"
    assert str(Order(Fraction(0), Fraction(0))) == "1"


def test_equal_orders_compare_as_zero():
    assert compare_order(Model.parse("x"), Model.parse("2*x + 5")) == 0


def test_multi_parameter_order_is_per_parameter():
    m = Model.parse("p^2 * log2(n) + n")
    assert m.order("p") == Order(Fraction(2), Fraction(0))
    assert m.order("n") == Order(Fraction(1), Fraction(0))


def test_multi_parameter_compare_needs_a_win_in_one_and_no_loss():
    a, b = Model.parse("p^2 + n"), Model.parse("p^2 + log2(n)")
    assert compare_order(a, b) == 1
    assert compare_order(b, a) == -1


def test_incomparable_multi_parameter_orders_give_none():
    a, b = Model.parse("p^2 + n"), Model.parse("p + n^2")
    assert compare_order(a, b) is None
    assert compare_order(a, b, param="p") == 1
    assert compare_order(a, b, param="n") == -1


def test_numeric_and_non_pmnf_models_have_no_order():
    spline = Model.numeric("spline", lambda v: 2 * v, ["x"])
    assert spline.order("x") is None
    assert Model.parse("exp(x)").order("x") is None
    assert Model.parse("log2(log2(x))").order("x") is None
    assert Model.parse("2^x").order("x") is None


def test_compare_order_with_numeric_model_raises_model_error():
    spline = Model.numeric("spline", lambda v: 2 * v, ["x"])
    with pytest.raises(ModelError, match="first model is not PMNF"):
        compare_order(spline, Model.parse("x"))
    with pytest.raises(ModelError, match="second model is not PMNF"):
        compare_order(Model.parse("x"), spline)


# ---------------------------------------------------------------------------------------------
# Arithmetic

def test_adding_models_adds_values():
    qsort, inc = Model.parse(QSORT, unit="ns"), Model.parse(INC, unit="ns")
    total = qsort + inc
    assert total.unit == "ns"
    assert total(x=1024.0) == pytest.approx(1034.17 * 1024 * 10 + 536.185 * 1024)
    assert (qsort - inc)(x=1024.0) == pytest.approx(1034.17 * 1024 * 10 - 536.185 * 1024)


def test_arithmetic_with_scalars():
    m = Model.parse("3*x", unit="ns")
    assert (m + 2)(x=2.0) == 8.0
    assert (2 + m)(x=2.0) == 8.0
    assert (m - 1.5)(x=2.0) == 4.5
    assert (10 - m)(x=2.0) == 4.0
    assert (m * 2)(x=2.0) == 12.0
    assert (2 * m)(x=2.0) == 12.0
    assert (m / 4)(x=2.0) == 1.5
    assert (12 / m)(x=2.0) == 2.0
    assert (-m)(x=2.0) == -6.0
    assert (m * np.float64(2.0))(x=1.0) == 6.0
    for result in (m + 2, 2 + m, m - 1.5, m * 2, m / 4, -m):
        assert result.unit == "ns"


def test_arithmetic_with_sympy_expression():
    m = Model.parse("x") + sp.Integer(3) * symbol("x")
    assert m == Model.parse("4*x")


def test_multiplying_and_dividing_models_combine_units_and_parameters():
    work, rate = Model.parse("p * x", unit="op"), Model.parse("n", unit="op/s")
    assert (work * rate).unit == "op*op/s"
    assert (work / rate).unit == "op/op/s"
    assert (work / rate).params == ("p", "x", "n")
    assert (work / rate)(p=2.0, x=3.0, n=4.0) == 1.5
    assert (rate.__rtruediv__(work)).unit == "op/op/s"


def test_dividing_by_a_unitless_model_keeps_the_unit():
    assert (Model.parse("x", unit="ns") / Model.parse("p", unit="")).unit == "ns"


def test_scalar_divided_by_model_inverts_the_unit():
    assert (1 / Model.parse("x", unit="ns")).unit == "1/ns"


def test_adding_models_in_different_time_units_converts_to_the_first():
    total = Model.parse("x", unit="ns") + Model.parse("x", unit="us")
    assert total.unit == "ns" and total(x=2.0) == pytest.approx(2002.0)
    assert (Model.parse("x", unit="ns") - Model.parse("x", unit="s"))(x=1.0) == pytest.approx(1 - 1e9)


def test_adding_a_model_in_an_unknown_unit_raises_model_error():
    with pytest.raises(ModelError, match="unknown time unit 'B'"):
        Model.parse("x", unit="ns") + Model.parse("x", unit="B")


def test_adding_a_unitless_model_to_a_timed_one_is_refused():
    with pytest.raises(ModelError, match="has no unit"):
        Model.parse("x", unit="") + Model.parse("x", unit="ns")
    assert (Model.parse("x", unit="") + Model.parse("2*x", unit="")).unit == ""


def test_division_by_zero_raises_model_error():
    with pytest.raises(ModelError, match="by zero"):
        Model.parse("x") / 0


def test_arithmetic_with_unsupported_type_is_a_type_error():
    with pytest.raises(TypeError):
        Model.parse("x") + "1"


def test_model_equality_and_hash():
    a, b = Model.parse("2*x + 1"), Model.parse("1 + x*2")
    assert a == b and hash(a) == hash(b)
    assert a != Model.parse("2*x + 1", params=["x", "n"])
    assert a != Model.parse("2*x + 2")
    assert (a == "2*x + 1") is False


def test_with_meta_replaces_metadata_only():
    m = Model.parse("x", unit="ns").with_meta(unit="s", source="fit", stats={"rss": 1.0})
    assert (m.unit, m.source, m.stats) == ("s", "fit", {"rss": 1.0})
    assert m == Model.parse("x")


# ---------------------------------------------------------------------------------------------
# maximum

def test_asymptotic_maximum_picks_the_higher_order():
    qsort, inc, nop = Model.parse(QSORT, unit="ns"), Model.parse(INC, unit="ns"), Model.parse(NOP, unit="ns")
    assert maximum(qsort, inc) is qsort
    assert maximum(inc, qsort) is qsort
    assert maximum(nop, inc) is inc


def test_asymptotic_maximum_on_equal_orders_takes_the_larger_at_a_large_point():
    a, b = Model.parse("x + 3"), Model.parse("2*x")
    assert maximum(a, b) is b
    assert maximum(b, a) is b


def test_asymptotic_maximum_of_incomparable_models_falls_back_to_max():
    a, b = Model.parse("p^2 + n"), Model.parse("p + n^2")
    m = maximum(a, b)
    assert isinstance(m.expr, sp.Max)
    assert m(p=10.0, n=2.0) == 102.0
    assert m(p=2.0, n=10.0) == 102.0


def test_asymptotic_maximum_with_numeric_model_falls_back_to_max():
    spline = Model.numeric("spline", lambda v: 2 * v, ["x"])
    m = maximum(spline, Model.parse("x + 3"))
    np.testing.assert_allclose(m(x=np.array([1.0, 10.0])), [4.0, 20.0])


def test_pointwise_maximum_equals_numpy_maximum_at_sample_points():
    qsort, nop = Model.parse(QSORT, unit="ns"), Model.parse(NOP, unit="ns")
    m = maximum(qsort, nop, how="pointwise")
    xs = np.array([1.0, 2.0, 3.0, 4.0, 1024.0, 262144.0])
    np.testing.assert_allclose(m(x=xs), np.maximum(qsort(x=xs), np.full_like(xs, 5422.97)), rtol=1e-15)
    assert m.unit == "ns"
    # where the asymptotic choice is wrong (small x), the pointwise maximum is right
    assert maximum(qsort, nop)(x=2.0) < m(x=2.0) == 5422.97



def test_pointwise_maximum_drops_only_stages_proven_smaller_and_equals_sympy_max():
    a, b, c = Model.parse("2*x"), Model.parse("3*x"), Model.parse("258.5*x*log2(x)")
    nop = Model.parse("5422.97")
    assert maximum(a, b, how="pointwise").expr == b.expr  # 3x >= 2x for every x > 0
    three = maximum(maximum(a, c, how="pointwise"), nop, how="pointwise")
    assert isinstance(three.expr, sp.Max) and set(three.expr.args) == {a.expr, c.expr, nop.expr}
    assert three.expr == sp.Max(a.expr, c.expr, nop.expr)  # what SymPy's own Max makes of them
    assert maximum(three, b, how="pointwise").expr == sp.Max(b.expr, c.expr, nop.expr)
    xs = np.array([1.0, 4.0, 1e3, 1e6])
    np.testing.assert_allclose(three(x=xs), np.maximum.reduce([a(x=xs), c(x=xs), np.full_like(xs, 5422.97)]))

def test_maximum_rejects_unknown_mode():
    with pytest.raises(ModelError, match="choose 'asymptotic' or 'pointwise'"):
        maximum(Model.parse("x"), Model.parse("x"), how="largest")


# ---------------------------------------------------------------------------------------------
# Formatting

def test_str_prints_log2_and_shortest_floats():
    assert str(Model.parse("1034.17*x*log2(x)")) == "1034.17*x*log2(x)"
    assert str(Model.parse("0.1 + x")) in ("0.1 + x", "x + 0.1")  # not 0.100000000000000
    assert str(Model.parse("x^(3/2)")) == "x**(3/2)"


def test_repr_shows_text_params_and_unit():
    assert repr(Model.parse("2*x", unit="ns")) == "Model('2*x', params=('x',), unit='ns')"


def test_to_extrap_writes_exponents_and_plus_minus():
    assert Model.parse("5.2 + 0.51 * x^(3/2) * log2(x)").to_extrap() == "5.2 + 0.51 * x^(3/2) * log2(x)^(1)"
    assert Model.parse("99.9 - 2.5*log2(x)").to_extrap() == "99.9 + -2.5 * log2(x)^(1)"
    assert Model.parse("42.0").to_extrap() == "42.0"


def test_to_extrap_orders_factors_by_parameter():
    m = Model.parse("2 + 0.5*n^(1/2)*p", params=["p", "n"])
    assert m.to_extrap() == "2.0 + 0.5 * p^(1) * n^(1/2)"


def test_to_extrap_of_a_non_pmnf_model_uses_caret_powers():
    assert Model.parse("Max(x^2, 3)").to_extrap() == "Max(3, x^(2))"


def test_to_extrap_of_an_exponential_model_does_not_crash():
    assert Model.parse("exp(x) + x**2").to_extrap() in ("exp(x) + x^(2)", "x^(2) + exp(x)")


def test_to_latex_uses_log_2_and_dot():
    latex = Model.parse(QSORT).to_latex()
    assert r"\log_2" in latex
    assert r"\cdot" in latex
    assert "1034.17" in latex


def test_to_latex_writes_powers_of_log2():
    assert r"\log_2^{2}" in Model.parse("x*log2(x)^2").to_latex()


def test_to_latex_writes_small_coefficients_in_scientific_notation():
    assert r"1.5 \cdot 10^{-7}" in Model.parse("1.5e-7 * x").to_latex()


def test_repr_latex_is_wrapped_in_dollars():
    m = Model.parse(QSORT)
    assert m._repr_latex_() == f"${m.to_latex()}$"


# ---------------------------------------------------------------------------------------------
# Terms

def test_terms_decompose_pmnf_models():
    constant, terms = Model.parse("3 + 0.5*p^2 + 4*log2(n) + 0.1*p*n").terms()
    assert constant == 3.0
    assert {t.exponents: t.coefficient for t in terms} == {
        (("p", Fraction(2), Fraction(0)),): 0.5,
        (("n", Fraction(0), Fraction(1)),): 4.0,
        (("n", Fraction(1), Fraction(0)), ("p", Fraction(1), Fraction(0))): 0.1,
    }


def test_term_exponent_lookup():
    (_, (term,)) = Model.parse("x^(3/2)*log2(x)").terms()
    assert term.exponent("x") == (Fraction(3, 2), Fraction(1))
    assert term.exponent("n") == (Fraction(0), Fraction(0))


def test_non_pmnf_models_have_no_terms():
    assert Model.parse("Max(x, 2)").terms() is None
    assert Model.parse("x^x").terms() is None
    assert Model.parse("log2(log2(x))").terms() is None


@pytest.mark.parametrize("text", ["exp(x)", "2^x"])
def test_exponential_models_have_no_terms(text):
    assert Model.parse(text).terms() is None


def test_from_terms_builds_the_expression():
    m = Model.from_terms(2.0, [(0.5, {"p": (1, 0), "n": ("1/2", 0)})], params=["p", "n"], unit="s")
    assert m(p=4.0, n=16.0) == 10.0
    assert m.params == ("p", "n")


# ---------------------------------------------------------------------------------------------
# Numeric models

def test_numeric_model_composes_with_symbolic_ones_and_evaluates():
    spline = Model.numeric("spline", lambda v: 2.0 * v, ["x"], unit="ns")
    total = spline + Model.parse("1034.17*x*log2(x)", unit="ns")
    assert total.is_numeric
    assert "spline(x)" in str(total)
    np.testing.assert_allclose(total(x=np.array([2.0, 4.0])), [4.0 + 2068.34, 8.0 + 8273.36])
    assert (3 * spline)(x=5.0) == 30.0


def test_numeric_scalar_function_is_vectorised():
    calls = []

    def sim(v):
        calls.append(v)
        return v + 1.0

    m = Model.numeric("sim", sim, ["x"], vectorized=False)
    np.testing.assert_allclose(m(x=np.array([1.0, 2.0, 3.0])), [2.0, 3.0, 4.0])
    assert all(np.ndim(c) == 0 for c in calls)


def test_numeric_two_parameter_model():
    m = Model.numeric("table", lambda a, b: a * 10 + b, ["p", "n"])
    assert m.params == ("p", "n")
    assert m(p=2.0, n=3.0) == 23.0


def test_numeric_model_cannot_be_written_to_json():
    m = Model.numeric("spline", lambda v: v, ["x"]) + Model.parse("x")
    with pytest.raises(ModelError, match="contains spline, known only by numbers that no record describes"):
        m.to_json()


def test_numeric_model_with_a_record_is_written_with_it_and_read_back_with_its_function():
    def sim(v):
        return 2.0 * v

    m = Model.numeric("sim", sim, ["x"], record=lambda: {"format": "a source", "k": 2}) * 3 + Model.parse("x")
    assert m.numeric_parts().keys() == {"sim"}
    record = json.loads(m.to_json_text())
    assert record["functions"] == {"sim": {"format": "a source", "k": 2}}
    with pytest.raises(ModelSyntaxError, match="read it as a component"):
        Model.from_json(record)
    rebuilt = Model.numeric("sim", sim, ["x"]).expr.func
    back = Model.from_json(record, {"sim": rebuilt})
    assert back(x=5.0) == m(x=5.0) == 35.0 and back.params == ("x",)


def test_symbolic_models_are_not_numeric():
    assert not Model.parse("x*log2(x) + max(x, 3)").is_numeric


def test_numeric_model_needs_an_identifier_name():
    with pytest.raises(ModelError, match="identifier"):
        Model.numeric("my spline", lambda v: v, ["x"])


def test_asymptotic_maximum_in_the_size_breaks_ties_by_the_leading_difference():
    b, c = Model.parse("4096*x"), Model.parse("0.5 + 4096*x")  # equal in floats at x = 2^40
    assert maximum(b, c, param="x") is c and maximum(c, b, param="x") is c
    bn, cn = Model.parse("103*x*log2(x)/n"), Model.parse("(0.5 + 103*x*log2(x))/n")
    assert maximum(bn, cn, param="x") is cn and maximum(cn, bn, param="x") is cn


def test_asymptotic_maximum_in_the_size_holds_other_parameters_fixed():
    qsort_n, inc = Model.parse("1034.17*x*log2(x)/n"), Model.parse("536.185*x")
    assert maximum(qsort_n, inc, param="x") is qsort_n
    assert str(maximum(qsort_n, inc)) == "Max(536.185*x, 1034.17*x*log2(x)/n)"  # incomparable in x and n
