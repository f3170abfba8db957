"""The sweep runner: grids, resumable checkpoints that survive kill -9, failing commands."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from run_cli import Ran, perfcompose

from perfcompose.bench.runner import (
    BenchError,
    CallableTarget,
    CommandTarget,
    Target,
    checkpoint_for,
    parse_grid,
    parse_values,
    run_sweep,
)
from perfcompose.data import load


def test_grid_syntax():
    assert parse_values("1024:4096:1024") == (1024, 2048, 3072, 4096)
    assert parse_values("1000:5000") == (1000, 1024, 2048, 4096, 5000)
    assert parse_values("1,2,4") == (1, 2, 4)
    assert parse_grid(["x=1,2", "n=3"]) == {"x": (1, 2), "n": (3,)}
    with pytest.raises(BenchError, match="cannot read the values"):
        parse_values("10:1:1")
    with pytest.raises(BenchError, match="NAME=VALUES"):
        parse_grid(["x"])


def test_inputs_are_prepared_outside_the_timed_region():
    slow_setup = CallableTarget(lambda a: a, setup=lambda x: (time.sleep(0.2) or x,))
    result = run_sweep(slow_setup, {"x": (1, 2)}, reps=2, warmup=0)
    assert all(v < 0.1 for vs in result.values.values() for v in vs)


def test_every_point_measured_once_with_repetitions(tmp_path):
    calls = []
    target = CallableTarget(lambda x: calls.append(x), min_time=0)
    result = run_sweep(target, {"x": (1, 2, 3)}, reps=3, warmup=1, checkpoint=tmp_path / "c.jsonl")
    assert sorted(result.values) == [(1.0,), (2.0,), (3.0,)]
    assert all(len(v) == 3 for v in result.values.values())
    assert sorted(calls) == [1] * 5 + [2] * 5 + [3] * 5  # calibration + warm-up + 3 timed


SWEEP = """
import sys, time
from pathlib import Path
from perfcompose.bench.runner import CallableTarget, run_sweep
target = CallableTarget(lambda x: time.sleep(0.05), min_time=0)
run_sweep(target, {"x": tuple(range(1, 41))}, reps=1, warmup=0, checkpoint=Path(sys.argv[1]))
"""


def _killed_sweep(tmp_path: Path, source: str, lines: int) -> tuple[Path, Path]:
    """Run the sweep script ``source`` and kill it (SIGKILL) once its checkpoint holds ``lines``
    lines (or after a minute); the script and its checkpoint, to resume."""
    ckpt = tmp_path / "sweep.jsonl"
    script = tmp_path / "sweep.py"
    script.write_text(source)
    proc = subprocess.Popen([sys.executable, str(script), str(ckpt)])
    deadline = time.time() + 60
    while time.time() < deadline:
        if ckpt.exists() and ckpt.read_text().count("\n") >= lines:
            break
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    return script, ckpt


def test_a_sweep_killed_with_sigkill_resumes_and_measures_every_point_exactly_once(tmp_path):
    script, ckpt = _killed_sweep(tmp_path, SWEEP, 8)
    before = [json.loads(ln) for ln in ckpt.read_text().splitlines()[1:]]
    assert 0 < len(before) < 40
    with ckpt.open("a") as f:  # a write torn by the kill
        f.write('{"coordinate": [99')
    subprocess.run([sys.executable, str(script), str(ckpt)], check=True, timeout=120)
    records = [json.loads(ln) for ln in ckpt.read_text().splitlines()[1:]]
    coords = [r["coordinate"][0] for r in records]
    assert sorted(coords) == list(range(1, 41))  # each point exactly once
    assert records[:len(before)] == before  # nothing finished was lost or redone


def test_rounds_interleave_the_points_and_pool_their_values(tmp_path):
    class Recording(Target):
        def __init__(self):
            self.calls = []

        def measure(self, point):
            self.calls.append(point["x"])
            return 1e-3

    target = Recording()
    result = run_sweep(target, {"x": (1, 2, 3)}, reps=2, warmup=0, rounds=4, checkpoint=tmp_path / "c.jsonl")
    assert all(len(v) == 8 for v in result.values.values())
    visits = target.calls[0::2]
    assert target.calls[1::2] == visits  # the reps of a visit run back to back
    for r in range(4):  # every round visits every point once before the next round starts
        assert sorted(visits[3 * r:3 * r + 3]) == [1, 2, 3]
    records = [json.loads(ln) for ln in (tmp_path / "c.jsonl").read_text().splitlines()]
    assert records[0]["rounds"] == 4 and len(records) == 1 + 12


SWEEP_ROUNDS = SWEEP.replace("reps=1, warmup=0,", "reps=1, warmup=0, rounds=3,").replace("range(1, 41)", "range(1, 11)")


def test_a_sweep_of_several_rounds_killed_resumes_with_each_round_of_each_point_once(tmp_path):
    script, ckpt = _killed_sweep(tmp_path, SWEEP_ROUNDS, 14)
    before = ckpt.read_text().splitlines()[1:]
    assert 10 < len(before) < 30
    subprocess.run([sys.executable, str(script), str(ckpt)], check=True, timeout=120)
    records = [json.loads(ln) for ln in ckpt.read_text().splitlines()[1:]]
    coords = [r["coordinate"][0] for r in records]
    assert sorted(coords) == sorted(list(range(1, 11)) * 3)
    assert [json.dumps(r) for r in records[:len(before)]] == [json.dumps(json.loads(b)) for b in before]


def test_a_checkpoint_of_another_sweep_is_refused(tmp_path):
    ckpt = tmp_path / "c.jsonl"
    run_sweep(CallableTarget(lambda x: None), {"x": (1,)}, reps=1, warmup=1, checkpoint=ckpt)
    with pytest.raises(BenchError, match="different sweep"):
        run_sweep(CallableTarget(lambda x: None), {"x": (1,)}, reps=2, warmup=1, checkpoint=ckpt)


def test_a_failing_command_is_reported_and_the_sweep_goes_on():
    cmd = CommandTarget(f"{sys.executable} -c \"import sys; x={{x}}; sys.stderr.write('bad x'); "
                        f"sys.exit(3 if x == 2 else 0)\"")
    result = run_sweep(cmd, {"x": (1, 2, 3)}, reps=1, warmup=0)
    assert sorted(result.values) == [(1.0,), (3.0,)]
    failure = result.failures[(2.0,)]
    assert failure.exit_code == 3 and failure.message == "bad x"


def test_a_command_that_times_out_is_reported_and_the_sweep_goes_on():
    cmd = CommandTarget(f"{sys.executable} -c \"import time; time.sleep({{x}})\"", timeout=3)
    result = run_sweep(cmd, {"x": (0, 60)}, reps=1, warmup=0)
    assert (0.0,) in result.values
    assert "timed out" in result.failures[(60.0,)].message


def run_cli(*args: str, cwd: Path) -> Ran:
    """``perfcompose ARGS...`` run in this process (tests/run_cli.py) from the folder ``cwd``."""
    here = os.getcwd()
    os.chdir(cwd)
    try:
        return perfcompose(*args)
    finally:
        os.chdir(here)


def test_cli_bench_writes_an_experiment_and_reports_failures(tmp_path):
    out = tmp_path / "cmd.json"
    r = run_cli("bench", "--cmd", f"{sys.executable} -c \"import sys; sys.exit({{x}} == 2)\"",
                "--param", "x=1,2,3", "--reps", "2", "--out", str(out), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "x=2: exit code 1" in r.stderr
    exp = load(out)
    assert [p.coordinate for p in exp.series[0].points] == [(1.0,), (3.0,)]
    assert checkpoint_for(out).exists()
    again = run_cli("bench", "--cmd", f"{sys.executable} -c \"import sys; sys.exit({{x}} == 2)\"",
                    "--param", "x=1,2,3", "--reps", "2", "--out", str(out), cwd=tmp_path)
    assert "resumed: 2 points" in again.stdout


def test_cli_bench_a_builtin_task(tmp_path):
    out = tmp_path / "inc.csv"
    r = run_cli("bench", "inc", "--param", "x=1024:4096", "--reps", "3", "--out", str(out), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "CV quartiles" in r.stdout
    assert load(out).series[0].region == "inc"


@pytest.mark.parametrize("args, needle", [
    (["nosuch", "--param", "x=1"], "unknown target 'nosuch'"),
    (["--cmd", "echo hi", "--param", "x=1"], "names no parameter"),
    (["inc", "--param", "x=a:b"], "cannot read the values"),
])
def test_cli_bench_bad_input_exits_2(tmp_path, args, needle):
    r = run_cli("bench", *args, "--out", str(tmp_path / "o.json"), cwd=tmp_path)
    assert r.returncode == 2 and needle in r.stderr and "Traceback" not in r.stderr


def test_a_timing_that_lost_the_core_is_taken_again_and_the_shortest_kept(monkeypatch):
    import perfcompose.bench.runner as runner

    class Clock:  # each call takes 1 ms of CPU; the wall times say when the core was taken away
        wall = cpu = 0

        def perf_counter_ns(self):
            return self.wall

        def thread_time_ns(self):
            return self.cpu

        def process_time_ns(self):  # the calling thread is all the process runs
            return self.cpu

    clock = Clock()
    walls = iter([1.0, 4.0, 2.5, 1.6, 3.0, 1.0, 1.0])

    def work(x):
        clock.wall += int(next(walls) * 1e6)
        clock.cpu += 1_000_000

    monkeypatch.setattr(runner, "time", clock)
    target = CallableTarget(work, min_time=0, retry_preempted=3)
    # after a first call that sizes the batch: 4, 2.5, 1.6 and 3 ms all lost the core; the shortest is kept
    assert target.measure({"x": 1}) == pytest.approx(1.6e-3)
    assert target.preempted == 3
    assert target.measure({"x": 1}) == pytest.approx(1e-3)  # undisturbed: kept at once
    assert target.preempted == 3


def test_a_command_runs_through_the_shell_with_pipes_and_redirections(tmp_path):
    out = tmp_path / "seen"
    target = CommandTarget(f"echo {{x}} | tr 1 7 > {out}")
    result = run_sweep(target, {"x": (1,)}, reps=1, warmup=0)
    assert not result.failures and out.read_text().strip() == "7"


def test_a_command_with_binary_output_is_timed_and_its_binary_errors_reported():
    ok = run_sweep(CommandTarget("head -c {x} /bin/sh"), {"x": (64, 4096)}, reps=1, warmup=0)
    assert not ok.failures and len(ok.values) == 2
    bad = run_sweep(CommandTarget("head -c {x} /bin/sh >&2; exit 3"), {"x": (64,)}, reps=1, warmup=0)
    assert bad.failures[(64.0,)].exit_code == 3


def test_a_grid_beyond_the_memory_limit_is_refused_with_its_estimate():
    from perfcompose.limits import WorkTooLarge

    with pytest.raises(WorkTooLarge, match=r"1e\+12 values\) would need about .* TiB"):
        parse_values("1:1e12:1")
    with pytest.raises(WorkTooLarge, match="a grid of 1e\\+08 points would need about"):
        parse_grid(["x=1:10000:1", "y=1:10000:1"])
    with pytest.raises(BenchError, match="cannot read the values"):
        parse_values("1,nan")


def test_a_corrupt_middle_line_is_skipped_and_every_good_line_kept(tmp_path):
    ckpt = tmp_path / "c.jsonl"
    grid = {"x": (1.0, 2.0, 3.0)}
    first = run_sweep(CallableTarget(lambda x: None), grid, reps=2, warmup=0, checkpoint=ckpt)
    lines = ckpt.read_text().splitlines()
    broken = lines[2]
    lines[2] = broken[: len(broken) // 2]  # a half-written record in the middle
    ckpt.write_text("\n".join(lines) + "\n")
    again = run_sweep(CallableTarget(lambda x: None), grid, reps=2, warmup=0, checkpoint=ckpt)
    assert again.skipped_lines == (3,)
    assert again.resumed == 2 and all(len(v) == 2 for v in again.values.values())
    lost = tuple(json.loads(broken)["coordinate"])
    assert again.values[lost] != first.values[lost]  # measured again; the others read back
    assert all(again.values[c] == first.values[c] for c in first.values if c != lost)


def test_a_second_sweep_on_a_held_checkpoint_is_refused(tmp_path):
    ckpt = tmp_path / "c.jsonl"
    script = ("import sys, time\n"
              "from perfcompose.bench.runner import CallableTarget, run_sweep\n"
              "run_sweep(CallableTarget(lambda x: time.sleep(0.05)), {'x': tuple(range(1, 200))}, reps=1, warmup=0,"
              f" checkpoint={str(ckpt)!r})\n")
    holder = subprocess.Popen([sys.executable, "-c", script])
    try:
        deadline = time.time() + 60
        while not (ckpt.exists() and ckpt.stat().st_size > 0) and time.time() < deadline:
            time.sleep(0.05)
        with pytest.raises(BenchError, match="another perfcompose bench is measuring"):
            run_sweep(CallableTarget(lambda x: None), {"x": tuple(range(1, 200))}, reps=1, warmup=0, checkpoint=ckpt)
    finally:
        holder.kill()
        holder.wait()
    resumed = run_sweep(CallableTarget(lambda x: None), {"x": tuple(range(1, 200))}, reps=1, warmup=0,
                        checkpoint=ckpt)  # the lock went with the killed process
    assert all(len(v) == 1 for v in resumed.values.values()) and len(resumed.values) == 199


def test_a_step_so_small_the_count_is_infinite_is_refused():
    from perfcompose.bench import parse_grid
    from perfcompose.bench.runner import BenchError

    with pytest.raises(BenchError, match="more than 1e15 values"):
        parse_grid(["x=1024:262144:1e-320"])
