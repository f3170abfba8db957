"""Composition from parts measured in context with co-run slowdowns (time sharing)."""
from __future__ import annotations

import numpy as np
import pytest

from perfcompose.compose.context import Stage, in_context
from perfcompose.compose.interference import InContext, convoy_share, interference, locked, parallel_share, predict
from perfcompose.compose.parser import parse_term


def _at(text: str, m: InContext) -> float:
    return float(predict(in_context(parse_term(text)), m)[0])


def test_a_chain_is_the_sum_of_its_parts_in_the_executor_on_the_data_they_receive():
    m = InContext({"a": np.array([10.0]), "b@a": np.array([4.0]), "b": np.array([99.0])})
    assert _at("seq(a, b)", m) == pytest.approx(14.0)


def test_a_pool_of_a_chain_that_runs_in_parallel_divides_by_its_width():
    a = Stage(("a",))
    m = InContext({"a": np.array([10.0])}, slowdown={(a, a): np.array([1.0])})
    assert _at("tpool_2(a)", m) == pytest.approx(5.0)


def test_a_pool_of_a_locked_chain_runs_no_faster_than_one_worker():
    a = Stage(("a",))
    m = InContext({"a": np.array([10.0])}, slowdown={(a, a): np.array([2.0])})
    assert _at("tpool_2(a)", m) == pytest.approx(10.0)


def test_a_pool_of_a_locked_chain_runs_one_copy_at_a_time_however_slow_copies_side_by_side_read():
    # two copies pinned side by side handing a lock back and forth read 5x their harness's call
    # alone; without their own time per call the pool's workers take turns: one worker's time
    a = Stage(("a",))
    m = InContext({"a": np.array([10.0])}, slowdown={(a, a): np.array([5.0])},
                  concurrency={a: np.array([1.0])}, cores={a: np.array([1.0])})
    assert m.locked(a)
    assert _at("tpool_2(a)", m) == pytest.approx(10.0)
    assert locked(2.0) and not locked(1.1)


def test_a_pool_of_a_locked_chain_shows_a_share_of_the_convoy_of_two_copies_side_by_side():
    # each copy took 3x its call alone beside the other: two elements per 3 calls, half a call
    # more per element than one worker alone (a hand-over of the lock costs the waiting thread's
    # wake-up). The pool's workers hand the lock over at every element as well: of a call of
    # 20 us it shows 0.35 of that excess, of a call of 2 ms 0.89. Where the copies kept the pace
    # of one worker between them, the pool keeps it too; where other programs took the cores
    # from the pinned copies (NaN), one worker's time
    a = Stage(("a",))
    alone = np.array([2e4, 2e6, 2e4, 2e4])
    m = InContext({"a": alone}, slowdown={(a, a): np.array([3.0, 3.0, 1.2, 3.0])},
                  concurrency={a: np.array([1.0] * 4)}, cores={a: np.array([1.0] * 4)},
                  together={a: np.array([6e4, 6e6, 2.4e4, np.nan])})
    assert predict(in_context(parse_term("tpool_2(a)")), m) == pytest.approx([2.35e4, 2.89e6, 2e4, 2e4])
    assert convoy_share(np.array([1e3, 2e4, 2e5, 2e7])) == pytest.approx([0.3, 0.35, 0.62, 1.0])


def test_a_pool_of_a_chain_that_holds_the_lock_for_part_of_its_call_keeps_the_gain_of_copies_run_in_parallel():
    # two copies side by side each took 1.4x the chain alone per call: 0.7 of its time per
    # element. Where they kept 1.5 cores busy between them (TURNS) the pool keeps all of that
    # gain; at 1.25 cores half of it; at one core (they took turns throughout; the harness's call
    # is faster than the executor's) none
    a = Stage(("a",))
    alone = np.array([1e5, 1e5, 1e5])
    m = InContext({"a": alone}, slowdown={(a, a): np.array([1.4] * 3)},
                  concurrency={a: np.array([1.5, 1.25, 1.0])}, cores={a: np.array([1.0] * 3)},
                  together={a: np.array([1.4e5] * 3)})
    assert m.locked(a)
    assert predict(in_context(parse_term("tpool_2(a)")), m) == pytest.approx([7e4, 8.5e4, 1e5])
    assert parallel_share(np.array([0.9, 1.0, 1.25, 1.5, 1.9, np.nan])) == pytest.approx([0, 0, 0.5, 1, 1, 0])


