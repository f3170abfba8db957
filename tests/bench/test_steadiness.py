"""The machine's steadiness: the fastest pace, the share of slowed probes, the 90th percentile."""
from __future__ import annotations

import pytest

from perfcompose.bench.steadiness import SLOW, probe, steadiness


def test_a_steady_machine_has_no_slow_probes():
    s = steadiness([2e-3] * 50)
    assert (s.probes, s.fastest, s.slow_share, s.p90) == (50, 2e-3, 0.0, 1.0)


def test_probes_on_a_slowed_core_count_against_the_fastest_pace():
    s = steadiness([1e-3] * 60 + [1.6e-3] * 40)
    assert s.fastest == pytest.approx(1e-3)
    assert s.slow_share == pytest.approx(0.4)
    assert s.p90 == pytest.approx(1.6)
    assert "40 % ran at least" in s.describe()


def test_a_probe_just_below_the_threshold_is_not_slow():
    assert steadiness([1.0] * 10 + [0.99 * SLOW]).slow_share == 0.0


def test_a_host_that_slowed_a_whole_probe_shows_in_the_pace_between_two_probes():
    # every probe of the first ran at half the pace of the second: alone it reads as steady
    before, after = steadiness([0.52e-3] * 50), steadiness([0.28e-3] * 40 + [0.4e-3] * 10)
    assert before.slow_share == 0.0
    assert before.moved(after) == after.moved(before) == pytest.approx(0.52 / 0.28)
    assert before.moved(before) == 1.0


def test_the_probe_times_the_work_for_about_the_time_asked():
    calls = []
    s = probe(0.05, work=lambda: calls.append(sum(range(2000))))
    assert s.probes == len(calls) > 1 and s.fastest > 0


@pytest.mark.parametrize("times", [[], [1.0, 0.0], [-1.0]])
def test_no_probe_or_a_non_positive_time_is_refused(times):
    with pytest.raises(ValueError):
        steadiness(times)
