"""A traced run becomes the GOAL schedule Schedgen would write: computation between calls as calc
(ns), blocking calls chained by requires, nonblocking ones by irequires and joined at their wait,
collectives expanded; a run whose messages or collectives do not pair up is a located error."""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hand_traces import rank_trace

from perfcompose.errors import InputError
from perfcompose.loggp.goal.loggopsim import simulate_goal
from perfcompose.loggp.goal.schedule import goal_text, parse_goal, write_goal
from perfcompose.loggp.params import LogGP
from perfcompose.loggp.trace.collectives import ALGORITHMS
from perfcompose.loggp.trace.schedule import COLLECTIVE_TAG, trace_schedule
from perfcompose.loggp.trace.whatif import check_schedule

PING = [rank_trace(0, 2, [("send", 3, 4, 1, 5, 8), ("recv", 4, 9, 1, 6, 8), ("finalize", 12, 13)]),
        rank_trace(1, 2, [("recv", 1, 5, 0, 5, 8), ("send", 7, 8, 0, 6, 8), ("finalize", 10, 11)])]


def test_ping_pong_is_calc_send_recv_chained_by_requires():
    text = goal_text(trace_schedule(PING).schedule)
    assert text.split("rank 1")[0] == ("num_ranks 2\n\nrank 0 {\nl0: calc 2000\nl1: send 8b to 1 tag 5\n"
                                       "l2: recv 8b from 1 tag 6\nl3: calc 3000\nl1 requires l0\nl2 requires l1\n"
                                       "l3 requires l2\n}\n\n")
    assert "l0: recv 8b from 0 tag 5\nl1: calc 2000\nl2: send 8b to 0 tag 6\nl3: calc 2000\n" in text


def test_measured_span_and_simulated_makespan_in_seconds():
    traced = trace_schedule(PING)
    assert traced.measured == pytest.approx(11e-6)  # first MPI_Init end (1 us) to last Finalize start (12 us)
    assert traced.calc == pytest.approx([5e-6, 4e-6])
    c = check_schedule(traced, LogGP(1.0, 0.5, 0.0, 0.0, "us"))
    # rank 1: recv arrives at 2 + o + L = 3.5, ends 4; calc 2 -> 6; send 6..6.5 arrives 7.5 at rank 0, +o = 8; calc 3
    assert c.simulated == pytest.approx(11e-6) and c.last == 0
    assert c.outside_calc == pytest.approx(1 - 5 / 11)


def test_nonblocking_calls_are_joined_at_their_wait_and_any_source_takes_the_status():
    r0 = rank_trace(0, 2, [("irecv", 2, 3, -1, -1, 64, 11), ("isend", 3, 4, 1, 1, 16, 12),
                           ("done", 6, 7, 0, 1, 16, 12), ("done", 6, 7, 1, 2, 32, 11), ("finalize", 8, 9)])
    r1 = rank_trace(1, 2, [("sendrecv_send", 2, 5, 0, 2, 32), ("sendrecv_recv", 2, 5, 0, 1, 16), ("finalize", 6, 7)])
    s = parse_goal(goal_text(trace_schedule([r0, r1]).schedule)).ranks
    ops0 = [(o.kind, o.size, o.peer, o.tag) for o in s[0].ops]
    assert ops0 == [("calc", 1000, 0, 0), ("recv", 32, 1, 2), ("send", 16, 1, 1), ("calc", 2000, 0, 0),
                    ("calc", 0, 0, 0), ("calc", 1000, 0, 0)]
    assert set(s[0].irequires) == {(2, 1), (3, 2)}  # the isend may start once the irecv has started
    assert {(4, 1), (4, 2), (4, 3)} <= set(s[0].requires)  # the wait needs both requests and the calc
    assert {(1, 0), (2, 0), (3, 1), (3, 2)} <= set(s[1].requires)
    assert [o.kind for o in s[1].ops][:4] == ["calc", "send", "recv", "calc"]  # Sendrecv: both, then a join


@pytest.mark.parametrize(("collective", "algorithm"), [(c, a) for c, algs in ALGORITHMS.items() for a in algs])
@pytest.mark.parametrize("n", [1, 3, 4, 6])
def test_collectives_expand_into_schedules_that_complete(collective, algorithm, n):
    traces = [rank_trace(r, n, [(collective, 2, 3, n - 1, 0, 100), ("finalize", 5, 6)]) for r in range(n)]
    sched = trace_schedule(traces, {collective: algorithm}).schedule
    msgs = sched.kind != 2
    assert (sched.tag[msgs] == COLLECTIVE_TAG).all()
    res = simulate_goal(sched, LogGP(1000, 100, 100, 1, "ns"))
    assert np.all(res.finish >= 3000) and (n == 1 or res.makespan > 3000)  # 1 + 2 us of calc, plus messages


