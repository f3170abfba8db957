"""The calibration probe in C, built with an MPI's own compiler wrapper and run by its mpiexec:
its figures have the mpi4py probe's layout and calibrate; a wrapper that is not there is an
error naming --mpicc."""
from __future__ import annotations

import shutil

import pytest

from perfcompose.errors import InputError
from perfcompose.loggp.calibrate.parameters import (
    CalibrationError,
    CalibrationOptions,
    derive_parameters,
    mpiexec_for,
    run_probe,
)

MPICC = shutil.which("mpicc.openmpi") or shutil.which("mpicc")


@pytest.mark.skipif(MPICC is None, reason="needs an MPI compiler wrapper (apt-get install libopenmpi-dev)")
def test_the_c_probe_measures_with_the_wrappers_mpi(tmp_path, monkeypatch):
    monkeypatch.setenv("OMPI_ALLOW_RUN_AS_ROOT", "1")
    monkeypatch.setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    seen = []
    raw = run_probe(tmp_path / "raw.json", CalibrationOptions(reps=2, sizes="1,4096,8192", train=4, mpicc=MPICC),
                    progress=lambda k, n: seen.append((k, n)))
    assert seen == [(1, 2), (2, 2)]
    assert raw["probe"] == "C" and raw["sizes"] == [1, 4096, 8192] and len(raw["reps"]) == 2
    rep = raw["reps"][0]
    assert set(rep) >= {"rtt", "train1", "trainN", "delayed", "delayed_dry", "send_overhead", "recv_overhead"}
    # 1 B and 8 KiB round trips through shared memory both take ~10 us, either may be the shorter
    # one under load; a time per byte would put the 8 KiB one far below
    assert all(0 < rep["rtt"][size] < 1.0 for size in ("1", "4096", "8192"))
    assert rep["rtt"]["8192"] > 0.5 * rep["rtt"]["1"] and rep["delayed"] > rep["delayed_dry"] > 0
    try:  # two repetitions on a loaded machine may not calibrate; the layout always reads
        summary = derive_parameters(raw).raw_summary
    except CalibrationError as exc:
        assert "raw figures" in str(exc)
    else:
        assert summary["probe"] == "C" and summary["library"]


def test_the_launcher_is_the_wrappers_own(tmp_path, monkeypatch):
    for name in ("mpicc.openmpi", "mpiexec.openmpi", "mpicc", "mpiexec"):
        (tmp_path / name).write_text("")
        (tmp_path / name).chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert mpiexec_for("mpicc.openmpi") == str(tmp_path / "mpiexec.openmpi")
    assert mpiexec_for("mpicc") == str(tmp_path / "mpiexec")
    with pytest.raises(InputError, match="--mpicc mpicc.nompi: no such compiler wrapper"):
        mpiexec_for("mpicc.nompi")
