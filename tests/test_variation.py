"""The one coefficient of variation: sample standard deviation over the mean, NaN where undefined."""
import math

import numpy as np
import pytest

from perfcompose.data.experiment import Point
from perfcompose.variation import coefficient_of_variation


def test_it_is_the_sample_standard_deviation_over_the_mean():
    v = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]
    assert coefficient_of_variation(v) == pytest.approx(np.std(v, ddof=1) / 5.0, rel=1e-15)


@pytest.mark.parametrize("values", [[], [3.0], [0.0, 0.0]])
def test_it_is_undefined_for_one_value_or_a_zero_mean(values):
    assert math.isnan(coefficient_of_variation(values))


def test_a_point_with_one_repetition_reports_no_variation():
    assert Point((1.0,), (4.0,)).cv == 0.0
    assert Point((1.0,), (9.0, 10.0, 11.0)).cv == pytest.approx(0.1)
