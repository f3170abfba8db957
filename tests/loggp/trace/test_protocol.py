"""Messages above the eager limit go by rendezvous: a request to send and a clear to send of one
byte each before the data, written into the schedule so that LogGOPSim simulates them too."""
from __future__ import annotations

import numpy as np
import pytest

from perfcompose.errors import InputError
from perfcompose.loggp.goal.loggopsim import simulate_goal
from perfcompose.loggp.goal.schedule import goal_text, parse_goal
from perfcompose.loggp.params import LogGP
from perfcompose.loggp.trace.protocol import CLEAR_TAG, PROTOCOL_TAG, rendezvous

PARAMS = LogGP(1000.0, 300.0, 400.0, 0.5, "ns")
T, C = PROTOCOL_TAG, PROTOCOL_TAG + CLEAR_TAG

PING_PONG = """num_ranks 2

rank 0 {
l0: send 10000b to 1 tag 7
l1: recv 100b from 1 tag 7
l2: calc 500
l1 requires l0
l2 requires l1
}

rank 1 {
l0: recv 65536b from 0 tag 7
l1: send 100b to 0 tag 7
l1 requires l0
}
"""

BY_HAND = f"""num_ranks 2

rank 0 {{
l0: send 1b to 1 tag {7 + T}
l1: recv 1b from 1 tag {7 + C}
l2: send 10000b to 1 tag 7
l3: recv 100b from 1 tag 7
l4: calc 500
l1 requires l0
l2 requires l1
l3 requires l2
l4 requires l3
}}

rank 1 {{
l0: recv 1b from 0 tag {7 + T}
l1: send 1b to 0 tag {7 + C}
l2: recv 65536b from 0 tag 7
l3: send 100b to 0 tag 7
l1 requires l0
l2 requires l1
l3 requires l2
}}
"""


def makespan(schedule) -> float:
    return float(simulate_goal(schedule, PARAMS, timelines=False).makespan)


def test_a_message_above_the_limit_is_a_request_a_clear_and_the_data():
    expanded, src = rendezvous(parse_goal(PING_PONG), 4096)
    by_hand = parse_goal(BY_HAND)
    assert goal_text(expanded) == goal_text(by_hand)
    assert src.tolist() == [0, 0, 0, 1, 2, 3, 3, 3, 4]
    assert makespan(expanded) == makespan(by_hand)
    # two trips of one byte more than eagerly, each o + L + o
    assert makespan(expanded) == makespan(parse_goal(PING_PONG)) + 2 * (PARAMS.L + 2 * PARAMS.o)


def test_the_receive_follows_its_send_not_its_buffer_and_small_messages_stay():
    s = parse_goal(PING_PONG)
    same, src = rendezvous(s, 10000)   # the 10,000-byte message is not above the limit: nothing changes
    assert same is s and src.tolist() == list(range(s.num_ops))


def test_a_receive_from_any_source_above_the_limit_is_refused():
    text = PING_PONG.replace("l0: recv 65536b from 0 tag 7", "l0: recv 65536b from -1 tag 7")
    with pytest.raises(InputError, match="any source or tag"):
        rendezvous(parse_goal(text), 4096)


def test_dependencies_stay_ordered_by_the_operation_required():
    expanded, _ = rendezvous(parse_goal(PING_PONG), 4096)
    for b in (expanded.req_b, expanded.ireq_b):
        assert np.all(np.diff(b) >= 0)


EXCHANGE = """num_ranks 2

rank 0 {
l0: send 8000b to 1 tag 2
l1: recv 8000b from 1 tag 2
}

rank 1 {
l0: send 8000b to 0 tag 2
l1: recv 8000b from 0 tag 2
}
"""


def test_two_ranks_that_send_each_other_large_messages_at_once_do_not_take_one_for_the_other():
    expanded, _ = rendezvous(parse_goal(EXCHANGE), 4096)
    eager = makespan(parse_goal(EXCHANGE))
    assert makespan(expanded) == eager + 2 * (PARAMS.L + 2 * PARAMS.o)
