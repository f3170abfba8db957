"""Unit performance tests: a resumable benchmark runner and the papers' reference tasks."""
from perfcompose.bench.runner import (
    BenchError,
    CallableTarget,
    CommandTarget,
    Failure,
    SweepResult,
    checkpoint_for,
    parse_grid,
    parse_values,
    resolve_target,
    run_sweep,
)
from perfcompose.bench.tasks import TASKS, Task

__all__ = ["TASKS", "BenchError", "CallableTarget", "CommandTarget", "Failure", "SweepResult", "Task",
           "checkpoint_for", "parse_grid", "parse_values", "resolve_target", "run_sweep"]