def test_interference_is_how_far_the_co_run_measurements_move_a_prediction():
    # a chain's parts are only added: nothing moves it; two stages that both hold one lock take
    # 14 where the slower one alone is 10; a locked pool keeps one worker's 10 over the width's 5
    a, b, fed = Stage(("a",)), Stage(("b",)), Stage(("b@a",))
    m = InContext({"a": np.array([4.0]), "b": np.array([10.0]), "b@a": np.array([10.0])},
                  slowdown={(a, fed): np.array([2.0]), (fed, a): np.array([2.0]), (b, b): np.array([2.0])})
    assert interference(in_context(parse_term("seq(a, b)")), m) == pytest.approx([0.0])
    assert interference(in_context(parse_term("pipe(a, b)")), m) == pytest.approx([np.log(1.4)])
    assert interference(in_context(parse_term("tpool_2(b)")), m) == pytest.approx([np.log(2.0)])


@pytest.mark.parametrize("time_a, time_b, a_beside_b, b_beside_a, expected", [
    pytest.param(4.0, 10.0, 1.0, 1.0, 10.0, id="stages that do not meet take the slower stage"),
    pytest.param(4.0, 10.0, 2.0, 2.0, 14.0, id="stages that both hold one lock take their sum"),
    # P_b = 10 + 5 * 1.2 * (1 - 1 / 1.25) = 11.2; P_a = 5 + 10 * 1.25 * (1 - 1 / 1.2) < P_b
    pytest.param(5.0, 10.0, 1.2, 1.25, 11.2,
                 id="the bottleneck is slowed for the share of the time the other stage runs"),
])
def test_a_pipe_of_two_stages_in_context(time_a, time_b, a_beside_b, b_beside_a, expected):
    """``a_beside_b``: the co-run slowdown of stage a while b runs, ``b_beside_a`` the other way."""
    a, b = Stage(("a",)), Stage(("b@a",))
    m = InContext({"a": np.array([time_a]), "b@a": np.array([time_b])},
                  slowdown={(a, b): np.array([a_beside_b]), (b, a): np.array([b_beside_a])})
    assert _at("pipe(a, b)", m) == pytest.approx(expected)


def test_members_compose_row_by_row():
    a = Stage(("a",))
    m = InContext({"a": np.array([[10.0, 20.0], [12.0, 24.0]])}, slowdown={(a, a): np.array([[1.0], [2.0]])})
    assert predict(in_context(parse_term("tpool_2(a)")), m).tolist() == [[5.0, 10.0], [12.0, 24.0]]


def test_a_stage_is_the_bottleneck_only_where_the_other_stage_s_busy_time_fits_in_its_period():
    # a back-to-back short stage would slow its neighbour 66-fold; as the bottleneck it would
    # leave that neighbour 66 x 40 busy within its own period, which cannot be: the pipe is
    # the long stage's
    a, b = Stage(("a",)), Stage(("b@a",))
    m = InContext({"a": np.array([40.0]), "b@a": np.array([0.1])},
                  slowdown={(a, b): np.array([66.0]), (b, a): np.array([1.05])})
    assert _at("pipe(a, b)", m) == pytest.approx(40.0 + 0.1 * 1.05 * (1 - 1 / 66))


def test_a_pool_of_a_chain_with_threads_of_its_own_is_oversubscribed_not_locked():
    # copies that keep no more cores busy than one copy, but one copy alone keeps 2 busy (a
    # BLAS): the pool pays the measured co-run slowdown, not a lock's full width
    a = Stage(("a",))
    own = InContext({"a": np.array([10.0])}, slowdown={(a, a): np.array([1.5])},
                    concurrency={a: np.array([1.0])}, cores={a: np.array([2.0])})
    assert own.threaded(a) and not own.locked(a)
    assert _at("tpool_2(a)", own) == pytest.approx(7.5)
    # the same readings for a chain on its worker's thread alone are a lock
    one = InContext({"a": np.array([10.0])}, slowdown={(a, a): np.array([1.5])},
                    concurrency={a: np.array([1.0])}, cores={a: np.array([1.0])})
    assert one.locked(a) and not one.threaded(a)
    assert _at("tpool_2(a)", one) == pytest.approx(10.0)
