"""GOAL text read by the compiled reader: the NumPy reader's columns wherever it reads a text,
None (and the other readers) for the rest, block by block as at once."""
from __future__ import annotations

import io

import numpy as np
import pytest
from random_programs import random_program

from perfcompose.loggp.goal import goal_compiled
from perfcompose.loggp.goal.goal_arrays import read_goal_arrays
from perfcompose.loggp.goal.goal_compiled import compiled_reader, read_goal_compiled
from perfcompose.loggp.goal.schedule import _parse_lines, goal_text, parse_goal, program_to_goal

pytestmark = pytest.mark.skipif(compiled_reader() is None, reason="the extension _cgoal_text is not built")

FORMS = ("num_ranks 3\n\nrank 2 {\nl0: recv 8b from -1 tag -1\nl1: calc 5 cpu 1\nl1 requires l0\n}\n"
         "rank 0 {\nl3: send 8b to 2 tag 7 cpu 1 nic 2\nl4: send 100b to 2 nic 1\nl9: calc 0\n"
         "l9 irequires l3\nl9 requires l4\n  l5:send 12345678b to 1 tag 99999999\t\r\n}\n"
         "rank 1 {\nl0: recv 12345678b from 0 tag 99999999999\nrecv 1b from 2\n}")


def _both(text: str) -> tuple[dict | None, dict | None]:
    data = text.encode()
    return read_goal_compiled(io.BytesIO(data).read, len(data)), read_goal_arrays(io.BytesIO(data).read)


def _assert_same(c: dict, a: dict) -> None:
    assert c.keys() == a.keys()
    for k in a:
        if isinstance(a[k], np.ndarray):
            assert a[k].dtype == c[k].dtype and np.array_equal(a[k], c[k]), k
        else:
            assert a[k] == c[k], k


@pytest.mark.parametrize("text", [goal_text(program_to_goal(random_program(s, P=7, M=60))) for s in range(2)] + [FORMS])
def test_what_numpy_reads_the_compiled_reader_reads_alike(text):
    c, a = _both(text)
    assert c is not None and a is not None
    _assert_same(c, a)


def test_blocks_of_a_few_lines_read_as_the_whole(monkeypatch):
    text = goal_text(program_to_goal(random_program(5, P=7, M=60)))
    whole = _both(text)[0]
    monkeypatch.setattr(goal_compiled, "_BLOCK", 64)  # rank blocks and the state cross many blocks
    assert whole is not None and (small := _both(text)[0]) is not None
    _assert_same(small, whole)


@pytest.mark.parametrize("text", [
    "num_ranks 1\n// a comment\nrank 0 {\nl0: calc 5\n}\n",                      # comments
    "num_ranks 1\nrank 0 {\nfirst: calc 5\n}\n",                                   # other labels
    "num_ranks 2\nrank 0 {\nl0: calc 5 cpu -1\n}\n",                               # -1 outside a receive
    "num_ranks 2\nrank 0 {\nl0: send 8b to 2\n}\n",                                # a peer out of range
    "num_ranks 2\nrank 0 {\nl0: calc 5\n",                                         # not closed
])
def test_what_it_does_not_read_the_other_readers_read(text):
    assert _both(text)[0] is None
    try:
        expected = _parse_lines(text)
    except Exception as exc:  # the line reader's error, named as before
        with pytest.raises(type(exc)):
            parse_goal(text)
        return
    got = parse_goal(text)
    assert np.array_equal(got.kind, expected.kind) and np.array_equal(got.cpu, expected.cpu)


def test_changed_texts_are_read_as_numpy_reads_them_or_left_to_it():
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
        c, a = _both("".join(chars))
        if c is not None:
            read += 1
            assert a is not None, "".join(chars)
            _assert_same(c, a)
    assert read > 40  # many changed texts are still of the form it reads
