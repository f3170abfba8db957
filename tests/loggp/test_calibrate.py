"""Calibration of L, o, g, G from MPI measurements: the derivation on figures made from known
parameters, its sanity checks, and (where mpi4py and mpiexec are installed) a real run on two
local ranks."""
from __future__ import annotations

import importlib.util
import json
import math
import shutil
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.loggp.calibrate import CalibrationError, derive_parameters
from perfcompose.loggp.params import read_params

SIZES = [1, 64, 4096, 65536, 1048576]


def synthetic(L: float, o: float, g: float, G: float, *, train: int = 16, delay: float = 10.0, reps: int = 5,
              spoil: dict[int, float] | None = None) -> dict:
    """Raw probe figures (seconds) as the LogGP model predicts them for parameters in us:
    RTT(1) = 2(o + L + o); a train of N back-to-back messages takes (N - 1)(g + (s-1)G) longer
    than one; a train spaced by d takes (N - 1)(d + o) longer."""
    rep_list = []
    for r in range(reps):
        f = (spoil or {}).get(r, 1.0)
        t1 = {str(s): (2 * o + L + (s - 1) * G + 2 * o + L) * 1e-6 * f for s in SIZES}
        tn = {str(s): t1[str(s)] + (train - 1) * (g + (s - 1) * G) * 1e-6 for s in SIZES}
        rep_list.append({"rtt": {str(s): 2 * (2 * o + L + (s - 1) * G) * 1e-6 * f for s in SIZES},
                         "train1": t1, "trainN": tn,
                         "delayed": t1["1"] + (train - 1) * (delay + o) * 1e-6,
                         "send_overhead": [o * 1e-6], "recv_overhead": [o * 1e-6]})
    return {"sizes": SIZES, "train": train, "delay": delay * 1e-6, "library": "synthetic", "reps": rep_list}


def test_derivation_recovers_known_parameters():
    cal = derive_parameters(synthetic(L=0.4, o=0.5, g=1.2, G=0.0001))
    p = cal.params
    assert (p.L, p.o, p.g, p.G) == pytest.approx((0.4, 0.5, 1.2, 0.0001), rel=1e-6)
    assert p.unit == "us"
    assert cal.spread["G"]["q1"] == pytest.approx(0.0001, rel=1e-6)


def test_medians_resist_one_bad_repetition():
    # repetition 2 has every round trip 3x too slow: its L is off, the median is not
    cal = derive_parameters(synthetic(L=0.4, o=0.5, g=1.2, G=0.0001, spoil={2: 3.0}))
    assert cal.params.L == pytest.approx(0.4, rel=1e-6)
    assert cal.spread["L"]["max"] > 2


def test_negative_latency_is_an_error_with_the_raw_figures():
    # overheads larger than half the round trip: L = RTT/2 - 2o < 0
    raw = synthetic(L=0.4, o=0.5, g=1.2, G=0.0001)
    for rep in raw["reps"]:
        rep["delayed"] += 15 * 2e-6  # o measured 2 us larger
    with pytest.raises(CalibrationError) as info:
        derive_parameters(raw)
    text = str(info.value)
    assert "L = -3.6 us is not positive" in text
    assert "raw figures" in text and "RTT" in text and "per repetition" in text


def test_implausible_bandwidth_is_an_error():
    with pytest.raises(CalibrationError, match="G = 2 us is implausible"):
        derive_parameters(synthetic(L=0.4, o=0.5, g=1.2, G=2.0))


def test_too_little_data_is_an_error():
    with pytest.raises(CalibrationError, match="too little"):
        derive_parameters({**synthetic(0.4, 0.5, 1.2, 1e-4), "reps": []})


HAVE_MPI = importlib.util.find_spec("mpi4py") is not None and (
    (Path(sys.executable).parent / "mpiexec").exists() or shutil.which("mpiexec") is not None)


@pytest.mark.skipif(not HAVE_MPI, reason="needs mpi4py and mpiexec (pip install 'perfcompose[mpi]')")
def test_calibrate_on_two_local_ranks(tmp_path):
    out = tmp_path / "params.json"
    # figures taken while other programs hold the cores can give a negative latency or overhead:
    # calibrate then refuses them (exit 2, the raw figures, the advice to run again) and writes
    # nothing; as it advises, such a calibration is run again
    for _ in range(3):
        res = CliRunner(env={"COLUMNS": "200"}).invoke(
            app, ["loggp", "calibrate", "--out", str(out), "--reps", "9", "--sizes", "1,64,4096,65536,262144"])
        if res.exit_code == 0:
            break
        assert res.exit_code == 2 and "calibration failed" in res.output, res.output
        assert "raw figures" in res.output and "run again on an idle machine" in res.output, res.output
        assert not out.exists()
    else:
        pytest.skip("the machine was too busy to calibrate: three runs in a row refused their figures, the last "
                    "with " + res.output.split("calibration failed: ", 1)[1].splitlines()[0])
    params = read_params(out)
    for k in ("L", "o", "g", "G"):
        v = getattr(params, k)
        assert math.isfinite(v) and v > 0
    record = json.loads(out.read_text())
    assert record["spread"]["L"]["min"] <= record["L"] <= record["spread"]["L"]["max"]
    assert len(record["per_repetition"]["o"]) == 9
    assert "parameters written to" in res.stdout
