"""Co-runs: a chain beside another, against the same chain alone in the same harness."""
from __future__ import annotations

import concurrent.futures
import multiprocessing
import time

import numpy as np
import pytest

from perfcompose.compose.interference import TURNS
from perfcompose.runtime.corun import CROWDED, CoRun, CoRunTarget, co_run, pooled_period
from perfcompose.runtime.worker import cpu_demand_ns


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


def _numpy_sum(n: int) -> float:
    """NumPy over a large array: computes without the GIL."""
    return float(np.sort(np.arange(n, 0, -1, dtype=np.int64)).sum())


def _copies(chain, element, min_time=0.05, retries=0):
    """A target of two copies of ``chain`` (term 0) and the chain alone (term 1), with both
    co-runs' concurrency as terms 2 and 3; a run disturbed by other programs is taken again up to
    ``retries`` times."""
    return CoRunTarget([[[chain], [chain]], [[chain]]], [[lambda x: element] * 2, [lambda x: element]],
                       concurrent=[0, 1], retries=retries, min_time=min_time)


def _cores_of_two_copies(chain, element) -> float:
    """The cores two copies keep busy over the chain's alone, the median of three rounds (as a
    study takes the median of its rounds), each at least 0.2 s long (shorter windows scatter with
    the machine's load)."""
    target = _copies(chain, element, min_time=0.2)
    return float(np.median([target.measure({"term": 2, "x": 1}) / target.measure({"term": 3, "x": 1})
                            for _ in range(3)]))


@pytest.mark.skipif(cpu_demand_ns() is None, reason="the kernel does not report a thread's run and wait times")
def test_two_copies_of_a_chain_that_holds_the_gil_keep_the_cores_of_one_busy():
    # where other programs keep every core busy, both copies wait in the run queue and read as
    # demand: that only adds to a reading, so the lowest of a few is the lock's (a chain without
    # the lock reads 1.6-2 on a quiet machine and more on a busy one, and still fails)
    readings: list[float] = []
    while len(readings) < 3 and (not readings or readings[-1] > TURNS):
        readings.append(_cores_of_two_copies(_python_loop, 20_000))
    assert min(readings) <= TURNS, readings


@pytest.mark.skipif(cpu_demand_ns() is None, reason="the kernel does not report a thread's run and wait times")
def test_two_copies_of_a_chain_that_releases_the_gil_keep_the_cores_of_two_busy():
    # a thread that waits for a core counts as one that runs: other programs do not hide it
    assert _cores_of_two_copies(_numpy_sum, 200_000) > 1.6


def test_two_copies_of_a_chain_that_sleeps_without_the_gil_run_at_once():
    # calls of 20 ms: waking up on a busy machine takes a few, whether one thread sleeps or two
    target = _copies(_sleep, 20.0, min_time=0.1)
    beside, alone = target.measure({"term": 0, "x": 1}), target.measure({"term": 1, "x": 1})
    assert beside / alone < 1.3


