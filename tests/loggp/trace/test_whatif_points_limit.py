"""loggp whatif refuses a sweep past the step limit before it simulates (--points 1e12 had run
until stopped: four simulations per point); found by the option fuzz, seed 1795955279."""
from __future__ import annotations

from hand_traces import rank_trace, write_trace
from typer.testing import CliRunner

from perfcompose.cli import app


def test_a_sweep_past_the_step_limit_is_refused(tmp_path):
    ranks = ([("send", 10, 12, 1, 1, 4096), ("finalize", 20, 21)], [("recv", 10, 12, 0, 1, 4096), ("finalize", 20, 21)])
    for r, calls in enumerate(ranks):
        write_trace(tmp_path, rank_trace(r, 2, calls))
    line = ["loggp", "whatif", str(tmp_path), "--L", "1", "--o", "1", "--g", "1", "--G", "0.01", "--points"]
    result = CliRunner().invoke(app, [*line, "1000000000000"], env={"COLUMNS": "200"})
    assert result.exit_code == 2, result.output
    assert "1,000,000,000,000 sweep points x 4 parameters of a schedule of" in result.output
    assert "the limit is 1e+09" in result.output
    assert CliRunner().invoke(app, [*line, "3"]).exit_code == 0
