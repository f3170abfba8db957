"""LogGOPSim compatibility: GOAL schedules and LogGOPSim's semantics (separate send and receive
gaps, receive overhead charged on arrival, events in creation order), worked by hand with
L = 10, o = 2, g = 5, G = 1 unless said otherwise."""
from __future__ import annotations

import pytest
from bad_goal import BAD_GOAL

from perfcompose.errors import InputError
from perfcompose.loggp import CommStep, CompStep, LogGP, Program, simulate_program
from perfcompose.loggp.goal.loggopsim import simulate_goal
from perfcompose.loggp.goal.schedule import goal_text, parse_goal, program_to_goal, read_goal

P = LogGP(L=10, o=2, g=5, G=1)

PING = """// a ping-pong with a computation in between
num_ranks 2
rank 0 {
  l1: send 8b to 1 tag 0
  l2: calc 100
  l3: recv 8b from 1 tag 0
  l2 requires l1
  l3 requires l2
}
rank 1 {
  l1: recv 8b from 0 tag 0   /* posted at time 0 */
  l2: send 8b to 0 tag 0
  l2 requires l1
}
"""


def test_ping_pong_worked_by_hand():
    # rank 0 sends at 0: CPU busy until 2, send gap until 0 + g + 7G = 12; the message's first
    #   byte reaches rank 1 at 0 + o + L = 12. The eager send is done at once, so the calc is
    #   issued at nexto = 2: [2, 102].
    # rank 1 charges the arrival at 12: o + 7G = 9, CPU busy until 21; the posted receive
    #   matches and completes; the send is issued at 21: [21, 23]; it reaches rank 0 at 33.
    # rank 0's CPU is busy until 102: the message is re-queued to 102, where the receive (issued
    #   when the calc completed, so created before the re-queued message) is posted first; the
    #   message is then charged [102, 111]. Finish times (latest nexto): 111 and 23.
    res = simulate_goal(parse_goal(PING), P)
    assert list(res.finish) == [111, 23]
    assert list(res.start[0]) == [0, 2, 102] and list(res.end[0]) == [2, 102, 111]
    assert list(res.start[1]) == [12, 21] and list(res.end[1]) == [21, 23]


WORKED = CommStep.from_messages(2, [[0, 1, 1], [1, 0, 1], [0, 1, 1]], [[0, 2], [1]])


def test_separate_send_and_receive_gaps_change_the_worked_timeline():
    # L = 10, o = 2, g = 14, G = 0. Both ranks send at 0 (s0, s1; CPU until 2, send gaps until
    # 14); s2 waits for rank 0's send gap: 14. m0 and m1 arrive at 12 and are charged [12, 14]
    # at once (receive gaps were free). s2 [14, 16] reaches rank 1 at 26; its receive gap (12 +
    # 14 = 26) allows it then: [26, 28]. The paper's rules give 32 and 32 (docs/loggp.md).
    r = simulate_program(Program(2, (WORKED,)), LogGP(10, 2, 14, 0), semantics="loggopsim")
    assert list(r.finish) == [16, 28]
    assert r.ops[0] == [("send", 0, 0, 2), ("recv", 1, 12, 14), ("send", 2, 14, 16)]
    assert r.ops[1] == [("send", 1, 0, 2), ("recv", 0, 12, 14), ("recv", 2, 26, 28)]


def test_long_message_overhead_charged_from_the_first_byte():
    # 5 bytes: first byte at 0 + 2 + 10 = 12; receive charged o + 4G = 6: [12, 18]
    # (the paper's rules: the last byte arrives at 16, received [16, 18]: same end, other start)
    prog = Program(2, (CommStep.from_messages(2, [[0, 1, 5]]),))
    assert simulate_program(prog, P, semantics="loggopsim").ops[1] == [("recv", 0, 12, 18)]
    assert simulate_program(prog, P).ops[1] == [("recv", 0, 16, 18)]


def test_rendezvous_send_completes_when_matched():
    # S = 4: an 8-byte send completes only when the receiver matches it (at 12), so rank 0's
    # calc, which requires the send, starts at 12 instead of 2
    text = ("num_ranks 2\nrank 0 {\n a: send 8b to 1\n b: calc 5\n b requires a\n}\n"
            "rank 1 {\n r: recv 8b from 0\n}\n")
    eager = simulate_goal(parse_goal(text), P)
    rdv = simulate_goal(parse_goal(text), P, S=4)
    assert eager.start[0][1] == 2 and rdv.start[0][1] == 12 and rdv.finish[0] == 17


def test_any_source_and_irequires():
    # rank 2 receives from any source; its calc may start once the receive has started (posted)
    text = ("num_ranks 3\nrank 0 {\n s: send 1b to 2 tag 7\n}\nrank 1 {\n}\n"
            "rank 2 {\n r: recv 1b from -1 tag -1\n c: calc 3\n c irequires r\n}\n")
    res = simulate_goal(parse_goal(text), P)
    assert res.start[2][1] == 0 and res.end[2][1] == 3
    assert res.start[2][0] == 12  # charged on arrival, CPU free again at 3


