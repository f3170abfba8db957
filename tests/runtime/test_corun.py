"""Co-runs: a chain beside another, against the same chain alone in the same harness."""
from __future__ import annotations

import time

from perfcompose.runtime.corun import CoRunTarget, co_run


def _python_loop(n: int) -> int:
    """Pure Python: holds the GIL throughout."""
    total = 0
    for i in range(n):
        total += i
    return total


def _sleep(ms: float) -> float:
    """Waits without the GIL."""
    time.sleep(ms / 1000)
    return ms


def test_every_counted_call_ran_while_both_chains_were_running():
    run = co_run([[_sleep], [_sleep]], [[2.0] * 10, [5.0] * 10])
    assert len(run.calls) == 2 and all(len(c) >= 2 for c in run.calls)
    assert all(c.sum() <= run.window + 1e-3 for c in run.calls)


def test_two_copies_of_a_chain_that_holds_the_gil_take_turns():
    n = 200_000
    target = CoRunTarget([[[_python_loop], [_python_loop]], [[_python_loop]]], [[lambda x: n] * 2, [lambda x: n]],
                         retries=0, min_time=0.05)
    beside, alone = target.measure({"term": 0, "x": 1}), target.measure({"term": 1, "x": 1})
    assert beside / alone > 1.5


def test_two_copies_of_a_chain_that_releases_the_gil_run_at_once():
    target = CoRunTarget([[[_sleep], [_sleep]], [[_sleep]]], [[lambda x: 3.0] * 2, [lambda x: 3.0]],
                         retries=0, min_time=0.03)
    beside, alone = target.measure({"term": 0, "x": 1}), target.measure({"term": 1, "x": 1})
    assert beside / alone < 1.3


def test_a_failing_chain_is_reported_as_the_point_s_failure():
    from perfcompose.bench.runner import _Failed

    def fail(_):
        raise ValueError("bad element")

    target = CoRunTarget([[[fail]]], [[lambda x: 1]], retries=0)
    try:
        target.measure({"term": 0, "x": 1})
    except _Failed as exc:
        assert "bad element" in exc.failure.message
    else:
        raise AssertionError("the failure was not reported")


def test_a_chain_far_shorter_than_its_neighbour_starts_its_inputs_over_instead_of_leaving_it_alone():
    run = co_run([[_sleep], [lambda v: v]], [[5.0] * 4, [0] * 4])
    assert len(run.calls[0]) >= 2 and len(run.calls[1]) > 4


def test_chains_ten_times_apart_are_not_run_side_by_side():
    # a back-to-back loop of a GIL-holding microsecond call would hold up its neighbour manyfold,
    # a state no program of the two reaches: each chain counts its period alone
    target = CoRunTarget([[[_sleep], [lambda v: _python_loop(10)]]], [[lambda x: 3.0, lambda x: 0]], retries=0)
    assert target.apart(0, 1.0)
    assert 0.002 < target.measure({"term": 0, "x": 1.0}) < 0.02


def test_a_neighbour_without_a_call_inside_the_window_keeps_its_count():
    # a neighbour far longer than the window (one call of 50 ms beside 4 calls of 1 ms)
    target = CoRunTarget([[[_sleep], [_sleep]]], [[lambda x: 1.0, lambda x: 50.0]], retries=0, count=4,
                         min_time=0.001)
    target._apart[(0, 1.0)] = False
    assert target.measure({"term": 0, "x": 1.0}) > 0
    assert all(n >= 1 for n in target._count[(0, 1.0)])
