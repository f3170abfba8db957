"""A GOAL schedule read into typed buffers without NumPy: the columns the NumPy readers give on
the texts perfcompose writes, and None (the NumPy readers then read it) for the forms it leaves
to them; as NumPy arrays, the line reader's columns (dependencies ordered by the operation required),
lines read again only when asked for."""
from __future__ import annotations

import dataclasses
import io
import subprocess
import sys

import numpy as np
import pytest
from random_programs import random_program

from perfcompose.loggp import LogGP
from perfcompose.loggp.goal import goal_buffers
from perfcompose.loggp.goal.goal_buffers import COLUMNS, read_goal_buffers
from perfcompose.loggp.goal.loggopsim import simulate_goal
from perfcompose.loggp.goal.schedule import _parse_lines, _read_lean, goal_text, parse_goal, program_to_goal, read_goal
from perfcompose.loggp.kernels.backend import extension

pytestmark = pytest.mark.skipif(not hasattr(extension("_cgoal_text"), "read_lean"),
                                reason="the compiled GOAL reader is not built")


@pytest.fixture(params=["whole", "blocks"])
def blocks(request, monkeypatch):
    """Each text read at once, and (as large texts are) a block at a time, lines cut at the blocks' ends."""
    if request.param == "blocks":
        monkeypatch.setattr(goal_buffers, "_BLOCK", 37)
    return request.param


@pytest.mark.parametrize("text", [
    goal_text(program_to_goal(random_program(1, P=7, M=60))),
    goal_text(program_to_goal(random_program(2, P=3, M=5, steps=1))),
    # cpu, nic, irequires, a rank without a block, any source and tag
    "num_ranks 4\nrank 0 {\nl0: send 8b to 2 tag 7 cpu 1 nic 2\nl1: calc 5 cpu 1\nl1 irequires l0\n}\n"
    "rank 2 {\nl0: recv 8b from -1 tag -1\nl1: send 3b to 3\nl1 requires l0\n}\n"
    "rank 3 {\nl0: recv 3b from 2\n}\n",
    # requires and irequires interleaved: each kept in its order
    "num_ranks 1\nrank 0 {\nl0: calc 1\nl1: calc 2\nl2: calc 3\nl3: calc 4\nl3 irequires l1\nl2 requires l0\n"
    "l2 irequires l0\nl3 requires l2\nl1 requires l0\n}\n",
    # a size float32 does not hold (2^25 + 1): the sizes are read again in float64
    "num_ranks 2\nrank 0 {\nl0: send 33554433b to 1\n}\nrank 1 {\nl0: recv 33554433b from 0\n}\n",
    # ... found only far into the text
    "num_ranks 2\nrank 0 {\n" + "l0: send 3b to 1\n" + "".join(f"l{i}: calc 1\n" for i in range(1, 40)) + "}\n"
    "rank 1 {\nl0: recv 33554433b from 0\n}\n",
])
def test_the_columns_are_those_of_the_numpy_reader(tmp_path, text, blocks):
    path = tmp_path / "s.goal"
    path.write_text(text)
    got, want = read_goal_buffers(path), read_goal(path)
    assert got is not None and got.num_ranks == want.num_ranks
    for name in COLUMNS:
        assert np.array_equal(np.asarray(getattr(got, name)), getattr(want, name)), name
    assert np.asarray(got.size).tolist() == np.asarray(want.size).tolist()  # exactly, whatever the width
    assert got.sends == int((want.kind == 0).sum())
    assert (got.n_cpu, got.n_nic) == (1 + int(want.cpu.max()), 1 + int(want.nic.max()))


