"""LogGOPSim's semantics computed on a program's steps: the same finish times as the GOAL route
(program_to_goal and the GOAL event loop) on random programs of every pattern, with computation
steps, both parameter settings, with and without O and a low rendezvous threshold, and as the
plain-Python reference's; the compiled function takes plain buffers; inconsistent arrays are
refused."""
from __future__ import annotations

import array

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfcompose.errors import InputError
from perfcompose.loggp import CommStep, CompStep, LogGP, Program
from perfcompose.loggp.goal.loggopsim import simulate_goal
from perfcompose.loggp.goal.loggopsim_reference import reference_times
from perfcompose.loggp.goal.schedule import program_to_goal
from perfcompose.loggp.kernels.backend import extension
from perfcompose.loggp.steps.execute import simulate_program
from perfcompose.loggp.steps.loggopsim_steps import loggopsim_finish, step_arrays

SETTINGS = [LogGP(10, 2, 5, 1), LogGP(1000, 500, 600, 1)]
OS = [(0.0, 65535.0), (0.5, 300.0)]  # LogGOPSim's defaults; a cost per byte and rendezvous above 300 bytes
_C = extension("_cstep")
COMPILED = _C.loggopsim_steps if _C is not None and hasattr(_C, "loggopsim_steps") else None


def _comm(rng: np.random.Generator, P: int, pattern: str, M: int) -> CommStep:
    if pattern == "random":
        src = rng.integers(0, P, M)
        dst = (src + rng.integers(1, P, M)) % P
    elif pattern in ("fanin", "fanout"):
        root = int(rng.integers(0, P))
        other = (root + rng.integers(1, P, M)) % P
        src, dst = (other, np.full(M, root)) if pattern == "fanin" else (np.full(M, root), other)
    else:  # one round of recursive doubling, some ranks idle
        k = int(rng.integers(0, max(1, int(np.log2(P)))))
        ranks = np.arange(P)
        partner = ranks ^ (1 << k)
        keep = (partner < P) & (rng.random(P) < 0.9)
        src, dst = ranks[keep], partner[keep]
    nbytes = rng.choice([1.0, 8.0, 200.0, 1024.0, 5000.0], src.shape[0])
    order = rng.permutation(src.shape[0]) if rng.random() < 0.5 else None
    return CommStep.from_arrays(P, src, dst, nbytes, order)


def _program(seed: int, P: int, steps: int, M: int, pattern: str) -> Program:
    rng = np.random.default_rng(seed)
    out: list[CommStep | CompStep] = []
    for _ in range(steps):
        if rng.random() < 0.3:  # durations of 0 among them: a calc that takes no time still orders events
            out.append(CompStep.of(rng.choice([0.0, 3.0, 700.0], P)))
        out.append(_comm(rng, P, pattern if pattern != "mixed" else str(rng.choice(
            ["random", "fanin", "fanout", "allreduce"])), M))
    return Program(P, tuple(out))


def _goal_finish(prog: Program, params: LogGP, O: float, S: float) -> np.ndarray:
    return simulate_goal(program_to_goal(prog), params, O=O, S=S, timelines=False).finish


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 32 - 1), st.integers(2, 12), st.integers(1, 4), st.integers(1, 60),
       st.sampled_from(["random", "fanin", "fanout", "allreduce", "mixed"]), st.sampled_from(SETTINGS),
       st.sampled_from(OS))
def test_finish_times_are_the_goal_routes(seed: int, P: int, steps: int, M: int, pattern: str, params: LogGP,
                                          os_: tuple[float, float]) -> None:
    prog = _program(seed, P, steps, M, pattern)
    O, S = os_
    want = _goal_finish(prog, params, O, S)
    assert loggopsim_finish(prog, params, O=O, S=S).tolist() == want.tolist()


@pytest.mark.parametrize("pattern", ["fanin", "fanout"])
def test_more_than_sixteen_operations_of_a_rank_keep_loggopsims_sort(pattern: str) -> None:
    """A root with dozens of sends or receives in one step: std::sort leaves them out of order,
    and that order decides which is issued first."""
    prog = _program(7, 9, 3, 70, pattern)
    for params in SETTINGS:
        want, _, _, _ = reference_times(program_to_goal(prog), params)
        assert loggopsim_finish(prog, params).tolist() == want.tolist()


