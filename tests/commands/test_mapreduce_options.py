"""mapreduce checks its numbers before it starts or reaches a cluster: --timeout is a positive
finite number of seconds, -R 0 is refused (it had meant the default), and inputs x repetitions
beyond the step limit are refused rather than run for days."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

from perfcompose.cli import app


@pytest.mark.parametrize("args, says", [
    (["--timeout", "nan"], "Invalid value for --timeout"),
    (["--timeout", "inf"], "Invalid value for --timeout"),
    (["--timeout", "0"], "Invalid value for --timeout"),
    (["-R", "0"], "--repeat must be at least 1"),
    (["-x", "1000000000000"], "1,000,000,000,000 inputs x 320 map repetitions on the small picture (-x, -R) would "
                              "take about 8.5e+16 steps"),
])
def test_a_number_out_of_range_is_refused_before_any_cluster(args: list[str], says: str) -> None:
    result = CliRunner().invoke(app, ["mapreduce", "--picture", "small", *args, "--scheduler", "tcp://127.0.0.1:9"],
                                env={"COLUMNS": "200"})
    assert result.exit_code == 2, result.output
    assert says in result.output


@pytest.mark.parametrize("args, says", [
    (["--rounds", "99999999999"], "99,999,999,999 rounds of jobs of 1 inputs (--rounds, --x, -R) would take about"),
    (["-R", "99999999999"], "5 rounds of jobs of 1 inputs (--rounds, --x, -R) would take about"),
    (["--x", "0"], "input pictures per job are at least 1"),
])
def test_table5_refuses_work_beyond_the_limit_before_any_cluster(args: list[str], says: str) -> None:
    result = CliRunner().invoke(app, ["paper", "table5", "--quick", "--picture", "small", "--x", "1", *args,
                                      "--scheduler", "tcp://127.0.0.1:9"], env={"COLUMNS": "200"})
    assert result.exit_code == 2, result.output
    assert says in " ".join(result.output.split())
