"""Counts and tags out of range are located input errors (exit 2), never an OverflowError: a
thread count of 23 digits in ``explore``, a thread count named by a number (``nan``, ``E``) in
``compose``, a GOAL tag of 32 digits in ``loggp simulate``; more sizes in ``explore --x`` than it shows."""
from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from perfcompose.cli import app

QSORT = ["-c", "qsort=1034.17*x*log2(x)"]


def run(*args: str):
    return CliRunner(env={"COLUMNS": "200"}).invoke(app, [str(a) for a in args])


def test_explore_of_a_huge_thread_count_exits_2():
    r = run("explore", "tpool_99999999999999999999999(qsort)", "-T", "8", "--x", "65536", *QSORT)
    assert r.exit_code == 2, r.output
    assert "term, line 1, column 7" in r.output and "at most 10^12" in r.output
    assert "Traceback" not in r.output and "OverflowError" not in r.output


def test_compose_refuses_nan_inf_zoo_and_e_as_thread_counts():
    for name in ("nan", "inf", "zoo", "E"):
        r = run("compose", f"tpool({name}, qsort)", *QSORT)
        assert r.exit_code == 2, (name, r.output)
        assert f"'{name}' cannot name a thread count" in r.output and "/nan" not in r.output


def test_loggp_simulate_of_a_goal_tag_of_32_digits_names_file_and_line(tmp_path):
    goal = tmp_path / "big.goal"
    tag = "1" * 32
    goal.write_text(f"num_ranks 2\n\nrank 0 {{\n  ping: send 8b to 1 tag {tag}\n}}\n\n"
                    f"rank 1 {{\n  ping: recv 8b from 0 tag {tag}\n}}\n")
    r = run("loggp", "simulate", goal, "--L", "10", "--o", "2", "--g", "5", "--G", "1")
    assert r.exit_code == 2, r.output
    assert f"{goal}, line 4" in r.output and f"tag {tag} is too large" in r.output
    assert "OverflowError" not in r.output


def test_explore_refuses_more_sizes_than_it_can_show_and_warns_once():
    r = run("explore", "pipe(qsort, qsort)", "-T", "4", "--x", "6e16:2e45", *QSORT)
    assert r.exit_code == 2 and "97 sizes (6e16:2e45)" in r.output and "give at most 64" in r.output
    r = run("explore", "pipe(qsort, qsort)", "-T", "4", "--x", "1024:8192", *QSORT)
    assert r.exit_code == 0 and r.output.count("best split") == 4
    assert r.output.count("designs start more workers than this machine's") <= 1


def test_pamela_simulate_refuses_a_seed_beyond_32_bits():
    mrm = str(Path(__file__).resolve().parents[2] / "examples" / "pamela" / "mrm.pam")
    r = run("pamela", "simulate", mrm, "P=4", "N=100", "--seed", "9223372036854775808")
    assert r.exit_code == 2 and "--seed" in r.output and "OverflowError" not in r.output
    # the largest seed, 2^32 - 1, is simulated with Numba and without in test_without_numba.py


def test_a_loggp_parameter_of_minus_zero_is_shown_as_zero():
    r = run("loggp", "gauss", "--n", "60", "--p", "2", "--blocks", "10,20", "--reps", "1", "--L", "-0.0")
    assert r.exit_code == 0 and "L=0 " in r.output and "L=-0" not in r.output


def test_loggp_gauss_refuses_more_processors_than_memory_holds():
    r = run("loggp", "gauss", "--n", "60", "--p", "100000000", "--blocks", "10,20", "--reps", "1")
    assert r.exit_code == 2 and "simulating 100,000,000 processors (--p) would need about 95.4 GiB" in r.output
