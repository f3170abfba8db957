"""``loggp calibrate --sizes`` is checked before any MPI rank starts."""
from __future__ import annotations

import pytest
from run_cli import perfcompose

from perfcompose.loggp.calibrate.parameters import MIN_G_SIZE


@pytest.mark.parametrize("sizes", ["-1", "0,4096,8192", "1e308", "8,,64", "x", "1,2", "1,2,3", "1,2,4096",
                                   "1,4096,2000000000"])
def test_sizes_that_cannot_calibrate_are_refused_before_the_probe(sizes, tmp_path):
    result = perfcompose("loggp", "calibrate", "--sizes", sizes, "--out", str(tmp_path / "p.json"),
                         "--mpiexec", "/nonexistent")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "--sizes" in result.stderr and f"two of them at least {MIN_G_SIZE}" in " ".join(result.stderr.split())
    assert not (tmp_path / "p.json").exists()


@pytest.mark.parametrize("option", ["--reps", "--train"])
def test_repetitions_or_trains_beyond_the_step_limit_are_refused_before_the_probe(option, tmp_path):
    result = perfcompose("loggp", "calibrate", option, "99999999999", "--out", str(tmp_path / "p.json"),
                         "--mpiexec", "/nonexistent")
    assert result.returncode == 2
    assert "at 10 sizes (--reps, --train, --sizes) would take about" in " ".join(result.stderr.split())
