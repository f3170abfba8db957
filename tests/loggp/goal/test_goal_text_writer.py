"""GOAL text made by NumPy a block of lines at a time: every kind of line and number, whatever the
blocks' bounds."""
from __future__ import annotations

import numpy as np
import pytest

from perfcompose.loggp.goal import goal_text_writer
from perfcompose.loggp.goal.schedule import GoalSchedule, goal_text, parse_goal

MIXED = """num_ranks 3

rank 0 {
l0: send 8b to 1 tag 4611686018427387904 cpu 2 nic 1
l1: calc 10000 cpu 3
l2: recv 99999b from -1 tag -1
l3: calc 0
l1 requires l0
l3 requires l2
l2 irequires l1
}

rank 1 {
}

rank 2 {
l0: recv 123456789b from 0 tag 9999
l1: send 1b to 0 tag 10000
}

"""


def _schedule(text: str) -> GoalSchedule:
    s = parse_goal(text)
    return GoalSchedule(s.num_ranks, s.op_ptr, s.kind, s.size, s.peer, s.tag, s.cpu, s.nic, s.req_a, s.req_b,
                        s.ireq_a, s.ireq_b)  # without its labels: written as l0, l1, ...


@pytest.mark.parametrize("rows", [1, 2, 5, 1 << 16])
def test_every_kind_of_line_whatever_the_blocks(monkeypatch, rows):
    monkeypatch.setattr(goal_text_writer, "_ROWS", rows)
    assert goal_text(_schedule(MIXED)) == MIXED


def test_a_schedule_without_operations():
    s = GoalSchedule(2, np.zeros(3, np.int64), *[np.zeros(0)] * 6, *[np.zeros(0, np.int64)] * 4)
    assert goal_text(s) == "num_ranks 2\n\nrank 0 {\n}\n\nrank 1 {\n}\n\n"


def test_own_labels_of_any_length_are_written():
    text = "num_ranks 1\n\nrank 0 {\nx: calc 1\nlongest_label_9: send 2b to 0 tag 0\nx requires longest_label_9\n}\n\n"
    assert goal_text(parse_goal(text)) == text


def test_numbers_around_every_group_of_four_digits():
    values = [0, 9, 10, 9999, 10000, 10001, 99_990_000, 10 ** 8, 2 ** 32 - 1, 2 ** 32, 2 ** 63 - 1]
    n = len(values)
    zeros, none = np.zeros(n, np.int64), np.zeros(0, np.int64)
    s = GoalSchedule(1, np.array([0, n]), np.full(n, 2, np.int8), np.ones(n), zeros, zeros,
                     np.array(values, np.int64), zeros, none, none, none, none)
    lines = [ln for ln in goal_text(s).splitlines() if "calc" in ln]
    assert [ln.split(" cpu ")[1] if " cpu " in ln else "0" for ln in lines] == [str(v) for v in values]