@pytest.mark.parametrize("text", [
    "num_ranks 2\n// a comment\nrank 0 {\nl0: calc 5\n}\n",                              # comments
    "num_ranks 2\nrank 0 {\nfirst: calc 5\n}\n",                                          # other labels
    "num_ranks 2\nrank 0 {\nl1: calc 5\nl0: calc 1\n}\n",                                 # labels out of place
    "num_ranks 2\nrank 1 {\nl0: recv 8b from 0\n}\nrank 0 {\nl0: send 8b to 1\n}\n",      # blocks out of order
    "num_ranks 2\nrank 0 {\nl0: send 8b to 2\n}\n",                                       # a peer out of range
    "num_ranks 2\nrank 0 {\nl0: calc 5\nl0 requires l3\n}\n",                             # an undefined label
    "num_ranks 2\nrank 0 {\nl0: calc 5\n",                                                # not closed
    "num_ranks 3\nrank 2 {\nl0: calc 5\nl1: calc 5\n}\nrank 1 {\nl0: calc 1\n}\n",           # ... further on
])
def test_what_it_does_not_take_it_leaves_to_the_numpy_readers(tmp_path, text, blocks):
    path = tmp_path / "s.goal"
    path.write_text(text)
    assert read_goal_buffers(path) is None


def test_it_reads_without_numpy(tmp_path):
    path = tmp_path / "s.goal"
    path.write_text(goal_text(program_to_goal(random_program(3, P=5, M=30))))
    code = ("import sys; from perfcompose.loggp.goal.goal_buffers import read_goal_buffers\n"
            f"assert read_goal_buffers({str(path)!r}) is not None\nprint('numpy' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "False"


def _lean(text: str) -> dict | None:
    data = text.encode()
    return _read_lean(lambda: io.BytesIO(data), len(data))


def _assert_lines_read_alike(text: str, got: dict) -> None:
    want = _parse_lines(text)
    assert got["num_ranks"] == want.num_ranks
    for name in COLUMNS:
        assert np.array_equal(got[name], getattr(want, name)), name
    assert np.array_equal(np.asarray(got["lines"]), want.lines)  # read again from the text


@pytest.mark.parametrize("seed", range(3))
def test_a_written_program_is_read_as_the_line_reader_reads_it(seed):
    text = goal_text(program_to_goal(random_program(seed, P=7, M=60)))
    got = _lean(text)
    assert got is not None
    assert (np.diff(got["req_b"]) >= 0).all()  # ordered by the operation required
    _assert_lines_read_alike(text, got)


def test_irequires_cpus_nics_and_missing_ranks():
    text = ("num_ranks 4\nrank 0 {\nl0: send 8b to 3 tag 7 cpu 1 nic 2\nl1: calc 5\nl2: recv 4b from -1 tag -1\n"
            "l1 irequires l0\nl2 requires l1\nl0 requires l2\n}\nrank 3 {\nl0: recv 8b from 0 tag 7\nl1: calc 0\n"
            "l1 requires l0\n}\n")
    got = _lean(text)
    assert got is not None and list(got["op_ptr"]) == [0, 3, 3, 3, 5]
    _assert_lines_read_alike(text, got)


def test_blocks_of_a_few_lines_read_as_the_whole(monkeypatch):
    text = goal_text(program_to_goal(random_program(4, P=7, M=60)))
    whole = _lean(text)
    monkeypatch.setattr(goal_buffers, "_BLOCK", 64)  # rank blocks cross many blocks of text
    small = _lean(text)
    assert whole is not None and small is not None
    for name in COLUMNS:
        assert np.array_equal(whole[name], small[name]), name


@pytest.mark.parametrize("text", [
    "num_ranks 2\nrank 0 {\nl1: calc 5\nl0: calc 1\n}\n",                             # labels out of place
    "num_ranks 2\nrank 1 {\nl0: calc 5\n}\nrank 0 {\nl0: calc 1\n}\n",                 # ranks out of order
    "num_ranks 2\nrank 0 {\nl0: calc 5\ncalc 1\n}\n",                                  # an operation unlabelled
    "num_ranks 2\nrank 0 {\nl0: send 8b to 1 tag 4294967296\n}\n",                     # a tag of 33 bits
    "num_ranks 2\nrank 0 {\nl0: calc 5\nl0 requires l3\n}\n",                          # an undefined label
    "num_ranks 1\n// a comment\nrank 0 {\nl0: calc 5\n}\n",                            # a comment
    "num_ranks 2\nrank 0 {\nl0: calc 5\n",                                             # not closed
])
def test_every_other_form_is_left_to_the_other_readers(text):
    assert _lean(text) is None
    try:
        expected = _parse_lines(text)
    except Exception as exc:  # the line reader's error, as before
        with pytest.raises(type(exc)):
            parse_goal(text)
        return
    got = parse_goal(text)
    for name in COLUMNS:
        assert np.array_equal(getattr(got, name), getattr(expected, name)), name


@pytest.mark.parametrize("params", [LogGP(10, 2, 5, 1), LogGP(1000, 500, 600, 1)])
def test_dependencies_in_another_order_give_the_same_times(params):
    # the simulation takes the pairs ordered by the operation required as they are, and builds
    # its own lists from any other order; both must give the same times
    sched = parse_goal(goal_text(program_to_goal(random_program(2, P=9, M=80))))
    # the same pairs in a random order, where those that require one operation keep their order
    pos = np.random.default_rng(0).permutation(sched.req_a.size)
    new_pos = np.empty_like(pos)
    new_pos[np.argsort(sched.req_b, kind="stable")] = pos[np.lexsort((pos, sched.req_b))]
    mixed = np.argsort(new_pos)
    other = dataclasses.replace(sched, req_a=sched.req_a[mixed], req_b=sched.req_b[mixed])
    assert not (np.diff(other.req_b) >= 0).all()
    a, b = simulate_goal(sched, params), simulate_goal(other, params)
    assert np.array_equal(a.finish, b.finish) and np.array_equal(a.op_start, b.op_start, equal_nan=True)


def test_sizes_in_float32_where_each_is_exact_there_else_in_float64():
    small = "num_ranks 2\nrank 0 {\nl0: send 65535b to 1 tag 0\nl1: calc 16777215\nl1 requires l0\n}\n" \
            "rank 1 {\nl0: recv 65535b from 0 tag 0\n}\n"
    large = small.replace("calc 16777215", "calc 16777217")  # 2^24 + 1: not a float32
    got_small, got_large = _lean(small), _lean(large)
    assert got_small is not None and got_large is not None
    assert got_small["size"].dtype == np.float32 and got_large["size"].dtype == np.float64
    _assert_lines_read_alike(small, got_small)
    _assert_lines_read_alike(large, got_large)
    params = LogGP(10, 2, 5, 1)
    for text in (small, large):
        lean, lines = simulate_goal(parse_goal(text), params), simulate_goal(_parse_lines(text), params)
        assert np.array_equal(lean.finish, lines.finish) and np.array_equal(lean.op_end, lines.op_end)
    # the calc starts when the send's overhead ends (o = 2) and takes 2^24 + 1
    assert simulate_goal(parse_goal(large), params).makespan == 2 + 16777217


@pytest.mark.parametrize("block", [64, 1 << 20])
def test_numbers_of_every_length_at_every_place_of_a_block(monkeypatch, block):
    # numbers of 1 to 16 digits (read 8 at a time) anywhere in a line, up to the end of a text without a final newline
    calcs = [f"{d * (10 ** k - 1) // 9}" for k in range(1, 17) for d in (1, 9)] + ["10000000", "100000000"]
    body = "".join(f"l{i}: calc {c}\n" for i, c in enumerate(calcs))
    text = (f"num_ranks 12345678\nrank 12345677 {{\n{body}l{len(calcs)}: send 123456789b to 9876543 tag 87654321\n"
            f"l{len(calcs)} requires l10\nl34 irequires l9\n}}")
    monkeypatch.setattr(goal_buffers, "_BLOCK", block)
    got = _lean(text)
    assert got is not None and got["size"].dtype == np.float64
    assert list(got["size"][:4]) == [1, 9, 11, 99] and got["size"][31] == 10 ** 16 - 1
    _assert_lines_read_alike(text, got)


@pytest.mark.parametrize("line", ["l0: calc 12345678901234567", "l00: calc 5", "l0: send 1234567890123456b to 1 tag 0",
                                  "l0 requires l01", "l0: calc 5x"])
def test_numbers_too_long_or_with_leading_zeros_are_left_to_the_other_readers(line):
    assert _lean(f"num_ranks 2\nrank 0 {{\n{line}\n}}\n") is None
