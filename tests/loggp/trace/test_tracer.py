"""The tracer built with the MPI's compiler wrapper and preloaded into a small mpi4py program on
two ranks: ``perfcompose loggp trace -o DIR -- mpiexec -n 2 ...`` writes both ranks' traces, the
run record and the GOAL schedule with the program's messages, and --check sets the simulated
makespan beside the measured time. Skipped without mpi4py or an MPI compiler wrapper, except
where PERFCOMPOSE_REQUIRE_MPI is set (CI installs the extra and sets it)."""
from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from perfcompose.errors import PerfcomposeError
from perfcompose.loggp.goal.schedule import read_goal
from perfcompose.loggp.trace.tracer import find_mpicc, trace_program

PROGRAM = """
from array import array
from mpi4py import MPI
c = MPI.COMM_WORLD
r = c.Get_rank()
a = array("d", bytes(8000))
for i in range(3):
    if r == 0:
        c.Send(a, 1, tag=5); c.Recv(a, 1, tag=6)
    else:
        c.Recv(a, 0, tag=5); c.Send(a, 0, tag=6)
req = c.Irecv(a, 1 - r, tag=7); c.Isend(a[:10], 1 - r, tag=7).Wait(); req.Wait()
c.Allreduce(array("d", [1.0] * 4), array("d", bytes(32)))
"""


def _require_mpi() -> Path:
    mpiexec = Path(sys.executable).parent / "mpiexec"
    missing = ("mpi4py is not installed (pip install -e '.[mpi]')" if importlib.util.find_spec("mpi4py") is None else
               "no mpicc beside this Python or on PATH" if not ((mpiexec.parent / "mpicc").exists()
                                                                or shutil.which("mpicc")) else
               "no mpiexec beside this Python" if not mpiexec.exists() else "")
    if missing:
        if os.environ.get("PERFCOMPOSE_REQUIRE_MPI"):
            pytest.fail(missing + ", and PERFCOMPOSE_REQUIRE_MPI asks for the MPI tests")
        pytest.skip(missing)
    return mpiexec


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """One tracer build for the tests of this module."""
    return tmp_path_factory.mktemp("cache")


def _trace(cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "perfcompose", "loggp", "trace", *args], capture_output=True,
                          text=True, timeout=120,
                          env={**os.environ, "COLUMNS": "1000", "PERFCOMPOSE_CACHE_DIR": str(cache)})


def test_trace_an_mpi4py_program_on_two_ranks(tmp_path, cache):
    mpiexec = _require_mpi()
    (tmp_path / "ping.py").write_text(PROGRAM)
    out = tmp_path / "run"
    res = _trace(cache, "-o", str(out), "--check", "--L", "0.4", "--o", "0.6", "--g", "1.3", "--G", "7e-5", "--",
                 str(mpiexec), "-n", "2", sys.executable, str(tmp_path / "ping.py"))
    assert res.returncode == 0, res.stderr
    assert sorted(p.name for p in out.iterdir()) == ["comms.0.txt", "comms.1.txt", "run.json", "schedule.goal",
                                                     "trace.0.bin", "trace.1.bin"]
    run = json.loads((out / "run.json").read_text())
    assert run["ranks"] == 2 and 0 < run["measured_s"] < run["wall_s"]
    s = read_goal(out / "schedule.goal")
    sends = sorted((int(s.rank_of[i]), int(s.peer[i]), int(s.tag[i]), int(s.size[i]))
                   for i in range(s.num_ops) if s.kind[i] == 0 and s.tag[i] < 2 ** 30)
    assert sends == [(0, 1, 5, 8000)] * 3 + [(0, 1, 7, 80)] + [(1, 0, 6, 8000)] * 3 + [(1, 0, 7, 80)]
    assert ((s.kind == 0) & (s.tag >= 2 ** 30)).sum() == 2  # the allreduce: one exchange
    measured = float(re.search(r"measured\s+([\d.]+) ms", res.stdout)[1])
    simulated = float(re.search(r"simulated\s+([\d.]+) ms", res.stdout)[1])
    assert measured == pytest.approx(run["measured_s"] * 1e3, abs=1e-3)
    assert 0.5 < simulated / measured < 1.5  # the run is mostly the computation between the calls


def test_a_command_that_fails_or_runs_no_mpi_is_a_user_error(tmp_path, cache, monkeypatch):
    _require_mpi()
    monkeypatch.setenv("PERFCOMPOSE_CACHE_DIR", str(cache))
    with pytest.raises(PerfcomposeError, match="the traced command exited with status 1: false --out x"):
        trace_program(["false", "--out", "x"], tmp_path / "a")
    with pytest.raises(PerfcomposeError, match=r"no traces \(trace.RANK.bin\) here"):
        trace_program(["true"], tmp_path / "b")


def test_the_compiler_wrapper_is_the_launchers_own(tmp_path, monkeypatch):
    for folder, names in (("deb", ("mpiexec.foo", "mpicc.foo", "mpicc")), ("venv", ("mpiexec", "mpicc"))):
        (tmp_path / folder).mkdir()
        for name in names:
            (tmp_path / folder / name).write_text("#!/bin/sh\n")
            (tmp_path / folder / name).chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path / "deb"))
    assert find_mpicc(["mpiexec.foo", "-n", "2", "a.out"]) == str(tmp_path / "deb" / "mpicc.foo")
    assert find_mpicc([str(tmp_path / "venv" / "mpiexec"), "-n", "2"]) == str(tmp_path / "venv" / "mpicc")
    assert find_mpicc(["mpiexec.foo"], "/opt/mpi/bin/mpicc") == "/opt/mpi/bin/mpicc"
