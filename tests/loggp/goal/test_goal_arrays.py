"""GOAL text read by the compiled readers, their columns assembled: the same schedule as the line
reader, the line reader for what they do not read (comments, other labels, errors), and labels read
only when asked for."""
from __future__ import annotations

import numpy as np
import pytest
from bad_goal import BAD_GOAL
from random_programs import random_program

from perfcompose.errors import InputError
from perfcompose.loggp import LogGP
from perfcompose.loggp.goal.goal_arrays import LazyLabels
from perfcompose.loggp.goal.goal_compiled import compiled_reader
from perfcompose.loggp.goal.loggopsim import simulate_goal
from perfcompose.loggp.goal.schedule import _parse_lines, goal_text, parse_goal, program_to_goal, read_goal

FIELDS = ("op_ptr", "kind", "size", "peer", "tag", "cpu", "nic", "req_a", "req_b", "ireq_a", "ireq_b", "lines")


def _same(text: str) -> None:
    assert compiled_reader() is None or isinstance(parse_goal(text).labels, LazyLabels), "read by the columns"
    old, new = _parse_lines(text), parse_goal(text)
    for f in FIELDS:
        assert np.array_equal(getattr(old, f), getattr(new, f)), f
    assert list(old.labels or ()) == list(new.labels or ())


@pytest.mark.parametrize("seed", range(3))
def test_a_written_program_reads_as_the_line_reader_reads_it(seed):
    text = goal_text(program_to_goal(random_program(seed, P=9, M=80)))
    _same(text)
    params = LogGP(10, 2, 5, 1)
    assert simulate_goal(parse_goal(text), params).makespan == simulate_goal(_parse_lines(text), params).makespan


def test_every_form_of_a_line_reads_as_the_line_reader_reads_it():
    _same("num_ranks 3\n\nrank 2 {\nl0: recv 8b from -1 tag -1\nl1: calc 5 cpu 1\nl1 requires l0\n}\n"
          "rank 0 {\nl3: send 8b to 2 tag 7 cpu 1 nic 2\nl4: send 100b to 2 nic 1\nl9: calc 0\n"
          "l9 irequires l3\nl9 requires l4\n  l5: send 12345678b to 1 tag 99999999\n}\n"
          "rank 1 {\nl0: recv 12345678b from 0 tag 99999999\n}")


@pytest.mark.parametrize("text", [
    "num_ranks 1\nrank 0 {\nfirst: calc 5\nsecond: calc 1\nsecond requires first\n}\n",   # other labels
    "num_ranks 1\n// a comment\nrank 0 {\nl0: calc 5 /* inline */\n}\n",                   # comments
    "num_ranks 1\nrank 0 {\na1: calc 5\nb1: calc 1\nb1 requires a1\n}\n",                   # two letters
    "num_ranks 1\nrank 0 {\nl0: calc 5\nl01: calc 1\nl01 requires l0\n}\n",                 # leading zero
])
def test_what_the_columns_do_not_read_the_line_reader_reads(text):
    sched = parse_goal(text)
    assert not isinstance(sched.labels, LazyLabels)
    assert sched.num_ops == text.count(": calc") and sched.req_a.size == (1 if "requires" in text else 0)


@pytest.mark.parametrize("text, line, needle", BAD_GOAL)
def test_errors_in_a_file_are_located_by_the_line_reader(write_file, text, line, needle):
    path = write_file("bad.goal", text)
    with pytest.raises(InputError) as info:
        read_goal(path)
    assert info.value.line == line and needle in str(info.value) and str(path) in str(info.value)


def test_labels_are_read_from_the_file_only_when_asked(write_file):
    path = write_file("s.goal", "num_ranks 2\nrank 1 {\nl5: recv 8b from 0\n}\nrank 0 {\nl2: send 8b to 1\n}\n")
    sched = read_goal(path)
    assert isinstance(sched.labels, LazyLabels) == (compiled_reader() is not None)
    assert not isinstance(sched.labels, LazyLabels) or sched.labels._items is None
    assert list(sched.labels) == ["l2", "l5"]
    assert sched.describe(0) == "send l2 (peer 1, tag 0)"
