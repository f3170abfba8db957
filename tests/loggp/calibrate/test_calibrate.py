"""Calibration of L, o, g, G from MPI measurements: the derivation on figures made from known
parameters and its sanity checks (a real run on two local ranks, through the command line:
test_measured_side_cli.py)."""
from __future__ import annotations

import pytest

from perfcompose.loggp.calibrate.parameters import CalibrationError, derive_parameters

SIZES = [1, 64, 4096, 65536, 1048576]


def synthetic(L: float, o: float, g: float, G: float, *, train: int = 16, delay: float = 10.0, reps: int = 5,
              spoil: dict[int, float] | None = None, overshoot: float | None = None) -> dict:
    """Raw probe figures (seconds) as the LogGP model predicts them for parameters in us:
    RTT(1) = 2(o + L + o); a train of N back-to-back messages takes (N - 1)(g + (s-1)G) longer
    than one; a train spaced by d takes (N - 1)(d + o) longer. With ``overshoot`` every spin
    lasts that much longer than d, and the figures carry the spins' own time (the probe's
    ``delayed_dry``)."""
    spin = delay + (overshoot or 0.0)
    rep_list = []
    for r in range(reps):
        f = (spoil or {}).get(r, 1.0)
        t1 = {str(s): (2 * o + L + (s - 1) * G + 2 * o + L) * 1e-6 * f for s in SIZES}
        tn = {str(s): t1[str(s)] + (train - 1) * (g + (s - 1) * G) * 1e-6 for s in SIZES}
        rep_list.append({"rtt": {str(s): 2 * (2 * o + L + (s - 1) * G) * 1e-6 * f for s in SIZES},
                         "train1": t1, "trainN": tn,
                         "delayed": t1["1"] + (train - 1) * (spin + o) * 1e-6,
                         "send_overhead": [o * 1e-6], "recv_overhead": [o * 1e-6],
                         **({"delayed_dry": (train - 1) * spin * 1e-6} if overshoot is not None else {})})
    return {"sizes": SIZES, "train": train, "delay": delay * 1e-6, "library": "synthetic", "reps": rep_list}


def test_derivation_recovers_known_parameters():
    cal = derive_parameters(synthetic(L=0.4, o=0.5, g=1.2, G=0.0001))
    p = cal.params
    assert (p.L, p.o, p.g, p.G) == pytest.approx((0.4, 0.5, 1.2, 0.0001), rel=1e-6)
    assert p.unit == "us"
    assert cal.spread["G"]["q1"] == pytest.approx(0.0001, rel=1e-6)


def test_overhead_leaves_out_the_spins_overshoot():
    # spins of 10 us that last 10.5 us: without the spins' own time o would come out 0.5 us too
    # large and L 1 us too small (negative here)
    cal = derive_parameters(synthetic(L=0.4, o=0.5, g=1.2, G=0.0001, overshoot=0.5))
    assert (cal.params.L, cal.params.o) == pytest.approx((0.4, 0.5), rel=1e-6)
    assert "its spins alone 157.500" in "\n".join(cal.raw_summary["table"])


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


def test_overheads_above_the_one_way_time_keep_the_round_trip():
    # shared memory: the sender's o (0.8 us) exceeds RTT/4 (0.7 us), the receiver's polling hides
    # its part; o := RTT/4, L := 0, so that the model's ping-pong is the measured one, and said so
    raw = synthetic(L=0.4, o=0.5, g=1.2, G=0.0001)
    for rep in raw["reps"]:
        rep["delayed"] += 15 * 0.3e-6
    cal = derive_parameters(raw)
    assert (cal.params.L, cal.params.o) == pytest.approx((0.0, 0.7), abs=1e-9)
    assert cal.params.message_time(1) == pytest.approx(raw["reps"][0]["rtt"]["1"] / 2 * 1e6)
    assert "in 5 of 5 repetitions" in cal.raw_summary["notes"][0]
    assert derive_parameters(synthetic(L=0.4, o=0.5, g=1.2, G=0.0001)).raw_summary["notes"] == []


def test_g_from_the_ping_pongs_is_the_one_way_time_per_byte():
    # shared memory copies in and out in series for one message but overlaps them in a train:
    # the round trips grow by 2 x 0.0002 us per byte, the trains' gaps by 0.0001
    raw = synthetic(L=0.4, o=0.5, g=1.2, G=0.0001)
    for rep in raw["reps"]:
        rep["rtt"] = {str(s): 2 * (2 * 0.5 + 0.4 + (s - 1) * 0.0002) * 1e-6 for s in SIZES}
    assert derive_parameters(raw).params.G == pytest.approx(0.0001, rel=1e-6)
    cal = derive_parameters(raw, "ping-pong")
    assert cal.params.G == pytest.approx(0.0002, rel=1e-6) and cal.raw_summary["G_from"] == "ping-pong"
    assert (cal.params.L, cal.params.o, cal.params.g) == pytest.approx((0.4, 0.5, 1.2), rel=1e-6)
    with pytest.raises(CalibrationError, match="bandwidth 'rtt'"):
        derive_parameters(raw, "rtt")
