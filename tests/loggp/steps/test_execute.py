"""Programs (paper 002, section 2): computation and communication steps alternate per processor;
L = 10, o = 2, g = 5, G = 1 unless said otherwise."""
from __future__ import annotations

import numpy as np
import pytest

from perfcompose.errors import InputError
from perfcompose.loggp import CommStep, CompStep, LogGP, Program, simulate_program

P = LogGP(L=10, o=2, g=5, G=1)


def test_chain_over_three_steps_keeps_the_gap_after_a_receive():
    # step 0: 0 -> 1: send [0,2], 1 receives [12,14].
    # step 1: 1 -> 2: 1 enters at 14 but its gap after the receive allows a send only from
    #         12 + 2 + max(4, 5) - 4 = 15: send [15,17]; 2 receives [27,29].
    # step 2: 2 -> 3: send at 27 + 3 = 30 [30,32]; 3 receives [42,44].
    steps = tuple(CommStep.from_messages(4, [[a, a + 1, 1]]) for a in range(3))
    r = simulate_program(Program(4, steps), P, ties="rank")
    assert list(r.finish) == [2, 17, 32, 44]
    assert [(op.kind, op.message, op.start) for op in r.ops[2]] == [("recv", 1, 27), ("send", 2, 30)]
    assert list(r.computation) == [0, 0, 0, 0] and list(r.communication) == [2, 17, 32, 44]


def test_computation_and_communication_split():
    # comp [3, 1]; then 0 -> 1 at 3 (arrives 15, received [15,17]); comp [4, 4]
    prog = Program(2, (CompStep.of([3, 1]), CommStep.from_messages(2, [[0, 1, 1]]), CompStep.of([4, 4])))
    r = simulate_program(prog, P)
    assert list(r.finish) == [9, 21]
    assert list(r.computation) == [7, 5] and list(r.communication) == [2, 16]
    assert r.summary() == {"total": 21, "computation": 5, "communication": 16}
    assert r.ops[1] == [("comp", None, 0, 1), ("recv", 0, 15, 17), ("comp", None, 17, 21)]


def test_messages_are_numbered_over_the_program():
    steps = (CommStep.from_messages(2, [[0, 1, 1], [1, 0, 1]]), CommStep.from_messages(2, [[0, 1, 1]]))
    r = simulate_program(Program(2, steps), P)
    assert sorted(op.message for op in r.ops[0] if op.kind == "send") == [0, 2]


def test_worst_case_program_reports_forced_steps():
    cycle = CommStep.from_messages(2, [[0, 1, 1], [1, 0, 1]])
    r = simulate_program(Program(2, (cycle, CompStep.of([1, 1]), cycle)), P, worst_case=True, seed=4)
    assert [f.step for f in r.forced] == [0, 2]


def test_worst_case_needs_the_papers_semantics():
    with pytest.raises(InputError, match="worst case"):
        simulate_program(Program(2, ()), P, worst_case=True, semantics="loggopsim")


def test_seed_changes_only_tie_breaks():
    rng = np.random.default_rng(0)
    src = rng.integers(0, 6, 40)
    step = CommStep.from_arrays(6, src, (src + rng.integers(1, 6, 40)) % 6, np.ones(40))
    prog = Program(6, (step,))
    a = simulate_program(prog, P, seed=1)
    b = simulate_program(prog, P, seed=1)
    assert np.array_equal(a.finish, b.finish)
    assert len({repr(simulate_program(prog, P, seed=s).ops) for s in range(10)}) > 1
