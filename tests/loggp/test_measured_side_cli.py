"""The measured side of paper 002 as a user runs it: ``perfcompose loggp calibrate`` on two real
MPI ranks, then ``perfcompose loggp gauss --measure`` with the calibrated network, both as
processes of the installed command line. Without mpi4py (the ``[mpi]`` extra) the test is
skipped, except where PERFCOMPOSE_REQUIRE_MPI is set (CI installs the extra and sets it): there a
missing MPI fails."""
from __future__ import annotations

import importlib.util
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from perfcompose.loggp.params import read_params

MISSING = "mpi4py is not installed (pip install -e '.[mpi]')"


def _require_mpi() -> None:
    if importlib.util.find_spec("mpi4py") is None:
        if os.environ.get("PERFCOMPOSE_REQUIRE_MPI"):
            pytest.fail(MISSING + ", and PERFCOMPOSE_REQUIRE_MPI asks for the MPI tests")
        pytest.skip(MISSING)


def _perfcompose(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "1000"}
    return subprocess.run([sys.executable, "-m", "perfcompose", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


def _calibrate(out: Path, tries: int = 3) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """Calibrate as its refusal advises: figures taken while other programs hold the two cores
    (the test suite's other worker among them) can give a negative latency, which the command
    refuses (exit 2, the raw figures, the advice to run again), so a refused calibration is run
    again, at most ``tries`` times. Returns the last run and the refusals."""
    refused = []
    for _ in range(tries):
        res = _perfcompose("loggp", "calibrate", "--out", str(out), "--reps", "5", "--sizes", "1,4096,65536")
        if res.returncode == 0:
            break
        text = res.stderr + res.stdout
        assert res.returncode == 2 and "calibration failed" in text, text
        assert "Traceback" not in res.stderr and not out.exists()
        refused.append(text)
    return res, refused


def _per_repetition(text: str, name: str) -> list[float]:
    """One parameter's values per repetition, from a refusal's raw figures."""
    line = next(ln for ln in text.splitlines() if "per repetition:" in ln)
    part = next(p for p in line.split("per repetition:", 1)[1].split(";") if p.strip().startswith(name + " "))
    return [float(v) for v in part.strip()[len(name):].split(",")]


def test_calibrate_then_gauss_measure_on_two_mpi_ranks(tmp_path):
    _require_mpi()
    params = tmp_path / "params.json"
    res, refused = _calibrate(params)
    if res.returncode == 0:
        p = read_params(params)
        # plausible for two ranks of one machine: latency, overhead and gap below a millisecond
        # (the latency 0 where the overheads fill the one-way time), a bandwidth between 10 MB/s
        # and 10 TB/s
        for name in ("L", "o", "g"):
            value = getattr(p, name)
            assert math.isfinite(value) and (0 <= value if name == "L" else 0 < value) and value < 1000, \
                (name, value, res.stdout)
        assert 1e-7 < p.G < 0.1, (p.G, res.stdout)
        record = json.loads(params.read_text())
        assert record["raw"]["library"].startswith("MPICH") and len(record["per_repetition"]["L"]) == 5
        assert "LogGP parameters of MPICH" in res.stdout and "parameters written to" in res.stdout
        network = ["--params", str(params)]
    else:
        # a machine too busy for three calibrations in a row: only the latency or the overhead
        # (L = RTT/2 - 2o, small on one machine) may be what was refused; the gap and the
        # bandwidth measured on the way are still positive and plausible, and the elimination is
        # measured against the default network
        for text in refused:
            reason = text.split("calibration failed: ", 1)[1].splitlines()[0]
            assert all(part.strip()[:2] in ("L ", "o ") for part in reason.split(";")), reason
            assert all(0 < g < 1000 for g in _per_repetition(text, "g")), text
            assert all(1e-7 < G < 0.1 for G in _per_repetition(text, "G")), text
        network = []

    out, plot = tmp_path / "gauss.json", tmp_path / "gauss.png"
    res = _perfcompose("loggp", "gauss", "--measure", "--ranks", "2", "--n", "60", "--blocks", "10,20", "--reps",
                       "1", *network, "--json", str(out), "--plot", str(plot))
    assert res.returncode == 0, res.stderr + res.stdout
    for title in ("Figure 7: total time", "Figure 8: communication time", "Figure 9: computation time"):
        assert f"{title}, measured on 2 MPI ranks (MPICH" in res.stdout
    assert "communication: the measurement lies between the standard and the worst-case prediction for" in res.stdout
    rows = json.loads(out.read_text())["rows"]
    assert {(r["block"], r["layout"]) for r in rows} == {(b, lay) for b in (10, 20)
                                                          for lay in ("row-cyclic", "diagonal")}
    for r in rows:
        m = r["measured"]
        assert m["eliminated"] and 0 < m["computation"] < m["total"]
        assert r["standard"]["total"] > 0 and r["worst"]["total"] >= r["standard"]["computation"]
    assert plot.read_bytes()[:4] == b"\x89PNG"