def test_a_subcommunicator_maps_its_ranks_to_world_ranks():
    comms = {0: (0, 1, 2), 1: (2, 0)}
    traces = [rank_trace(r, 3, [("bcast", 2, 3, 0, 0, 50, 0, 1), ("finalize", 5, 6)] if r != 1 else
                         [("finalize", 5, 6)], comms) for r in range(3)]
    s = trace_schedule(traces).schedule
    sends = [(int(s.rank_of[i]), int(s.peer[i])) for i in np.flatnonzero(s.kind == 0)]
    assert sends == [(2, 0)]  # rank 0 of the communicator is world rank 2


def test_a_receive_without_its_send_names_the_rank_and_call():
    bad = [PING[0], rank_trace(1, 2, [("recv", 1, 5, 0, 5, 8), ("send", 7, 8, 0, 6, 8), ("recv", 8, 9, 0, 7, 4),
                                      ("finalize", 10, 11)])]
    with pytest.raises(InputError, match=r"rank 1, call 3 \(MPI_Recv, peer 0, tag 7, 4 B\): no send from rank 0"):
        trace_schedule(bad)


def test_a_send_never_received_names_the_rank_and_call():
    bad = [rank_trace(0, 2, [("send", 3, 4, 1, 5, 8), ("send", 4, 5, 1, 5, 8), ("recv", 5, 9, 1, 6, 8),
                             ("finalize", 12, 13)]), PING[1]]
    with pytest.raises(InputError, match=r"rank 0, call 2 \(MPI_Send, peer 1, tag 5, 8 B\): rank 1 never receives"):
        trace_schedule(bad)


def test_collectives_called_differently_are_a_located_error():
    traces = [rank_trace(0, 2, [("bcast", 2, 3, 0, 0, 8), ("finalize", 5, 6)]),
              rank_trace(1, 2, [("allreduce", 2, 3, 0, 0, 8), ("finalize", 5, 6)])]
    with pytest.raises(InputError, match=r"rank 1, call 1 \(MPI_Allreduce.*does not match rank 0, call 1 \(MPI_Bcast"):
        trace_schedule(traces)
    short = [traces[0], rank_trace(1, 2, [("finalize", 5, 6)], {0: (0, 1)})]
    with pytest.raises(InputError, match=r"rank 0, call 1 \(MPI_Bcast.*no counterpart on rank 1"):
        trace_schedule(short)


def test_unknown_algorithm_is_refused_with_the_choices():
    with pytest.raises(InputError, match="no algorithm 'ring' for bcast") as err:
        trace_schedule(PING, {"bcast": "ring"})
    assert "binomial, linear" in str(err.value)


def test_polling_calls_leave_one_calc_of_the_computation_between_them():
    # a test at 5-6 us, a run of 3 probes from 8 to 11 us spending 2 us inside them
    r0 = rank_trace(0, 2, [("irecv", 2, 3, 1, 4, 8, 11), ("test", 5, 6, -2, 0, 1000, 1),
                           ("probe", 8, 11, -2, 0, 2000, 3), ("done", 14, 15, 1, 4, 8, 11), ("finalize", 16, 17)])
    r1 = rank_trace(1, 2, [("send", 12, 13, 0, 4, 8), ("finalize", 16, 17)])
    ops = parse_goal(goal_text(trace_schedule([r0, r1]).schedule)).ranks[0].ops
    # 3-5, 6-8, 1 us among the probes and 11-14 us are computation: one calc of 8 us
    assert [(o.kind, o.size) for o in ops] == [("calc", 1000), ("recv", 8), ("calc", 8000), ("calc", 0),
                                                ("calc", 1000)]


def test_a_cancelled_receive_and_one_never_completed_become_calc_0():
    r0 = rank_trace(0, 2, [("irecv", 2, 3, -1, -1, 8, 11), ("cancel", 4, 5, -2, 0, 0, 11),
                           ("done", 6, 7, -2, 0, 0, 11, 1), ("irecv", 8, 9, 1, 3, 8, 12), ("finalize", 10, 11)])
    r1 = rank_trace(1, 2, [("finalize", 10, 11)])
    s = trace_schedule([r0, r1]).schedule
    assert (s.kind == 2).all()  # no receive is left to wait for a message nobody sends
    assert simulate_goal(s, LogGP(1, 1, 1, 0, "us")).makespan == pytest.approx(9000)


