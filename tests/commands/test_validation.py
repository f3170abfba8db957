"""``validate`` checks the work its rounds, inputs and sizes ask for before it measures anything."""
from __future__ import annotations

from run_cli import perfcompose


def test_rounds_beyond_the_step_limit_are_refused_before_any_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = perfcompose("validate", "nop", "--x", "1024,2048,4096", "--count", "2", "--rounds", "99999999999")
    assert result.returncode == 2
    assert "99,999,999,999 rounds of 1 program(s) on 2 inputs of each x (--reps, --count, --x) would take about" \
        in " ".join(result.stderr.split())
    assert not any(tmp_path.iterdir())  # nothing measured, no checkpoint left behind