def test_finish_times_are_the_reference_loops() -> None:
    prog = _program(3, 5, 3, 12, "mixed")
    for params in SETTINGS:
        finish, _, _, _ = reference_times(program_to_goal(prog), params, O=0.5, S=300.0)
        assert loggopsim_finish(prog, params, O=0.5, S=300.0).tolist() == finish.tolist()


def test_simulate_program_without_timelines_has_the_timelines_finish() -> None:
    prog = _program(11, 6, 3, 20, "mixed")
    fast = simulate_program(prog, SETTINGS[0], semantics="loggopsim", timelines=False)
    full = simulate_program(prog, SETTINGS[0], semantics="loggopsim", timelines=True)
    assert fast.finish.tolist() == full.finish.tolist()
    assert fast.computation.tolist() == full.computation.tolist()
    assert all(ops == [] for ops in fast.ops) and any(full.ops)


def test_ranks_without_operations_finish_at_zero() -> None:
    prog = Program(4, (CommStep.from_arrays(4, np.array([0]), np.array([1]), np.array([10.0])),))
    finish = loggopsim_finish(prog, SETTINGS[0])
    assert finish[2] == finish[3] == 0.0 and finish[1] > finish[0] > 0


@pytest.mark.skipif(COMPILED is None, reason="the C extension is not built")
def test_compiled_function_takes_plain_buffers() -> None:
    prog = _program(5, 6, 2, 15, "random")
    kinds, msg_ptr, src, dst, nbytes, order, durations = step_arrays(prog)
    plain = [array.array(t, a.tolist()) for t, a in (("i", kinds), ("q", msg_ptr), ("i", src), ("i", dst),
                                                         ("d", nbytes), ("i", order), ("d", durations))]
    finish = array.array("d", [0.0] * prog.P)
    assert COMPILED is not None and COMPILED(prog.P, *plain, 10.0, 2.0, 5.0, 1.0, 0.0, 65535.0, finish) == 0
    assert list(finish) == loggopsim_finish(prog, SETTINGS[0]).tolist()
    with pytest.raises(ValueError, match="src"):
        COMPILED(prog.P, *plain[:2], array.array("q", src.tolist()), *plain[3:], 10.0, 2.0, 5.0, 1.0, 0.0, 1.0, finish)


@pytest.mark.skipif(COMPILED is None, reason="the C extension is not built")
def test_inconsistent_arrays_are_refused() -> None:
    kernel = COMPILED
    kinds, msg_ptr = np.array([1], np.int32), np.array([0, 2], np.int64)
    src, dst, nbytes = np.array([0, 1], np.int32), np.array([1, 0], np.int32), np.array([4.0, 4.0])
    finish = np.zeros(2)
    assert kernel(2, kinds, msg_ptr, src, dst, nbytes, np.array([1, 0], np.int32), np.zeros(0), 1.0, 1.0, 1.0,
                  0.0, 0.0, 9.0, finish) == -1  # message 1 listed under sender 0
    assert kernel(2, kinds, msg_ptr, src, np.array([1, 2], np.int32), nbytes, np.array([0, 1], np.int32),
                  np.zeros(0), 1.0, 1.0, 1.0, 0.0, 0.0, 9.0, finish) == -2
    assert kernel(2, kinds, msg_ptr, src, dst, nbytes, np.array([0, 1], np.int32), np.zeros(0), 1.0, 1.0, 1.0,
                  0.0, 0.0, 9.0, finish) == 0


def test_a_refused_program_is_an_input_error(monkeypatch) -> None:
    prog = _program(1, 3, 1, 4, "random")
    monkeypatch.setattr("perfcompose.loggp.steps.loggopsim_steps._compiled", lambda: lambda *a: -1)
    with pytest.raises(InputError, match="send order"):
        loggopsim_finish(prog, SETTINGS[0])
