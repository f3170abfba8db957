"""Long messages with their rendezvous: a calc of R before each send of at least the calibrated
size, taking over what the send waited for; shorter messages and everything else as before."""
from __future__ import annotations

import json

import pytest
from hand_traces import rank_trace, write_trace
from run_cli import perfcompose

from perfcompose.loggp.goal.loggopsim import simulate_goal
from perfcompose.loggp.goal.schedule import CALC, SEND, parse_goal
from perfcompose.loggp.params import LogGP
from perfcompose.loggp.trace.handshake import Handshake, read_handshake, with_handshakes

PARAMS = LogGP(10.0, 2.0, 5.0, 0.01, "ns")
PINGPONG = """num_ranks 2
rank 0 {
  a: calc 100
  ping: send {n}b to 1 tag 0
  pong: recv 8b from 1 tag 0
  ping requires a
  pong requires ping
}
rank 1 {
  ping: recv {n}b from 0 tag 0
  pong: send 8b to 0 tag 0
  pong requires ping
}
"""


def finish(schedule):
    return max(simulate_goal(schedule, PARAMS, timelines=False).finish)


@pytest.mark.parametrize("n, slower", [(8192, 50.0), (4096, 50.0), (4095, 0.0), (8, 0.0)])
def test_a_send_from_the_size_on_arrives_r_later(n, slower):
    s = parse_goal(PINGPONG.replace("{n}", str(n)))
    assert finish(with_handshakes(s, 4096, 50.0)) == pytest.approx(finish(s) + slower)


def test_the_calc_takes_over_the_sends_requirements():
    s = with_handshakes(parse_goal(PINGPONG.replace("{n}", "8192")), 4096, 50.0)
    assert s.num_ops == 6 and list(s.op_ptr) == [0, 4, 6]
    assert list(s.kind[:4]) == [CALC, CALC, SEND, s.kind[3]] and s.size[1] == 50.0
    pairs = set(zip(s.req_a.tolist(), s.req_b.tolist()))
    assert {(1, 0), (2, 1), (3, 2), (5, 4)} == pairs
    assert list(s.req_b) == sorted(s.req_b)


def test_a_parameter_file_holds_r_or_none(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"unit": "us", "L": 1, "o": 1, "g": 1, "G": 0.001, "R": 2.5, "R_from_bytes": 4096}))
    assert read_handshake(path) == Handshake(4096, 2.5, "us") and read_handshake(path).ns() == pytest.approx(2500.0)
    for extra in ({}, {"R": 0.0, "R_from_bytes": 4096}, {"R": float("nan"), "R_from_bytes": 4096}):
        path.write_text(json.dumps({"unit": "us", "L": 1, "o": 1, "g": 1, "G": 0.001, **extra}))
        assert read_handshake(path) is None


def test_check_with_a_calibration_that_holds_r_adds_it_and_says_so(tmp_path):
    ranks = ([("send", 10, 12, 1, 1, 65536), ("recv", 12, 14, 1, 2, 64), ("finalize", 20, 21)],
             [("recv", 10, 12, 0, 1, 65536), ("send", 12, 14, 0, 2, 64), ("finalize", 20, 21)])
    for r, calls in enumerate(ranks):
        write_trace(tmp_path, rank_trace(r, 2, calls))
    params = {"unit": "us", "L": 1, "o": 1, "g": 1, "G": 0.001}
    plain, with_r = tmp_path / "plain.json", tmp_path / "r.json"
    plain.write_text(json.dumps(params))
    with_r.write_text(json.dumps({**params, "R": 1000.0, "R_from_bytes": 4096}))
    a, b = (perfcompose("loggp", "check", str(tmp_path), "--params", str(p)) for p in (plain, with_r))
    assert a.returncode == b.returncode == 0 and "rendezvous" not in a.stdout
    assert "messages of 4096 B or more: R = 1000 us more each" in " ".join(b.stdout.split())

    def simulated(out: str) -> float:
        return float(out.split("simulated")[1].split("ms")[0])
    assert simulated(b.stdout) == pytest.approx(simulated(a.stdout) + 1.0, abs=0.01)  # one long message: +1 ms
