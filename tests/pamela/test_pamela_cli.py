"""``perfcompose pamela compile | eval | simulate``: output, JSON, and bad input exiting 2 with a place."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from pamela_models import EXAMPLES, MRM
from typer.testing import CliRunner

from perfcompose.cli import app

runner = CliRunner()
ENV = {"COLUMNS": "200"}


def run(*args: str):
    return runner.invoke(app, ["pamela", *args], env=ENV)


@pytest.fixture
def mrm(tmp_path):
    path = tmp_path / "mrm.pam"
    path.write_text(MRM)
    return path


def test_compile_prints_the_simplified_t_main(mrm):
    r = run("compile", str(mrm))
    assert r.exit_code == 0, r.output
    assert r.output.splitlines() == ["numeric parameter P", "numeric parameter N",
                                     "numeric T_main = max(10.1*N, 0.1*N*P)"]


def test_compile_all_prints_phi_delta_omega(mrm):
    r = run("compile", str(mrm), "--all")
    assert r.exit_code == 0, r.output
    assert "numeric phi_main = 10.1*N" in r.output and "numeric delta_main = [0.1*N*P]" in r.output
    assert "numeric omega_main = 0.1*N*P" in r.output


def test_compile_paper_phi_option():
    r = run("compile", str(EXAMPLES / "disk_farm.pam"), "--paper-phi", "--all")
    assert r.exit_code == 0 and "phi_main" in r.output


def test_eval_json_has_the_four_equations(mrm):
    r = run("eval", str(mrm), "P=1000", "N=1e6", "--json", "-")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["T_main"] == 1e8 and data["omega_main"] == 1e8 and data["delta_main"] == [1e8]
    assert data["phi_main"] == pytest.approx(1.01e7)


def test_eval_table_and_another_process(tmp_path):
    path = tmp_path / "two.pam"
    path.write_text("numeric parameter N\nprocess main = delay(N)\nprocess other = delay(2 * N)\n")
    r = run("eval", str(path), "N=3", "--process", "other", "--json", "-")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout) == {"T_other": 6.0, "phi_other": 6.0, "omega_other": 0.0, "delta_other": [],
                                    "unit": "us"}
    r = run("eval", str(path), "N=3")
    assert r.exit_code == 0 and "T_main" in r.output and "3" in r.output


def test_eval_prints_times_with_their_unit_and_each_resource_load_as_a_number(mrm):
    r = run("eval", str(mrm), "P=1000", "N=1e6")
    assert r.exit_code == 0, r.output
    assert "value [us]" in r.output and "times in us" in r.output
    rows = {line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:4]]
            for line in r.output.splitlines() if line.startswith("│")}
    assert rows["T_main (time)"] == ["100000000", "100 s"]
    assert rows["phi_main (critical path)"] == ["10100000", "10.1 s"]
    assert rows["delta_main of resource 0"] == ["100000000", "100 s"]
    assert "{0:" not in r.output  # no Python dict
    r = run("eval", str(mrm), "P=1000", "N=1e6", "--unit", "s")
    assert r.exit_code == 0 and "value [s]" in r.output and "times in s" in r.output
    r = run("eval", str(mrm), "P=1000", "N=1e6", "--unit", "parsecs")
    assert r.exit_code == 2 and "unknown time unit 'parsecs'" in r.output


def test_simulate_prints_bound_simulated_and_error(mrm):
    r = run("simulate", str(mrm), "P=101", "N=100")
    assert r.exit_code == 0, r.output
    # bound max(1010, 1010) = 1010; simulated 10.1 * 100 + 0.1 * 100 = 1020
    assert "1010" in r.output and "1020" in r.output and "0.980 %" in r.output
    assert "bound T [us]" in r.output and "simulated [us]" in r.output  # the unit of every time shown
    r = run("simulate", str(mrm), "P=50", "N=100", "--distribution", "exponential-service", "--seed", "3",
            "--unit", "ms", "--json", "-")
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["T_main"] == 1010 and data["simulated"] >= 1010 and data["uses"] == 5000 and data["unit"] == "ms"


@pytest.mark.parametrize("text,where", [
    ("numeric parameter N\nprocess main = seq (i = 1, M) delay(1)\n", "line 2, column 28"),       # undefined
    ("process w = delay(1)\nprocess main = delay(w + 1)\n", "line 2, column 22"),                  # process as number
    ("resource cpu(p) = fcfs(p, 1)\nprocess main = use(cpu(1, 2), 3)\n", "line 2, column 20"),     # arity
    ("process main = seq (i = 1, 3) {\n  delay(1)\n", "line 1, column 31"),                       # unbalanced
    ("process main = delay(1) }\n", "line 1, column 25"),                                          # unbalanced
])
@pytest.mark.parametrize("command", ["compile", "eval", "simulate"])
def test_model_errors_exit_2_with_their_position(tmp_path, text, where, command):
    path = tmp_path / "bad.pam"
    path.write_text(text)
    r = run(command, str(path))
    assert r.exit_code == 2, r.output
    assert where in r.output and "bad.pam" in r.output and "^" in r.output and "Traceback" not in r.output


@pytest.mark.parametrize("assignment,words", [
    ("P", "not a parameter assignment"), ("P=abc", "is not a number"), ("3P=1", "not a parameter name"),
    ("Q=1", "'Q' is not a parameter"), ("P=inf", "must be a finite number"),
])
def test_bad_assignments_exit_2(mrm, assignment, words):
    r = run("eval", str(mrm), assignment, "N=1")
    assert r.exit_code == 2 and words in r.output


def test_values_below_zero_and_times_below_zero_exit_2(tmp_path):
    # the compiler takes parameters to be positive: ceil(N/P) at N=P=-1 would print 3e-09 for a loop of no turns
    for values in (["N=-1", "P=-1"], ["N=1", "P=-1:3"]):
        r = run("eval", str(EXAMPLES / "owner_computes.pam"), *values)
        assert r.exit_code == 2 and "below zero" in r.output and "owner_computes.pam" in r.output, r.output
    # a load below zero where T is not: refused, not printed as a load of -1 us
    path = tmp_path / "neg.pam"
    path.write_text("numeric parameter N\nresource cpu(p) = fcfs(p, 1)\n"
                    "process main = par (i = 0, 1) use(cpu(i), 3 - 2 * i - N)\n")
    r = run("eval", str(path), "N=2")
    assert r.exit_code == 2 and "delta_main of resource 1 is a negative time at N=2 in" in r.output, r.output
    r = run("eval", str(EXAMPLES / "owner_computes.pam"), "N=0", "P=0")
    assert r.exit_code == 2 and "cannot be evaluated at N=0, P=0 in" in r.output and "owner_computes" in r.output


def test_a_load_vector_over_a_huge_index_range_is_refused_at_once():
    # delta_main sums a term per value of 1 .. N and loads P resources: at N=63528085 it ran for
    # more than 30 s before the steps of evaluation were counted
    done = subprocess.run([sys.executable, "-m", "perfcompose", "pamela", "eval", str(EXAMPLES / "owner_computes.pam"),
                           "N=63528085", "P=13237641"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 2, done.stdout + done.stderr
    assert "owner_computes.pam: delta_main: the index range _k0 = 1 .. N of 6.35e+07 values" in done.stderr
    assert "make N smaller" in done.stderr and "--max-steps" in done.stderr and "Traceback" not in done.stderr


def test_the_points_of_a_grid_count_their_steps_together(tmp_path):
    # T has no closed form (two cyclic maps shifted): each point sums 2 N load terms; 100 points
    # of 2e6 steps each are refused under a limit of 1e7, where each point alone is under it
    path = tmp_path / "shift.pam"
    path.write_text("numeric parameter N\nnumeric parameter P\nresource cpu(p) = fcfs(p, 1)\n"
                    "process main = par (i = 1, N) { use(cpu(i mod P), 1) ; use(cpu((i + 1) mod P), 1) }\n")
    r = runner.invoke(app, ["--max-steps", "1e7", "pamela", "eval", str(path), "N=1e4", "P=1:100"], env=ENV)
    assert r.exit_code == 2 and "shift.pam: T_main on 100 points: the index range _k0 = 1 .. N" in r.output, r.output
    assert run("eval", str(path), "N=1e4", "P=1:3").exit_code == 0


@pytest.mark.parametrize("values, words", [
    (["N=100", "P=1e18"], "_k0 = 1 .. P of 1e+18 values"), (["N=100", "P=3e6"], "3,000,001 resources"),
])
def test_huge_ranges_and_resource_counts_name_the_parameter(values, words):
    r = run("eval", str(EXAMPLES / "matvec.pam"), *values)
    assert r.exit_code == 2 and words in r.output and "P smaller" in r.output, r.output


def test_missing_file_and_missing_values_exit_2(mrm, tmp_path):
    r = run("compile", str(tmp_path / "none.pam"))
    assert r.exit_code == 2 and "no such file" in r.output
    r = run("eval", str(mrm), "P=1")
    assert r.exit_code == 2 and "no value for parameter N" in r.output
