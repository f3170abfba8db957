"""The one finite-number check that every reader of JSON numbers asks."""
import math

import pytest

from perfcompose.finite import is_finite_number, is_number


@pytest.mark.parametrize("value", [0, 3, -2.5, 1e308])
def test_ints_and_floats_are_finite_numbers(value):
    assert is_number(value) and is_finite_number(value)


@pytest.mark.parametrize("value", [True, False, "1", None, [1.0], {"x": 1}])
def test_bools_text_and_containers_are_not_numbers(value):
    assert not is_number(value) and not is_finite_number(value)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_nan_and_infinities_are_numbers_but_not_finite(value):
    assert is_number(value) and not is_finite_number(value)
