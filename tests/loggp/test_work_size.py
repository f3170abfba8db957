"""LogGP runs estimate their memory and steps before the work, and the limits refuse what is too
large with the estimate and a way out; large schedules list only the ranks that finish last."""
from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.limits import WorkTooLarge, limits, set_limits
from perfcompose.loggp import CommStep, Program
from perfcompose.loggp.goal.schedule import program_to_goal, write_goal
from perfcompose.loggp.steps.npzfile import write_program_npz
from perfcompose.loggp.work_size import (
    check_simulation,
    goal_simulation_bytes,
    reading_bytes,
    simulation_bytes,
    simulation_steps,
)

runner = CliRunner(env={"COLUMNS": "200"})
PARAMS = ["--L", "10", "--o", "2", "--g", "5", "--G", "1"]


@pytest.fixture
def restore_limits():
    before = limits()
    yield
    set_limits(before.memory, before.steps)


def test_the_estimates_grow_with_the_work():
    small = simulation_bytes(64, 1000, 1)
    assert simulation_bytes(64, 10_000, 1) > small and simulation_bytes(6400, 1000, 1) > small
    assert simulation_bytes(64, 1000, 1, timelines=True) > small
    assert simulation_bytes(64, 1000, 50, semantics="loggopsim") > simulation_bytes(64, 1000, 1, semantics="loggopsim")
    assert simulation_steps(2 ** 20, 10 ** 7, 1) > simulation_steps(4096, 10 ** 7, 1)


def test_a_simulation_over_the_limit_is_refused_with_its_estimate(restore_limits):
    set_limits(memory=2 ** 20)
    with pytest.raises(WorkTooLarge, match="simulating 100,000 messages among 4,096 processors") as info:
        check_simulation(4096, 100_000, 1)
    assert "--max-memory" in str(info.value)
    set_limits(memory=2 ** 40, steps=1e5)
    with pytest.raises(WorkTooLarge, match="steps"):
        check_simulation(4096, 100_000, 1)


def _program(P: int = 64, M: int = 5000) -> Program:
    rng = np.random.default_rng(3)
    src = rng.integers(0, P, M)
    return Program(P, (CommStep.from_arrays(P, src, (src + rng.integers(1, P, M)) % P, np.full(M, 8.0)),))


@pytest.mark.parametrize("form", ["npz", "json", "goal"])
def test_the_command_refuses_before_simulating(tmp_path, form, restore_limits):
    prog = _program()
    path = tmp_path / f"p.{form}"
    if form == "npz":
        write_program_npz(prog, path)
    elif form == "goal":
        write_goal(program_to_goal(prog), path)
    else:
        from perfcompose.loggp import program_to_json

        path.write_text(json.dumps(program_to_json(prog)))
    res = runner.invoke(app, ["--max-memory", "400KiB", "loggp", "simulate", str(path), *PARAMS])
    assert res.exit_code == 2
    assert "would need about" in res.output and "the limit is 400 KiB" in res.output
    ok = runner.invoke(app, ["loggp", "simulate", str(path), *PARAMS])
    assert ok.exit_code == 0 and "makespan" in ok.output


def test_a_large_schedule_lists_the_ranks_that_finish_last(tmp_path):
    path = tmp_path / "s.goal"
    write_goal(program_to_goal(_program(P=100, M=400)), path)
    res = runner.invoke(app, ["loggp", "simulate", str(path), *PARAMS])
    assert res.exit_code == 0
    assert "the 40 of 100 ranks that finish last" in " ".join(res.output.split())
    rows = [line for line in res.output.splitlines() if line.strip("│ ")[:1].isdigit()]
    assert len(rows) == 40


def test_the_goal_estimates_bound_what_reading_and_the_loop_take(tmp_path):
    # recursive-doubling rounds among 512 ranks (about 10^5 messages), read into columns and run by
    # the compiled loop in a process of its own: the memory each phase holds at its peak (the
    # kernel's peak counter reset before it) stays under its estimate
    from perfcompose.loggp.kernels.backend import extension

    if extension("_cgoal") is None or not hasattr(extension("_cgoal_text"), "read_lean"):
        pytest.skip("the compiled GOAL reader and loop are not built")
    P = 512
    ranks = np.arange(P)
    steps = tuple(CommStep.from_arrays(P, ranks, ranks ^ (1 << (k % 9)), np.full(P, 1024.0)) for k in range(200))
    path = tmp_path / "rounds.goal"
    write_goal(program_to_goal(Program(P, steps)), path)
    code = f"""
from perfcompose.commands.loggp.simulate import _goal_finish
from perfcompose.loggp.goal.goal_buffers import read_goal_buffers
from perfcompose.loggp.params import LogGP
def status(key):
    with open('/proc/self/status') as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith(key))
def fresh_peak():
    with open('/proc/self/clear_refs', 'w') as f:
        f.write('5')
    return status('VmRSS:')
before = fresh_peak()
s = read_goal_buffers({str(path)!r})
read = status('VmHWM:') - before
fresh_peak()
finish = _goal_finish(s, LogGP(L=10, o=2, g=5, G=1), 0.0, 65535.0)
print(read, status('VmHWM:') - before, s.num_ranks, s.num_ops, len(s.req_a), s.sends, finish is not None)
"""
    import subprocess
    import sys

    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    except subprocess.CalledProcessError as e:
        if "clear_refs" in e.stderr:
            pytest.skip("the kernel's peak memory counter cannot be reset here (Linux /proc/self/clear_refs)")
        raise
    read, run, ranks_, ops, deps, sends, ok = int(out[0]), int(out[1]), *map(int, out[2:6]), out[6]
    assert ok == "True" and sends == P * 200
    assert 0 < read <= reading_bytes(path.stat().st_size, "goal_columns")
    assert read < run <= goal_simulation_bytes(ranks_, ops, deps, sends)