def test_program_to_goal_round_trips_through_text():
    prog = Program(3, (CompStep.of([1, 2, 3]), CommStep.from_messages(3, [[0, 1, 10], [1, 2, 10], [0, 2, 5]])))
    sched = program_to_goal(prog)
    again = parse_goal(goal_text(sched))
    assert [[(o.kind, o.size, o.peer, o.tag) for o in r.ops] for r in again.ranks] == \
        [[(o.kind, o.size, o.peer, o.tag) for o in r.ops] for r in sched.ranks]
    assert simulate_goal(again, P).finish.tolist() == simulate_goal(sched, P).finish.tolist()


def test_fractional_times_need_a_scale():
    prog = Program(2, (CompStep.of([1.5, 2]),))
    with pytest.raises(InputError, match="integer"):
        goal_text(program_to_goal(prog))
    assert "calc 1500" in goal_text(program_to_goal(prog), time_scale=1000)


@pytest.mark.parametrize("text, line, needle", BAD_GOAL)
def test_goal_errors_are_located(text, line, needle):
    with pytest.raises(InputError) as info:
        parse_goal(text, "x.goal")
    assert needle in str(info.value) and info.value.line == line and "x.goal" in str(info.value)


def test_deadlocked_schedule_is_reported():
    text = "num_ranks 2\nrank 0 {\n r: recv 1b from 1\n}\nrank 1 {\n}\n"
    with pytest.raises(InputError, match="never completes recv r"):
        simulate_goal(parse_goal(text), P)


def test_read_goal_file(write_file):
    assert read_goal(write_file("p.goal", PING)).num_ranks == 2


def _random_schedule(seed: int, P: int, M: int, max_bytes: int, wild: float = 0.0):
    import numpy as np

    from perfcompose.loggp.goal.schedule import RECV, GoalSchedule

    rng = np.random.default_rng(seed)
    steps = []
    for _ in range(2):
        src = rng.integers(0, P, M)
        dst = (src + rng.integers(1, P, M)) % P
        steps.append(CommStep.from_arrays(P, src, dst, rng.integers(1, max_bytes, M).astype(float)))
        steps.append(CompStep.of(rng.integers(0, 50, P).astype(float)))
    s = program_to_goal(Program(P, tuple(steps)))
    if wild:  # some receives from any source (their tags, the message ids, still pick one message)
        peer = s.peer.copy()
        peer[(s.kind == RECV) & (rng.random(s.num_ops) < wild)] = -1
        s = GoalSchedule(**{**{f: getattr(s, f) for f in s.__dataclass_fields__}, "peer": peer})
    return s


@pytest.mark.parametrize("seed, P, M, max_bytes, wild", [
    (1, 3, 12, 10, 0.0), (2, 8, 60, 40, 0.0), (3, 8, 60, 40, 0.5), (4, 20, 400, 30, 0.2), (5, 5, 40, 40, 0.0),
])
def test_compiled_kernel_matches_the_plain_loop(seed, P, M, max_bytes, wild):
    # sizes around S = 16 mix eager and rendezvous messages; 20 ranks x 400 messages give more
    # than 16 operations ready at once (the unstable part of LogGOPSim's ordering)
    import numpy as np

    from perfcompose.loggp.goal.loggopsim_reference import reference_times

    s = _random_schedule(seed, P, M, max_bytes, wild)
    params = LogGP(L=10, o=2, g=5, G=1)
    res = simulate_goal(s, params, S=16, O=0.5)
    finish, start, end, _ = reference_times(s, params, S=16, O=0.5)
    assert res.finish.tolist() == finish.tolist()
    assert np.array_equal(res.op_start, start)
    assert np.array_equal(res.op_end, end)


def test_default_threshold_is_loggopsims():
    # a 100 kB message is a rendezvous under LogGOPSim's default S = 65535: the sender's calc,
    # which requires the send, waits until the receiver matches it at o + L = 12
    text = ("num_ranks 2\nrank 0 {\na: send 100000b to 1\nb: calc 5\nb requires a\n}\n"
            "rank 1 {\nr: recv 100000b from 0\n}\n")
    assert simulate_goal(parse_goal(text), P).start[0][1] == 12
    assert simulate_goal(parse_goal(text), P, S=float("inf")).start[0][1] == 2


def test_many_ranks_and_messages_match_the_plain_loop():
    """A program whose (destination, source, tag) keys exceed 32 bits when combined: P = 1000
    ranks, 3,000 messages (tags are message ids) run through its GOAL schedule as in the plain loop."""
    import numpy as np

    from perfcompose.loggp.goal.loggopsim_reference import reference_times

    rng = np.random.default_rng(11)
    P, M = 1000, 3000
    src = rng.integers(0, P, M)
    dst = (src + rng.integers(1, P, M)) % P
    prog = Program(P, (CommStep.from_arrays(P, src, dst, rng.integers(1, 100, M).astype(float)),))
    params = LogGP(L=10, o=2, g=5, G=1)
    schedule = program_to_goal(prog)
    finish, _, _, _ = reference_times(schedule, params)
    assert simulate_goal(schedule, params).finish.tolist() == finish.tolist()
    assert simulate_program(prog, params, semantics="loggopsim", timelines=False).makespan == finish.max()