def test_two_chains_that_hold_the_gil_take_turns_at_it_each_slowed_about_twice():
    # a dozen calls of ~0.1 ms each fit in one switch interval (5 ms): a run that short would see
    # one chain run through its calls alone; the run lasts several intervals, so both take turns
    def period(chains, calls):
        run = co_run(chains, [[4_000] * 12 for _ in chains], calls=[calls] * len(chains))
        assert all(len(c) >= 4 for c in run.calls), [len(c) for c in run.calls]
        return np.array(run.periods)

    a, b = [lambda n: _python_loop(n)], [lambda n: _python_loop(n // 2)]

    def slowdowns():
        alone = [period([a], 400)[0], period([b], 400)[0]]  # each alone over tens of milliseconds
        return period([a, b], 12) / alone

    # the interpreter shares the lock unevenly over a few turns and the machine's load moves a
    # single reading: the median of three, as a study takes the median of its rounds; the two
    # cannot both run at their pace alone (chains that run at once read about 1 each)
    f = np.median([slowdowns() for _ in range(3)], axis=0)
    assert max(f) > 1.4 and sum(1 / f) < 1.6, f


def test_a_failing_chain_is_reported_as_the_point_s_failure():
    from perfcompose.bench.runner import TargetFailed

    def fail(_):
        raise ValueError("bad element")

    target = CoRunTarget([[[fail]]], [[lambda x: 1]], retries=0)
    try:
        target.measure({"term": 0, "x": 1})
    except TargetFailed as exc:
        assert "bad element" in exc.failure.message
    else:
        raise AssertionError("the failure was not reported")


def test_a_chain_far_shorter_than_its_neighbour_starts_its_inputs_over_instead_of_leaving_it_alone():
    # ten calls of 5 ms: the short chain's thread may start late on a busy machine
    run = co_run([[_sleep], [lambda v: v]], [[5.0] * 10, [0] * 4])
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


def test_copies_of_a_chain_that_holds_the_gil_through_whole_calls_give_a_finite_period():
    # calls of tens of milliseconds that hold the GIL: one copy may finish no call inside the
    # window the other ran in; the pair's period is still the copies' that did
    target = _copies(_python_loop, 400_000, min_time=0.05)
    for _ in range(3):
        assert np.isfinite(target.measure({"term": 0, "x": 1}))


_POOL = concurrent.futures.ThreadPoolExecutor(1)


def _own_threads(ms: float) -> float:
    """Waits while a thread of its own computes (as a BLAS's caller waits for its threads)."""
    _POOL.submit(_python_loop, int(ms * 20_000)).result()
    return ms


def test_a_chain_with_threads_of_its_own_counts_their_cores():
    # the caller waits while its own thread computes: the cores kept busy are the thread's
    # (a worker that sleeps as long keeps none busy; a run in which its wake-ups waited for a core
    # that other programs held is taken again, as a study takes it)
    assert _copies(_own_threads, 20.0, min_time=0.1).measure({"term": 3, "x": 1}) > 0.4
    assert _copies(_sleep, 20.0, min_time=0.1, retries=3).measure({"term": 3, "x": 1}) < 0.2


def test_copies_of_a_chain_count_their_calls_together_as_a_pool_does():
    # a lock handed over unfairly: one copy runs at its pace alone (1 s), the other gets a call
    # in 11 s; per copy the pool takes 2 / (1 + 1/11) s, not the mean of the periods (6 s)
    assert pooled_period([1.0, 11.0]) == pytest.approx(2 / (1 + 1 / 11))
    # a copy with no call inside the window adds nothing: the pool runs at the other's pace
    assert pooled_period([1.0, float("nan")]) == pytest.approx(2.0)
    assert np.isnan(pooled_period([float("nan"), float("nan")]))


def test_a_run_stops_at_its_limit_once_every_chain_made_a_call():
    # 50 calls of 20 ms would take a second; after 0.1 s each chain counts as through
    start = time.perf_counter()
    run = co_run([[_sleep], [_sleep]], [[20.0], [20.0]], calls=[50, 50], limit=0.1)
    assert time.perf_counter() - start < 0.6
    assert all(1 <= len(c) < 50 for c in run.calls)
    assert run.periods[0] == pytest.approx(0.02, rel=0.5)


def _spin(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def test_a_co_run_beside_a_busy_program_is_crowded():
    # the copies run pinned to their cores: a program that keeps a core busy beside them stalls
    # them as it would not stall a pool's workers, free to move; the target records the share of
    # a core it kept (in whole clock ticks: over every run kept at the point)
    target = _copies(_python_loop, 20_000, min_time=0.2)
    busy = multiprocessing.get_context("spawn").Process(target=_spin, args=(20.0,), daemon=True)
    busy.start()
    try:
        time.sleep(0.3)
        for _ in range(3):
            target.measure({"term": 0, "x": 1})
    finally:
        busy.terminate()
    assert target.wait_share[(0, 1)] > CROWDED


def test_clock_ticks_beside_quiet_runs_do_not_crowd_them():
    # the system counts whole ticks at both ends of a run: a short run reads a tick of others'
    # time, or less than none; summed over the runs kept at a point, they even out
    target = _copies(_python_loop, 20_000)
    for beside in (0.01, -0.01, 0.02, -0.005):
        target._record((0, 1.0), CoRun((), (0.001,), 0.05, 0.0, beside=beside, span=0.05))
    assert target.wait_share[(0, 1.0)] == 0.0
    target._record((0, 1.0), CoRun((), (0.001,), 0.05, 0.0, beside=0.2, span=0.2))
    assert target.wait_share[(0, 1.0)] > CROWDED
