"""validate --task: the user's own stages run in the executor, fitted, composed and compared."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner
from validate_json import read_validate_json

from perfcompose.bench.runner import BenchError
from perfcompose.cli import app
from perfcompose.commands.validation import input_function, task_functions

STAGES = Path(__file__).resolve().parents[2] / "examples" / "stages"


@pytest.fixture
def in_stages(monkeypatch, tmp_path_factory):
    """A fresh copy of the example's folder as the working directory: validate keeps its
    checkpoints there, and a run must not resume one left by an earlier run."""
    folder = tmp_path_factory.mktemp("stages")
    shutil.copy(STAGES / "user_stages.py", folder)
    monkeypatch.chdir(folder)


def test_tasks_are_read_as_name_module_function(in_stages):
    functions = task_functions(["smooth=user_stages:smooth", "pack=user_stages:pack"])
    assert {"smooth", "pack", "nop", "inc", "qsort"} <= set(functions)
    assert len(functions["pack"](input_function("user_stages:signal")(1024))) > 0


@pytest.mark.parametrize("spec, message", [("smooth", "cannot read the task"),
                                           ("smooth=user_stages:nothing", "has no function"),
                                           ("smooth=no_such_module_here:f", "cannot import")])
def test_a_bad_task_is_a_clear_error(in_stages, spec, message):
    with pytest.raises(BenchError, match=message):
        task_functions([spec])


def test_validate_runs_a_two_stage_user_program_and_reports_intervals(in_stages, tmp_path):
    out = tmp_path / "study.json"
    result = CliRunner().invoke(app, ["validate", "pipe(smooth, pack)", "pipe(tpool_2(smooth), pack)",
                                      "--task", "smooth=user_stages:smooth", "--task", "pack=user_stages:pack",
                                      "--input", "user_stages:signal", "--x", "1024:4096", "--reps", "2",
                                      "--count", "4", "--json", str(out)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "90 % interval" in result.output and "inside their 90 % intervals" in result.output
    # three workers on two cores: run, warned about, and predicted no faster than the work allows
    assert "more workers than this machine" in result.output
    doc, by = read_validate_json(out)
    assert set(by) == {"pipe(smooth, pack)", "pipe(tpool_2(smooth), pack)"}
    for c in by.values():
        assert len(c["interval"]["low"]) == len(c["x"]) == 3
        assert all(lo <= hi for lo, hi in zip(c["interval"]["low"], c["interval"]["high"]))
    # each stage of a pipe is timed in front of a touch stage, whatever it hands on (pack: bytes)
    assert {"pipe(smooth, touch)", "pipe(pack, touch)"} <= set(doc["probes_ns"])
    assert all(v > 0 for v in doc["probes_ns"]["pipe(pack, touch)"])


def test_validate_bad_task_exits_2(in_stages):
    result = CliRunner().invoke(app, ["validate", "pipe(smooth, pack)", "--task", "smooth"])
    assert result.exit_code == 2
    assert "cannot read the task" in result.output
