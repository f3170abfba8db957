"""A composed program as a benchmark target: runs that lost their cores are taken again."""
from __future__ import annotations

import time

import numpy as np
import pytest

from perfcompose.compose.parser import parse_term
from perfcompose.runtime.target import TermTarget
from perfcompose.runtime.worker import runqueue_wait_ns


def _spin(a):
    t = time.thread_time()
    while time.thread_time() - t < 0.001:
        pass
    return a


def _spinning_pipe(retry_disturbed: int, retake_budget: float) -> TermTarget:
    """A pipe of two spinning stages as a target (the test is skipped where the kernel does not
    report runqueue waits, which tell a disturbed run)."""
    if runqueue_wait_ns() is None:
        pytest.skip("the kernel does not report runqueue waits")
    return TermTarget([parse_term("pipe(spin, spin)")], {"spin": _spin}, lambda x: np.zeros(int(x)),
                      count=8, min_time=0, retry_disturbed=retry_disturbed, retake_budget=retake_budget)


def test_a_run_that_lost_its_cores_is_taken_again_and_counted(busy_machine):
    target = _spinning_pipe(retry_disturbed=2, retake_budget=1000)  # the first run may take far longer
    with busy_machine():
        t = target.measure({"term": 0, "x": 4})
    assert t > 0
    assert target.retaken == 2 and target.kept_disturbed == 1


def test_retakes_stop_when_they_cost_more_than_their_budget(busy_machine):
    target = _spinning_pipe(retry_disturbed=3, retake_budget=0.5)
    with busy_machine():
        for _ in range(4):
            target.measure({"term": 0, "x": 4})
    # a machine that stays busy gets a few retakes, not three per run
    assert 1 <= target.retaken < 4 * 3


def _run(finished_ms, warmup=1, workers=1):
    from perfcompose.runtime.executor import RunResult

    finished = (np.asarray(finished_ms, dtype=float) * 1e6).astype(np.int64)
    return RunResult("p", "threads", workers, np.zeros_like(finished), finished, warmup)


def test_median_period_keeps_the_pace_of_a_run_interrupted_once():
    from perfcompose.runtime.target import median_period

    # one element per ms, with a 20 ms stall after the 10th completion
    stamps = np.arange(1, 41, dtype=float)
    stamps[10:] += 20
    run = _run(stamps)
    assert run.per_element * 1e3 > 1.4  # the average carries the stall
    assert median_period(run, 1) * 1e3 == pytest.approx(1.0)


def test_median_period_of_two_workers_finishing_in_pairs_is_the_pool_period():
    from perfcompose.runtime.target import median_period

    # two workers, 2 ms per element each, finishing 0.1 ms apart: one element per ms on average
    stamps = np.sort(np.concatenate([np.arange(2, 42, 2.0), np.arange(2, 42, 2.0) + 0.1]))
    run = _run(stamps, warmup=2, workers=2)
    assert median_period(run, 2) * 1e3 == pytest.approx(run.per_element * 1e3, rel=0.01)
    assert median_period(run, 2) * 1e3 == pytest.approx(1.0, rel=0.01)


def test_own_threads_cpu_since_counts_what_this_process_ran():
    from perfcompose.runtime.target import own_cpu_since, thread_cpu_ns

    before = thread_cpu_ns()
    if before is None:
        pytest.skip("the kernel does not report thread CPU times")
    t = time.thread_time()
    while time.thread_time() - t < 0.02:
        pass
    used = own_cpu_since(before)
    assert used is not None and used >= 0.019


def test_waiting_for_the_programs_own_threads_is_not_lost_to_others():
    import dataclasses

    from perfcompose.runtime.target import WAKE_LATENCY, _disturbed, lost_to_others

    # 40 elements over 40 ms; the two workers waited 10 ms for a core in all
    waited = dataclasses.replace(_run(np.arange(1, 41, dtype=float), workers=2), runqueue_wait=0.010)
    allowance = WAKE_LATENCY * 40
    # the feeding thread ran 9.5 ms beside them: only the rest is other programs' doing
    assert lost_to_others(waited, 0.0095) == pytest.approx(0.0005 - allowance)
    assert not _disturbed(waited, lost_to_others(waited, 0.0095))
    assert lost_to_others(waited, 0.0) == pytest.approx(0.010 - allowance)
    assert _disturbed(waited, lost_to_others(waited, 0.0))
    assert lost_to_others(waited, 0.020) == 0.0
    assert lost_to_others(waited, None) is None