def test_a_cancel_that_came_too_late_keeps_its_receive():
    r0 = rank_trace(0, 2, [("irecv", 2, 3, -1, -1, 8, 11), ("cancel", 4, 5, -2, 0, 0, 11),
                           ("done", 6, 7, 1, 5, 8, 11, 0), ("finalize", 10, 11)])
    r1 = rank_trace(1, 2, [("send", 2, 3, 0, 5, 8), ("finalize", 10, 11)])
    ops = parse_goal(goal_text(trace_schedule([r0, r1]).schedule)).ranks[0].ops
    assert [(o.kind, o.peer, o.tag) for o in ops if o.kind == "recv"] == [("recv", 1, 5)]


def test_requests_that_share_a_handle_complete_in_the_order_they_were_made():
    r0 = rank_trace(0, 2, [("isend", 2, 3, 1, 1, 0, 5), ("isend", 3, 4, 1, 2, 0, 5), ("done", 5, 6, -2, 0, 0, 5),
                           ("done", 5, 6, -2, 0, 0, 5), ("finalize", 10, 11)])
    r1 = rank_trace(1, 2, [("recv", 2, 3, 0, 1, 1), ("recv", 3, 4, 0, 2, 1), ("finalize", 10, 11)])
    rank0 = parse_goal(goal_text(trace_schedule([r0, r1]).schedule)).ranks[0]
    join = next(i for i, o in enumerate(rank0.ops) if o.kind == "calc" and o.size == 0)
    sends = [i for i, o in enumerate(rank0.ops) if o.kind == "send"]
    assert {(join, i) for i in sends} <= set(rank0.requires)  # the wait joins both sends


LOGGOPSIM = Path(os.environ["LOGGOPSIM_DIR"]) if os.environ.get("LOGGOPSIM_DIR") else None


@pytest.mark.skipif(LOGGOPSIM is None, reason="LogGOPSim not built here (set LOGGOPSIM_DIR)")
def test_loggopsim_reads_a_traced_schedule_and_agrees(tmp_path):
    assert LOGGOPSIM is not None
    n = 5
    calls = [(c, 10 * k + 2, 10 * k + 3, 1, 0, 70_000 if c == "bcast" else 512)
             for k, c in enumerate(a for a in ALGORITHMS)]
    traces = [rank_trace(r, n, [("irecv", 1, 1.5, (r - 1) % n, 3, 64, 7), ("isend", 1.6, 1.8, (r + 1) % n, 3, 64, 8),
                                *calls, ("done", 200, 201, (r - 1) % n, 3, 64, 7), ("done", 200, 201, -2, 0, 0, 8),
                                ("finalize", 210, 211)]) for r in range(n)]
    schedule = trace_schedule(traces).schedule
    write_goal(schedule, tmp_path / "t.goal")
    subprocess.run([str(LOGGOPSIM / "txt2bin"), "-i", str(tmp_path / "t.goal"), "-o", str(tmp_path / "t.bin")],
                   check=True, capture_output=True)
    out = subprocess.run([str(LOGGOPSIM / "LogGOPSim"), "-f", str(tmp_path / "t.bin"), "-L", "2500", "-o", "1500",
                          "-g", "1000", "-G", "6", "-b"], check=True, capture_output=True, text=True).stdout
    theirs = float(re.search(r"Maximum finishing time at host \d+: (\d+)", out).group(1))  # type: ignore[union-attr]
    assert simulate_goal(schedule, LogGP(2500, 1500, 1000, 6)).makespan == theirs


def test_a_completion_without_a_waiting_request_completes_nothing_and_the_handle_is_reused():
    r0 = rank_trace(0, 2, [("isend", 1, 2, 1, 1, 8, 7), ("done", 2, 3, 1, 1, 8, 7), ("done", 3, 4, 1, 1, 8, 7),
                           ("isend", 4, 5, 1, 2, 16, 7), ("done", 5, 6, 1, 2, 16, 7), ("finalize", 6, 7)])
    r1 = rank_trace(1, 2, [("recv", 1, 4, 0, 1, 8), ("recv", 4, 6, 0, 2, 16), ("finalize", 6, 7)])
    s = parse_goal(goal_text(trace_schedule([r0, r1]).schedule)).ranks[0]
    assert [(o.kind, o.size) for o in s.ops] == [("send", 8), ("calc", 0), ("send", 16), ("calc", 0)]
    assert sorted(s.requires) == [(1, 0), (2, 1), (3, 2)] and sorted(s.irequires) == [(1, 0), (3, 2)]
