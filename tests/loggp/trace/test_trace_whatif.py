"""What if the network were different: a traced run's makespan grows with each of L, o, g and G,
the factor found for a slowdown is where a direct simulation reaches it, and another network is
a parameter file read like any other."""
from __future__ import annotations

import json

import numpy as np
import pytest
from hand_traces import rank_trace, write_trace
from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.loggp.params import LogGP, write_params
from perfcompose.loggp.trace.schedule import trace_schedule
from perfcompose.loggp.trace.whatif import PARAMETERS, makespan, sweep_factors, what_if

runner = CliRunner(env={"COLUMNS": "200"})

#: four ranks: a ring of 4 KiB halo messages, then a 64 B allreduce, twice, computing between (us)
RING = [rank_trace(r, 4, [("isend", 10, 11, (r + 1) % 4, 1, 4096, 1), ("irecv", 11, 12, (r - 1) % 4, 1, 4096, 2),
                          ("done", 40, 45, (r + 1) % 4, 1, 4096, 1), ("done", 40, 45, (r - 1) % 4, 1, 4096, 2),
                          ("allreduce", 60 + 5 * r, 80, -2, 0, 64),
                          ("send", 90, 95, (r + 1) % 4, 2, 100_000) if r % 2 == 0 else
                          ("recv", 90, 95, (r - 1) % 4, 2, 100_000),
                          ("finalize", 120, 121)]) for r in range(4)]
NET = LogGP(2.0, 0.5, 1.0, 0.001, "us")


@pytest.fixture(scope="module")
def result():
    return what_if(trace_schedule(RING), NET, sweep_factors(0.1, 100, 13), [0.01, 0.05, 0.10],
                   other=LogGP(5.0, 1.0, 1.0, 0.0005, "us"))


def test_the_makespan_grows_with_each_parameter(result):
    assert [s.parameter for s in result.sweeps] == list(PARAMETERS)
    for sweep in result.sweeps:
        spans = np.array(sweep.makespans)
        assert np.all(np.diff(spans) >= -1e-15), sweep.parameter
        assert spans[-1] > spans[0], sweep.parameter  # every parameter counts somewhere in this run
        assert spans[sweep.factors.index(1.0)] == result.base


def test_the_tolerated_factor_is_where_a_direct_simulation_slows_by_the_share(result):
    traced = trace_schedule(RING)
    found = [t for t in result.tolerances if t.factor is not None]
    assert len(found) >= 8
    for t in found:
        target = result.base * (1 + t.slowdown)
        at = makespan(traced, NET.replace(**{t.parameter: getattr(NET, t.parameter) * t.factor}))
        just_below = makespan(traced, NET.replace(**{t.parameter: getattr(NET, t.parameter) * t.factor / 1.002}))
        assert at == pytest.approx(t.makespan) and at >= target > just_below, t
        assert t.value == pytest.approx(getattr(NET, t.parameter) * t.factor)
    for p in PARAMETERS:  # a larger slowdown needs a larger factor
        factors = [t.factor for t in result.tolerances if t.parameter == p and t.factor is not None]
        assert factors == sorted(factors)


def test_another_network_is_the_same_schedule_with_its_parameters(result):
    assert result.other_makespan == pytest.approx(makespan(trace_schedule(RING), result.other))
    assert result.other_makespan != result.base


def test_whatif_writes_json_and_a_plot(tmp_path):
    for t in RING:
        write_trace(tmp_path, t)
    write_params(tmp_path / "net.json", NET)
    res = runner.invoke(app, ["loggp", "whatif", str(tmp_path), "--params", str(tmp_path / "net.json"),
                              "--points", "4", "--slowdown", "5", "--network", str(tmp_path / "net.json"),
                              "--json", str(tmp_path / "w.json")])
    assert res.exit_code == 0, res.output
    doc = json.loads((tmp_path / "w.json").read_text())
    assert doc["ranks"] == 4 and doc["other"]["makespan_s"] == doc["makespan_s"]
    assert [s["factors"] for s in doc["sweeps"]] == [[0.1, 1.0, 10.0, 100.0]] * 4
    assert {t["unit"] for t in doc["tolerances"]} == {"us", "us/B"}
    assert "+5 %" in res.stdout


def test_a_bad_network_file_is_a_located_error(tmp_path):
    for t in RING:
        write_trace(tmp_path, t)
    bad = tmp_path / "net.json"
    bad.write_text('{"unit": "us", "L": 1, "o": 1,\n "g": -1, "G": 0}\n')
    res = runner.invoke(app, ["loggp", "whatif", str(tmp_path), "--L", "1", "--o", "1", "--g", "1", "--G", "0",
                              "--network", str(bad)])
    assert res.exit_code == 2
    assert str(bad) in res.output and "g = -1" in res.output and "Traceback" not in res.output


@pytest.fixture
def ring_folder(tmp_path):
    for t in RING:
        write_trace(tmp_path, t)
    return tmp_path


GIVEN = ["--L", "1", "--o", "1", "--g", "1", "--G", "0.001"]


def _whatif(folder, *extra: str):
    return runner.invoke(app, ["--max-steps", "1e7", "loggp", "whatif", str(folder), *GIVEN, "--points", "3",
                               "--slowdown", "5", *extra])


@pytest.mark.parametrize("option", ["--L", "--o", "--g", "--G"])
def test_a_parameter_no_simulation_takes_is_an_error_naming_its_option(ring_folder, option):
    # 1e11 us is 1e14 ns, 1e16 ns at --high 100: past what sums of such durations keep finite
    for value in ["nan", "inf", "-inf", "-1", "1e308", "1e15", "1e11"]:
        res = _whatif(ring_folder, f"{option}={value}")
        assert res.exit_code == 2, (value, res.output)
        assert f"error: {option} " in res.output and "hint: give" in res.output and "Traceback" not in res.output
    assert "a lower --high" in _whatif(ring_folder, f"{option}=1e11").output
    ok = _whatif(ring_folder, f"{option}=1e11", "--high", "2", "--json", str(ring_folder / "w.json"))
    assert ok.exit_code == 0, ok.output  # 2e14 ns at most: finite times
    doc = json.loads((ring_folder / "w.json").read_text())
    spans = [doc["makespan_s"], *(m for s in doc["sweeps"] for m in s["makespans_s"])]
    assert all(np.isfinite(spans)) and min(spans) > 0


def test_a_parameter_file_out_of_range_is_located_at_the_file(ring_folder):
    net = ring_folder / "net.json"
    write_params(net, LogGP(1e14, 1.0, 1.0, 0.001, "us"))
    res = runner.invoke(app, ["loggp", "whatif", str(ring_folder), "--params", str(net), "--points", "3"])
    assert res.exit_code == 2 and f"{net}: L 1e+14 us" in res.output, res.output
