"""``perfcompose loggp simulate``: output, parameter files, and exit status 2 on bad input."""
from __future__ import annotations

import json

import pytest
from txt2bin_grammar import accepted_by_txt2bin_grammar
from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.loggp.params import LogGP, write_params

runner = CliRunner(env={"COLUMNS": "200"})

ONE = json.dumps({"P": 2, "steps": [{"kind": "comm", "messages": [[0, 1, 1]], "send_order": [[0], []]}]})
PARAMS = ["--L", "10", "--o", "2", "--g", "5", "--G", "1"]


def run(*args: str):
    return runner.invoke(app, ["loggp", *args])


def test_simulate_json_one_message(write_file):
    # send [0, 2], arrival 0 + 2 + 0 + 10 = 12, receive [12, 14]
    res = run("simulate", str(write_file("p.json", ONE)), *PARAMS, "--json", "-")
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["finish"] == [2, 14] and out["makespan"] == 14
    assert out["ops"] == [[["send", 0, 0, 2]], [["recv", 0, 12, 14]]]


def test_simulate_table(write_file):
    res = run("simulate", str(write_file("p.json", ONE)), *PARAMS)
    assert res.exit_code == 0
    assert "makespan 14 (processor 1)" in res.stdout and "P1: recv m0 [12, 14]" in res.stdout


def test_params_file_and_flag_override(write_file, tmp_path):
    pf = tmp_path / "params.json"
    write_params(pf, LogGP(L=20, o=2, g=5, G=1, unit="us"))
    res = run("simulate", str(write_file("p.json", ONE)), "--params", str(pf), "--json", "-")
    assert json.loads(res.stdout)["makespan"] == 24  # 2 + 20 + 2
    res = run("simulate", str(write_file("p.json", ONE)), "--params", str(pf), "--L", "10", "--json", "-")
    assert json.loads(res.stdout)["makespan"] == 14


def test_params_converted_to_the_programs_unit(write_file, tmp_path):
    pf = tmp_path / "params.json"
    write_params(pf, LogGP(L=0.01, o=0.002, g=0.005, G=0.001, unit="ms"))
    prog = json.loads(ONE)
    prog["unit"] = "us"
    res = run("simulate", str(write_file("p.json", json.dumps(prog))), "--params", str(pf), "--json", "-")
    assert res.exit_code == 0
    assert json.loads(res.stdout)["makespan"] == pytest.approx(14)


def test_worst_case_reports_forced_sends(write_file):
    cycle = json.dumps({"P": 3, "steps": [{"kind": "comm", "messages": [[2, 0, 1], [0, 1, 1], [1, 0, 1]]}]})
    res = run("simulate", str(write_file("c.json", cycle)), *PARAMS, "--worst-case", "--ties", "rank", "--json", "-")
    out = json.loads(res.stdout)
    assert out["forced"] == [{"step": 0, "processor": 0, "candidates": [0, 1]}]
    assert out["makespan"] == 44  # worked in test_worstcase.py
    res = run("simulate", str(write_file("c.json", cycle)), *PARAMS, "--worst-case")
    assert "forced send: step 0" in res.stdout


def test_many_forced_sends_are_summed_up_in_the_table_and_listed_in_json(write_file):
    """A ring of 100 processors (one forced send, 100 cycle members) beside 30 pairs that wait on
    each other (30 more): the table lists the first 20 forced sends with at most 40 cycle members
    each, --json all of them."""
    messages = [[p, (p + 1) % 100, 1] for p in range(100)]
    messages += [m for q in range(100, 160, 2) for m in ([q, q + 1, 1], [q + 1, q, 1])]
    path = str(write_file("ring.json", json.dumps({"P": 160, "steps": [{"kind": "comm", "messages": messages}]})))
    out = json.loads(run("simulate", path, *PARAMS, "--worst-case", "--ties", "rank", "--json", "-").stdout)
    assert len(out["forced"]) == 31 and len(out["forced"][0]["candidates"]) == 160
    res = run("simulate", path, *PARAMS, "--worst-case", "--ties", "rank")
    assert res.exit_code == 0
    text = " ".join(res.stdout.split())  # the console wraps long lines
    assert text.count("forced send: step 0") == 20
    assert "cycle members: 0, 1, 2," in text and "39 and 120 more;" in text and ", 40," not in text
    assert "... and 11 more forced sends (31 in all; --json lists them with their cycles)" in text


def test_loggopsim_semantics_and_goal_input(write_file, tmp_path):
    goal = tmp_path / "p.goal"
    res = run("simulate", str(write_file("p.json", ONE)), *PARAMS, "--semantics", "loggopsim", "--json", "-",
              "--to-goal", str(goal))
    assert json.loads(res.stdout)["finish"] == [2, 14]
    res = run("simulate", str(goal), *PARAMS, "--json", "-")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["finish"] == [2, 14]


