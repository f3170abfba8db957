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


def test_mean_median_and_variation_stay_finite_near_the_largest_double():
    from perfcompose.variation import mean, median

    big = [1e308, 1e308]
    assert mean(big) == 1e308 and median(big) == 1e308
    assert coefficient_of_variation(big) == 0.0
    assert mean([1e308, 5e307]) == pytest.approx(7.5e307) and median([1e308, 5e307, 1e308, 5e307]) == 7.5e307
    assert coefficient_of_variation([1e308, 5e307]) == pytest.approx(coefficient_of_variation([2.0, 1.0]))
    assert Point((1.0,), (1e308, 1e308)).median == 1e308


def test_mean_and_median_of_ordinary_values_are_numpys():
    from perfcompose.variation import mean, median

    v = [0.1, 0.7, 0.2, 1e-300, 3.3]
    assert mean(v) == float(np.mean(v)) and median(v) == float(np.median(v))
