"""Section 3 (the gaps, Figure 1) and section 4 (the algorithm, Figure 2) of paper 002, on small
patterns whose timelines are worked out by hand in each test.

Unless a test says otherwise: L = 10, o = 2, g = 5, G = 1. A k-byte message sent at s occupies
its sender over [s, s+2], arrives at s + 2 + (k-1) + 10, and occupies its receiver for 2.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfcompose.errors import InputError
from perfcompose.loggp import CommStep, LogGP, simulate_step
from perfcompose.loggp.steps.simulate import (
    Op,
    arrival_time,
    recv_after_recv,
    recv_after_send,
    reference_step,
    send_after_recv,
    send_after_send,
)

P = LogGP(L=10, o=2, g=5, G=1)


def timeline(r):
    return [[(op.kind, op.message, op.start, op.end) for op in ops] for ops in r.ops()]


def test_section3_rules_as_functions():
    # a 3-byte message sent at 0: last byte leaves at 2 + 2*1 = 4, arrives 10 later
    assert arrival_time(0, 3, P) == 14
    # back-to-back long sends are spaced by g + (k-1)G = 5 + 2
    assert send_after_send(0, 3, P) == 7
    # send -> receive, "end" reading: g after the last byte left (4 + 5); "start": from the send's start
    assert recv_after_send(0, 3, P, "end") == 9
    assert recv_after_send(0, 3, P, "start") == 7
    # receive -> send: max(2o, g) - 2o = 1 after the receive's end (2), or after its start (but >= o)
    assert send_after_recv(0, P, "end") == 3
    assert send_after_recv(0, P, "start") == 2
    # receive -> receive: g apart
    assert recv_after_recv(0, P) == 5


def test_one_message():
    # send [0, 2]; arrival 0 + 2 + 0*G + 10 = 12; receive [12, 14]
    r = simulate_step(CommStep.from_messages(2, [[0, 1, 1]]), P)
    assert timeline(r) == [[("send", 0, 0, 2)], [("recv", 0, 12, 14)]]
    assert list(r.finish) == [2, 14] and r.makespan == 14


def test_one_long_message():
    # 5 bytes: the last byte leaves (5-1)*1 = 4 after the overhead: arrival 0 + 2 + 4 + 10 = 16
    r = simulate_step(CommStep.from_messages(2, [[0, 1, 5]]), P)
    assert timeline(r)[1] == [("recv", 0, 16, 18)]


def test_fan_in_receives_are_g_apart():
    # 1, 2, 3 each send 1 byte to 0 at time 0 (ties by rank: 1 acts first, then 2, then 3);
    # all arrive at 12; 0 receives them in arrival (= send) order, g = 5 apart: 12, 17, 22
    step = CommStep.from_messages(4, [[1, 0, 1], [2, 0, 1], [3, 0, 1]])
    r = simulate_step(step, P, ties="rank")
    assert timeline(r)[0] == [("recv", 0, 12, 14), ("recv", 1, 17, 19), ("recv", 2, 22, 24)]
    assert r.makespan == 24


def test_fan_out_long_messages_spaced_by_g_plus_kG():
    # 0 sends 3 bytes to 1, 2, 3: sends g + (k-1)G = 7 apart: 0, 7, 14;
    # arrivals s + 2 + 2 + 10: 14, 21, 28; receives end 2 later
    step = CommStep.from_messages(4, [[0, 1, 3], [0, 2, 3], [0, 3, 3]])
    r = simulate_step(step, P)
    assert timeline(r) == [[("send", 0, 0, 2), ("send", 1, 7, 9), ("send", 2, 14, 16)],
                           [("recv", 0, 14, 16)], [("recv", 1, 21, 23)], [("recv", 2, 28, 30)]]


def test_send_order_is_respected():
    # the same fan-out with send order [2, 0, 1]: message 2 goes first
    step = CommStep.from_messages(4, [[0, 1, 3], [0, 2, 3], [0, 3, 3]], [[2, 0, 1], [], [], []])
    r = simulate_step(step, P)
    assert [(op.message, op.start) for op in r.ops()[0]] == [(2, 0), (0, 7), (1, 14)]


def test_path_in_one_step_sends_before_receiving():
    # 0 -> 1 -> 2 in one step: every send is available at the step's start, so 1 sends at 0;
    # its receive of message 0 (arrival 12) comes after: send -> receive gap 0 + 2 + 0 + 5 = 7 < 12
    step = CommStep.from_messages(3, [[0, 1, 1], [1, 2, 1]])
    r = simulate_step(step, P, ties="rank")
    assert timeline(r)[1] == [("send", 1, 0, 2), ("recv", 0, 12, 14)]
    assert timeline(r)[2] == [("recv", 1, 12, 14)]


def test_receive_wins_a_tie_with_a_send():
    # 1 enters the step at 12, exactly when message 0 (sent by 0 at 0) arrives: its send could
    # start at 12 and so could the receive; receives win ties: receive [12, 14], then
    # send at 12 + 2 + max(2o, g) - 2o = 15 ("end"), arriving at 2 at 15 + 2 + 10 = 27
    step = CommStep.from_messages(3, [[0, 1, 1], [1, 2, 1]])
    r = simulate_step(step, P, start=[0, 12, 0])
    assert timeline(r)[1] == [("recv", 0, 12, 14), ("send", 1, 15, 17)]
    assert timeline(r)[2] == [("recv", 1, 27, 29)]
    # "start" reading: the send may begin max(o, max(2o, g) - 2o) = 2 after the receive's start
    r = simulate_step(step, P, start=[0, 12, 0], gap_origin="start")
    assert timeline(r)[1] == [("recv", 0, 12, 14), ("send", 1, 14, 16)]


def test_a_send_that_starts_earlier_goes_first():
    # 1 enters at 11, one before the arrival: its send [11, 13] goes first; the receive then waits
    # for the send -> receive gap: 11 + 2 + 0 + 5 = 18
    step = CommStep.from_messages(3, [[0, 1, 1], [1, 2, 1]])
    r = simulate_step(step, P, start=[0, 11, 0])
    assert timeline(r)[1] == [("send", 1, 11, 13), ("recv", 0, 18, 20)]


# the worked timeline of docs/loggp.md: L = 10, o = 2, g = 14, G = 0 (1-byte messages);
# 0 sends m0 then m2 to 1, 1 sends m1 to 0.
WORKED = CommStep.from_messages(2, [[0, 1, 1], [1, 0, 1], [0, 1, 1]], [[0, 2], [1]])
WG = LogGP(L=10, o=2, g=14, G=0)


def test_worked_timeline_end_reading():
    # t=0: 0 and 1 tie; by rank 0 sends m0 [0,2] (arrives 12); its next send >= 0 + 14,
    #      its next receive >= 0 + 2 + 14 = 16 (g after the send's end).
    # 1 (next send 0) has m0 pending but it arrives at 12 > 0: 1 sends m1 [0,2] (arrives 12 at 0).
    # 0 (next send 14): receive could start at max(16, 12) = 16 > 14: send m2 [14,16] (arrives 26).
    # drain: 0 receives m1 at max(14 + 2 + 14, 12) = 30; 1 receives m0 at max(0 + 2 + 14, 12) = 16
    #        and m2 at max(16 + 14, 26) = 30.
    r = simulate_step(WORKED, WG, ties="rank")
    assert timeline(r) == [[("send", 0, 0, 2), ("send", 2, 14, 16), ("recv", 1, 30, 32)],
                           [("send", 1, 0, 2), ("recv", 0, 16, 18), ("recv", 2, 30, 32)]]


def test_worked_timeline_start_reading():
    # as above, but 0's next receive is >= max(o, g) = 14 after the send's start: at 14 its
    # receive of m1 (arrived 12) ties with its send m2 and wins: receive [14,16]; the send then
    # waits max(o, max(2o, g) - 2o) = 10 from the receive's start: m2 [24,26], arriving at 36.
    # 1 receives m0 at max(0 + 14, 12) = 14 and m2 at max(14 + 14, 36) = 36.
    r = simulate_step(WORKED, WG, ties="rank", gap_origin="start")
    assert timeline(r) == [[("send", 0, 0, 2), ("recv", 1, 14, 16), ("send", 2, 24, 26)],
                           [("send", 1, 0, 2), ("recv", 0, 14, 16), ("recv", 2, 36, 38)]]


def test_random_ties_are_seeded_and_both_orders_occur():
    # 0 and 1 both send 1 byte to 2 at time 0; whichever acts first arrives first (both at 12) and
    # is received at 12, the other g later at 17
    step = CommStep.from_messages(3, [[0, 2, 1], [1, 2, 1]])
    firsts = set()
    for seed in range(30):
        r = simulate_step(step, P, seed=seed)
        first = r.ops()[2][0].message
        assert [op.start for op in r.ops()[2]] == [12, 17]
        assert simulate_step(step, P, seed=seed).ops()[2][0].message == first  # reproducible
        firsts.add(first)
    assert firsts == {0, 1}
    assert all(simulate_step(step, P, ties="rank", seed=s).ops()[2][0].message == 0 for s in range(5))


def test_gaps_carry_over_from_an_earlier_step():
    # a processor that received at 12 (earlier step) may send from 12 + 2 + 1 = 15 on
    step = CommStep.from_messages(2, [[0, 1, 1]])
    r = simulate_step(step, P, start=[14, 0], ready=(np.array([15.0, 0.0]), np.array([17.0, 0.0])))
    assert timeline(r)[0] == [("send", 0, 15, 17)]


def test_bad_options_are_input_errors():
    step = CommStep.from_messages(2, [[0, 1, 1]])
    with pytest.raises(InputError, match="gap origin"):
        simulate_step(step, P, gap_origin="middle")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="start times"):
        simulate_step(step, P, start=[0, 1, 2])


@st.composite
def steps(draw):
    n = draw(st.integers(2, 6))
    m = draw(st.integers(0, 25))
    msgs = []
    for _ in range(m):
        a = draw(st.integers(0, n - 1))
        b = draw(st.integers(0, n - 2))
        msgs.append([a, b if b < a else b + 1, draw(st.integers(0, 40))])
    t0 = draw(st.lists(st.integers(0, 30), min_size=n, max_size=n))
    params = LogGP(*(draw(st.integers(0, 15)) for _ in range(4)))
    seed = draw(st.integers(0, 1000))
    order = np.random.default_rng(seed).permutation(m)
    send_order = [[int(i) for i in order if msgs[i][0] == p] for p in range(n)]
    return CommStep.from_messages(n, msgs, send_order), np.array(t0, float), params


@settings(max_examples=150, deadline=None)
@given(steps(), st.sampled_from(["end", "start"]))
def test_compiled_kernel_matches_the_plain_reading_of_figure2(case, origin):
    step, t0, params = case
    fast = simulate_step(step, params, start=t0, ties="rank", gap_origin=origin)
    slow = reference_step(step, params, start=t0, gap_origin=origin)
    assert fast.ops() == slow.ops()
    assert np.array_equal(fast.finish, slow.finish)
    assert np.array_equal(fast.next_send, slow.next_send) and np.array_equal(fast.next_recv, slow.next_recv)


@settings(max_examples=100, deadline=None)
@given(steps(), st.integers(0, 2 ** 31))
def test_every_random_schedule_obeys_the_rules(case, seed):
    step, t0, p = case
    r = simulate_step(step, p, start=t0, seed=seed)
    for q, ops in enumerate(r.ops()):
        assert all(op.start >= t0[q] for op in ops)
        for a, b in zip(ops, ops[1:]):  # single port, and the gap between consecutive operations
            assert b.start >= a.end
            if a.kind == "send" and b.kind == "send":
                assert b.start >= send_after_send(a.start, step.nbytes[a.message], p)
            if a.kind == "send" and b.kind == "recv":
                assert b.start >= recv_after_send(a.start, step.nbytes[a.message], p)
            if a.kind == "recv" and b.kind == "send":
                assert b.start >= send_after_recv(a.start, p)
            if a.kind == "recv" and b.kind == "recv":
                assert b.start >= recv_after_recv(a.start, p)
        for op in ops:
            if op.kind == "recv":
                assert op.start >= arrival_time(r.send_start[op.message], step.nbytes[op.message], p)
    assert sorted(op.message for ops in r.ops() for op in ops if op.kind == "send") == list(range(step.M))


def test_op_is_a_plain_tuple():
    assert Op("send", 0, 0.0, 2.0) == ("send", 0, 0.0, 2.0)