def test_timeline_png(write_file, tmp_path):
    out = tmp_path / "t.png"
    res = run("simulate", str(write_file("p.json", ONE)), *PARAMS, "--timeline", str(out))
    assert res.exit_code == 0 and out.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("content, args, needle", [
    ('{"P": 2, "steps": [', PARAMS, "not valid JSON"),
    (json.dumps({"P": 2, "steps": [{"kind": "comm", "messages": [[0, 1, 1]], "send_order": [[3], []]}]}),
     PARAMS, "message id 3 is out of range"),
    (ONE, ["--L", "10"], "missing LogGP parameter(s) --o --g --G"),
    (ONE, ["--L", "-1", "--o", "2", "--g", "5", "--G", "1"], "must be finite and non-negative"),
])
def test_bad_input_exits_2(write_file, content, args, needle):
    res = run("simulate", str(write_file("bad.json", content)), *args)
    assert res.exit_code == 2
    assert needle in res.stderr and "Traceback" not in res.output


def test_bad_params_file_exits_2(write_file):
    pf = write_file("params.json", '{"L": 1, "o": 2}')
    res = run("simulate", str(write_file("p.json", ONE)), "--params", str(pf))
    assert res.exit_code == 2 and "missing LogGP parameter(s) g, G" in res.stderr


def test_bad_choice_exits_2(write_file):
    res = run("simulate", str(write_file("p.json", ONE)), *PARAMS, "--ties", "coin")
    assert res.exit_code == 2


def test_gauss_small(tmp_path):
    plot, out = tmp_path / "g.png", tmp_path / "g.json"
    res = run("gauss", "--n", "120", "--p", "4", "--blocks", "20,40,60", "--reps", "1", "--plot", str(plot),
              "--json", str(out))
    assert res.exit_code == 0, res.output
    assert "faster layout per block size (standard): 20:" in res.stdout
    assert "best choice: block" in res.stdout
    record = json.loads(out.read_text())
    assert {(r["block"], r["layout"]) for r in record["rows"]} == {
        (b, lay) for b in (20, 40, 60) for lay in ("row-cyclic", "diagonal")}
    assert plot.read_bytes()[:4] == b"\x89PNG"


def test_gauss_bad_block_exits_2():
    res = run("gauss", "--n", "100", "--blocks", "30")
    assert res.exit_code == 2 and "does not divide" in res.stderr


GOAL = "num_ranks 2\nrank 0 {\nl0: send 8b to 1 tag 0\n}\nrank 1 {\nl0: recv 8b from 0 tag 0\n}\n"


def test_goal_file_named_txt_is_read_as_goal(write_file):
    # o + L = 12, then o + 7G = 9 charged on arrival
    res = run("simulate", str(write_file("schedule.txt", "// from schedgen\n" + GOAL)), *PARAMS, "--json", "-")
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["finish"] == [2, 21]


@pytest.mark.parametrize("option", [["--seed", "3"], ["--ties", "rank"], ["--gap-origin", "start"],
                                    ["--worst-case"], ["--semantics", "paper"]])
def test_paper_options_refused_for_goal_input(write_file, option):
    res = run("simulate", str(write_file("p.goal", GOAL)), *PARAMS, *option)
    assert res.exit_code == 2
    assert f"{option[0]}" in res.stderr and "does not apply to a GOAL schedule" in res.stderr


def test_goal_timeline_png(write_file, tmp_path):
    out = tmp_path / "t.png"
    res = run("simulate", str(write_file("p.goal", GOAL)), *PARAMS, "--timeline", str(out))
    assert res.exit_code == 0, res.output
    assert out.read_bytes()[:4] == b"\x89PNG"


def test_to_goal_output_follows_the_txt2bin_grammar(write_file, tmp_path):
    goal = tmp_path / "p.goal"
    res = run("simulate", str(write_file("p.json", ONE)), *PARAMS, "--to-goal", str(goal))
    assert res.exit_code == 0, res.output
    accepted_by_txt2bin_grammar(goal.read_text())


def test_loggopsim_default_threshold_is_65535(write_file):
    # 100 kB (G = 0): above LogGOPSim's default S, a rendezvous, so the first send completes
    # when the receiver matches it at o + L = 12 and the second step's send starts at 12, not at
    # g = 5 as when eager: the second message is received [24, 26] instead of [17, 19]
    big = json.dumps({"P": 2, "steps": [{"kind": "comm", "messages": [[0, 1, 100000]]},
                                        {"kind": "comm", "messages": [[0, 1, 1]]}]})
    path = write_file("big.json", big)
    flat = ["--L", "10", "--o", "2", "--g", "5", "--G", "0", "--semantics", "loggopsim", "--json", "-"]
    default = json.loads(run("simulate", str(path), *flat).stdout)
    never = json.loads(run("simulate", str(path), *flat, "--S", "1e9").stdout)
    assert default["makespan"] == 26 and never["makespan"] == 19
