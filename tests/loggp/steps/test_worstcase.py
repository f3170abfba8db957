"""Section 4.2 of paper 002: the overestimation algorithm (receive everything, then send), with
cycles broken by forced sends. L = 10, o = 2, g = 5, G = 1; 1-byte messages arrive 12 after
their send starts."""
from __future__ import annotations

import numpy as np
import pytest

from perfcompose.loggp import CommStep, LogGP, simulate_step, worst_case_step
from perfcompose.loggp.steps.worstcase import cycle_candidates

P = LogGP(L=10, o=2, g=5, G=1)


def timeline(r):
    return [[(op.kind, op.message, op.start, op.end) for op in ops] for ops in r.ops()]


def test_a_forwarding_processor_receives_first():
    # 0 -> 1 and 1 -> 2 in one step. Standard: 1 sends at 0. Worst case: 1 waits for message 0
    # (receive [12, 14]), then sends at 12 + 2 + max(4, 5) - 4 = 15; 2 receives at 27.
    step = CommStep.from_messages(3, [[0, 1, 1], [1, 2, 1]])
    assert timeline(simulate_step(step, P, ties="rank"))[1][0] == ("send", 1, 0, 2)
    r = worst_case_step(step, P)
    assert timeline(r) == [[("send", 0, 0, 2)], [("recv", 0, 12, 14), ("send", 1, 15, 17)],
                           [("recv", 1, 27, 29)]]
    assert r.forced == ()


def test_fan_in_then_out_receives_all_before_sending():
    # 1 and 2 send to 0 (arrive 12 and 12: received 12 and 17); 0 then sends to 3 at
    # 17 + 2 + 1 = 20, arriving at 32
    step = CommStep.from_messages(4, [[1, 0, 1], [2, 0, 1], [0, 3, 1]])
    r = worst_case_step(step, P)
    assert timeline(r)[0] == [("recv", 0, 12, 14), ("recv", 1, 17, 19), ("send", 2, 20, 22)]
    assert r.makespan == 34


# a cycle 0 <-> 1 fed by 2 -> 0: m0 = 2 -> 0, m1 = 0 -> 1, m2 = 1 -> 0
CYCLE = CommStep.from_messages(3, [[2, 0, 1], [0, 1, 1], [1, 0, 1]])
# forcing 0: 2 sends m0 at 0 (arrives 12). 0 receives what it has, m0 [12,14], sends m1 at
#   12 + 2 + 1 = 15 [15,17] (arrives 27); 1 receives it [27,29], sends m2 at 30 (arrives 42);
#   0 receives m2 at max(15 + 2 + 5, 42) = 42: finishes at 44.
FORCE_0 = [[("recv", 0, 12, 14), ("send", 1, 15, 17), ("recv", 2, 42, 44)],
           [("recv", 1, 27, 29), ("send", 2, 30, 32)], [("send", 0, 0, 2)]]
# forcing 1: 1 sends m2 at 0 (arrives 12); 0 now has everything: m0 and m2 both arrive at 12,
#   received at 12 and 17; sends m1 at 17 + 3 = 20 (arrives 32); 1 receives it at
#   max(0 + 2 + 5, 32) = 32: finishes at 34.
FORCE_1 = [[("recv", 0, 12, 14), ("recv", 2, 17, 19), ("send", 1, 20, 22)],
           [("send", 2, 0, 2), ("recv", 1, 32, 34)], [("send", 0, 0, 2)]]


def test_cycle_with_a_feeder_edge_forced_choice_changes_the_result():
    assert cycle_candidates(CYCLE, np.array([False, False, True])) == [0, 1]
    r = worst_case_step(CYCLE, P, ties="rank")
    assert [f.processor for f in r.forced] == [0] and r.forced[0].candidates == (0, 1)
    assert timeline(r) == FORCE_0 and r.makespan == 44
    seen = {}
    for seed in range(20):
        r = worst_case_step(CYCLE, P, seed=seed)
        (forced,) = r.forced
        assert timeline(r) == (FORCE_0 if forced.processor == 0 else FORCE_1)
        assert worst_case_step(CYCLE, P, seed=seed).forced == r.forced  # the seed reproduces it
        seen[forced.processor] = r.makespan
    assert seen == {0: 44, 1: 34}


def test_two_cycles_one_feeding_the_other():
    # 0 <-> 1 feeds 2 <-> 3 (edge 1 -> 2): only the upstream cycle is a candidate at first;
    # after it is broken, 2 <-> 3 still waits on itself and is broken by a second forced send
    step = CommStep.from_messages(4, [[0, 1, 1], [1, 0, 1], [1, 2, 1], [2, 3, 1], [3, 2, 1]])
    assert cycle_candidates(step, np.zeros(4, bool)) == [0, 1]
    r = worst_case_step(step, P, ties="rank")
    assert [(f.processor, f.candidates) for f in r.forced] == [(0, (0, 1)), (2, (2, 3))]
    assert sorted(op.message for ops in r.ops() for op in ops if op.kind == "recv") == [0, 1, 2, 3, 4]


def test_worst_case_is_never_faster_on_a_dag():
    rng = np.random.default_rng(3)
    for _ in range(30):
        n = 6
        a = rng.integers(0, n, 12)
        b = rng.integers(0, n, 12)
        keep = a < b  # edges from lower to higher rank: no cycle
        step = CommStep.from_arrays(n, a[keep], b[keep], rng.integers(1, 20, keep.sum()))
        std = simulate_step(step, P, ties="rank")
        worst = worst_case_step(step, P)
        assert worst.forced == ()
        assert worst.makespan >= std.makespan


@pytest.mark.parametrize("origin", ["end", "start"])
def test_every_message_is_received_once(origin):
    rng = np.random.default_rng(5)
    src = rng.integers(0, 8, 60)
    dst = (src + rng.integers(1, 8, 60)) % 8
    step = CommStep.from_arrays(8, src, dst, rng.integers(1, 100, 60))
    r = worst_case_step(step, P, gap_origin=origin, seed=1)
    assert r.forced  # random patterns on 8 processors have cycles
    for ops in r.ops():
        for x, y in zip(ops, ops[1:]):
            assert y.start >= x.end
    recvs = sorted(op.message for ops in r.ops() for op in ops if op.kind == "recv")
    assert recvs == list(range(60))


def test_forced_sends_on_a_random_pattern_come_from_the_waiting_cycles():
    """On a dense random pattern every forced processor is one of the candidates a fresh pass
    finds for the processors that had sent before it."""
    rng = np.random.default_rng(7)
    P, M = 40, 400
    src = rng.integers(0, P, M)
    dst = (src + rng.integers(1, P, M)) % P
    step = CommStep.from_arrays(P, src, dst, rng.integers(1, 100, M).astype(float))
    r = worst_case_step(step, LogGP(L=1.0, o=0.5, g=0.6, G=0.01), seed=3)
    assert len(r.forced) >= 1
    order = np.argsort(r.send_seq)
    for f in r.forced:
        first_send = np.flatnonzero(step.src[order] == f.processor)[0]
        sent = np.zeros(P, dtype=bool)
        sent[step.src[order[:first_send]]] = True
        assert f.processor in f.candidates
        assert list(f.candidates) == cycle_candidates(step, sent)
