"""Counts and tags out of range are located input errors (exit 2), never an OverflowError: a
thread count of 23 digits in ``explore``, a thread count named by a number (``nan``, ``E``) in
``compose``, a GOAL tag of 32 digits in ``loggp simulate``."""
from __future__ import annotations

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
