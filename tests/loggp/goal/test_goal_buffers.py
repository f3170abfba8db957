"""A GOAL schedule read into typed buffers without NumPy: the columns the NumPy readers give on
the texts perfcompose writes, and None (the NumPy readers then read it) for the forms it leaves
to them."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from random_programs import random_program

from perfcompose.loggp.goal import goal_buffers
from perfcompose.loggp.goal.goal_buffers import read_goal_buffers
from perfcompose.loggp.goal.schedule import goal_text, program_to_goal, read_goal
from perfcompose.loggp.kernels.backend import extension

pytestmark = pytest.mark.skipif(not hasattr(extension("_cgoal_text"), "read_lean"),
                                reason="the compiled GOAL reader is not built")

COLUMNS = ("op_ptr", "kind", "size", "peer", "tag", "cpu", "nic", "req_a", "req_b", "ireq_a", "ireq_b")


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
