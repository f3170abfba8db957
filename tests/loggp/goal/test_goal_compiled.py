"""GOAL text read by the compiled reader: the line reader's columns wherever it reads a text,
None (and the line reader) for the rest, block by block as at once; labels read only when asked for."""
from __future__ import annotations

import io

import numpy as np
import pytest
from random_programs import random_program

from perfcompose.loggp import LogGP
from perfcompose.loggp.goal import goal_compiled
from perfcompose.loggp.goal.goal_compiled import read_goal_compiled
from perfcompose.loggp.goal.loggopsim import simulate_goal
from perfcompose.loggp.goal.schedule import (
    LazySequence,
    _parse_lines,
    goal_text,
    parse_goal,
    program_to_goal,
    read_goal,
)
from perfcompose.loggp.kernels.backend import extension

pytestmark = pytest.mark.skipif(extension("_cgoal_text") is None, reason="the extension _cgoal_text is not built")

FORMS = ("num_ranks 3\n\nrank 2 {\nl0: recv 8b from -1 tag -1\nl1: calc 5 cpu 1\nl1 requires l0\n}\n"
         "rank 0 {\nl3: send 8b to 2 tag 7 cpu 1 nic 2\nl4: send 100b to 2 nic 1\nl9: calc 0\n"
         "l9 irequires l3\nl9 requires l4\n  l5:send 12345678b to 1 tag 99999999\t\r\n}\n"
         "rank 1 {\nl0: recv 12345678b from 0 tag 99999999999\nrecv 1b from 2\n}")


COLUMNS = ("op_ptr", "kind", "size", "peer", "tag", "cpu", "nic", "req_a", "req_b", "ireq_a", "ireq_b", "lines")


def _compiled(text: str) -> dict | None:
    data = text.encode()
    return read_goal_compiled(io.BytesIO(data), len(data))


def _assert_same(c: dict, text: str) -> None:
    """The compiled reader's columns are the line reader's."""
    want = _parse_lines(text)
    assert c["num_ranks"] == want.num_ranks
    for k in COLUMNS:
        assert np.array_equal(c[k], getattr(want, k)), k


@pytest.mark.parametrize("text", [goal_text(program_to_goal(random_program(s, P=7, M=60))) for s in range(2)] + [FORMS])
def test_the_compiled_reader_reads_as_the_line_reader(text):
    c = _compiled(text)
    assert c is not None
    _assert_same(c, text)
    assert c["tag"].dtype == (np.int64 if "99999999999" in text else np.int32)


def test_blocks_of_a_few_lines_read_as_the_whole(monkeypatch):
    text = goal_text(program_to_goal(random_program(5, P=7, M=60)))
    whole = _compiled(text)
    monkeypatch.setattr(goal_compiled, "_BLOCK", 64)  # rank blocks and the state cross many blocks
    assert whole is not None and (small := _compiled(text)) is not None
    for k in COLUMNS:
        assert small[k].dtype == whole[k].dtype and np.array_equal(small[k], whole[k]), k


@pytest.mark.parametrize("text", [
    "num_ranks 1\n// a comment\nrank 0 {\nl0: calc 5\n}\n",                      # comments
    "num_ranks 1\nrank 0 {\nfirst: calc 5\n}\n",                                   # other labels
    "num_ranks 2\nrank 0 {\nl0: calc 5 cpu -1\n}\n",                               # -1 outside a receive
    "num_ranks 2\nrank 0 {\nl0: send 8b to 2\n}\n",                                # a peer out of range
    "num_ranks 2\nrank 0 {\nl0: calc 5\n",                                         # not closed
])
def test_what_it_does_not_read_the_line_reader_reads(text):
    assert _compiled(text) is None
    try:
        expected = _parse_lines(text)
    except Exception as exc:  # the line reader's error, named as before
        with pytest.raises(type(exc)):
            parse_goal(text)
        return
    got = parse_goal(text)
    assert np.array_equal(got.kind, expected.kind) and np.array_equal(got.cpu, expected.cpu)


def test_changed_texts_are_read_as_the_line_reader_reads_them_or_left_to_it():
    rng = np.random.default_rng(0)
    base = FORMS + "\n"
    alphabet = list("0123456789lbx-: {}\nsendrecvcalctofromtagcpunicrequires")
    read = 0
    for _ in range(400):
        chars = list(base)
        for _ in range(int(rng.integers(1, 3))):
            i = int(rng.integers(0, len(chars)))
            how = int(rng.integers(0, 4))
            if how == 3 and chars[i].isdigit():  # mostly still readable: other values
                chars[i] = str(rng.integers(0, 10))
            elif how == 0:
                chars[i] = str(rng.choice(alphabet))
            elif how == 1:
                del chars[i]
            elif how == 2:
                chars.insert(i, str(rng.choice(alphabet)))
        c = _compiled("".join(chars))
        if c is not None:
            read += 1
            _assert_same(c, "".join(chars))
    assert read > 40  # many changed texts are still of the form it reads


FIELDS = ("op_ptr", "kind", "size", "peer", "tag", "cpu", "nic", "req_a", "req_b", "ireq_a", "ireq_b", "lines")


def _same(text: str) -> None:
    assert isinstance(parse_goal(text).labels, LazySequence), "read by the columns"
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
    assert not isinstance(sched.labels, LazySequence)
    assert sched.num_ops == text.count(": calc") and sched.req_a.size == (1 if "requires" in text else 0)


def test_labels_are_read_from_the_file_only_when_asked(write_file):
    path = write_file("s.goal", "num_ranks 2\nrank 1 {\nl5: recv 8b from 0\n}\nrank 0 {\nl2: send 8b to 1\n}\n")
    sched = read_goal(path)
    assert isinstance(sched.labels, LazySequence)
    assert sched.labels._items is None
    assert list(sched.labels) == ["l2", "l5"]
    assert sched.describe(0) == "send l2 (peer 1, tag 0)"
