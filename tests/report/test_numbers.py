"""Numbers as tables print them: significant digits, sizes as integers, models rounded."""
from __future__ import annotations

import math

import pytest

from perfcompose.model import Model
from perfcompose.report.numbers import point, short_model, sig, size


@pytest.mark.parametrize("value, digits, text", [
    (1234.5678, 4, "1235"), (0.000123456, 4, "0.0001235"), (3.0, 4, "3"), (2.5e11, 4, "2.500e+11"),
    (-42.4242, 3, "-42.4"), (0.0, 4, "0"), (123456789.0, 4, "123500000"), (1.2e-7, 2, "1.2e-07"),
])
def test_sig_keeps_the_significant_digits(value: float, digits: int, text: str) -> None:
    assert sig(value, digits) == text
    assert math.isclose(float(text), value, rel_tol=10 ** (1 - digits))


def test_sig_names_what_is_not_a_number() -> None:
    assert (sig(math.nan), sig(math.inf), sig(-math.inf), sig(None)) == ("n/a", "inf", "-inf", "-")


def test_sizes_print_as_integers() -> None:
    assert size(2.0 ** 20) == "1048576" and size(2.5) == "2.5" and size(4) == "4"
    assert point({"x": 2.0 ** 20, "n": 4.0}) == "x=1048576, n=4"


def test_short_model_rounds_coefficients_only() -> None:
    m = Model.parse("1034.1712345*x*log2(x) + 5422.9712345", unit="ns")
    assert short_model(m, 4) == "5423 + 1034*x*log2(x)"
    assert short_model(m, 6) == "5422.97 + 1034.17*x*log2(x)"
