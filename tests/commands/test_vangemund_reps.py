"""``paper vangemund --reps`` is checked against the step limit before any calibration or run."""
from __future__ import annotations

from run_cli import perfcompose


def test_reps_beyond_the_limit_are_refused_before_anything_runs(tmp_path):
    result = perfcompose("paper", "vangemund", "--reps", "99999999999", "-o", str(tmp_path / "vg"))
    assert result.returncode == 2
    assert "99,999,999,999 timed runs of every configuration (--reps) would take about 1e+19 steps" in \
        " ".join(result.stderr.split())
    assert not (tmp_path / "vg").exists()
