"""GOAL text: what the writer produces is what LogGOPSim's txt2bin scanner accepts.

The grammar check (txt2bin_grammar.py) transcribes txt2bin.re's scanner states. Where LogGOPSim's
sources are built (``LOGGOPSIM_DIR`` names the folder holding ``txt2bin`` and ``LogGOPSim``),
the written files are also converted by txt2bin itself and simulated, and the times compared.
"""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from bad_goal import BAD_GOAL
from random_programs import random_program
from txt2bin_grammar import accepted_by_txt2bin_grammar

from perfcompose.errors import InputError
from perfcompose.loggp import LogGP
from perfcompose.loggp.goal.loggopsim import simulate_goal
from perfcompose.loggp.goal.schedule import (
    LazySequence,
    goal_text,
    looks_like_goal,
    parse_goal,
    program_to_goal,
    read_goal,
    write_goal,
)


def test_written_goal_follows_the_txt2bin_grammar():
    text = goal_text(program_to_goal(random_program(1)))
    accepted_by_txt2bin_grammar(text)
    assert not any(line[:1].isspace() for line in text.split("\n"))


def test_indented_text_is_rejected_by_the_grammar_check():
    with pytest.raises(AssertionError, match="line 4"):
        accepted_by_txt2bin_grammar("num_ranks 1\n\nrank 0 {\n  l0: calc 1\n}\n")


def test_read_labels_are_kept_and_written_back():
    text = "num_ranks 2\nrank 0 {\nfirst: send 8b to 1 tag 3 cpu 1\nwait: calc 5\nwait requires first\n}\n" \
           "rank 1 {\nr: recv 8b from -1 tag 3\n}\n"
    again = goal_text(parse_goal(text))
    accepted_by_txt2bin_grammar(again)
    assert "first: send 8b to 1 tag 3 cpu 1\nwait: calc 5\nwait requires first\n" in again
    assert "r: recv 8b from -1 tag 3\n" in again


def test_keyword_label_is_located():
    from perfcompose.errors import InputError

    with pytest.raises(InputError, match="GOAL keyword") as info:
        parse_goal("num_ranks 1\nrank 0 {\ncalc: calc 1\n}\n", "k.goal")
    assert info.value.line == 3


@pytest.mark.parametrize("head, goal", [
    ("num_ranks 4\nrank 0 {", True),
    ("// made by hand\n/* two\nlines */ num_ranks 2", True),
    ('{"P": 2, "steps": []}', False),
    ("[1, 2]", False),
])
def test_goal_detected_by_content(head, goal):
    assert looks_like_goal(head) is goal


LOGGOPSIM = Path(os.environ["LOGGOPSIM_DIR"]) if os.environ.get("LOGGOPSIM_DIR") else None


@pytest.mark.skipif(LOGGOPSIM is None, reason="LogGOPSim not built here (set LOGGOPSIM_DIR)")
@pytest.mark.parametrize("seed, P, M, max_bytes", [(1, 6, 40, 200_000), (2, 16, 200, 100), (3, 40, 2000, 70_000)])
def test_loggopsim_reads_the_written_file_and_agrees(tmp_path, seed, P, M, max_bytes):
    assert LOGGOPSIM is not None
    schedule = program_to_goal(random_program(seed, P, M, 2, max_bytes))
    write_goal(schedule, tmp_path / "p.goal")
    subprocess.run([str(LOGGOPSIM / "txt2bin"), "-i", str(tmp_path / "p.goal"), "-o", str(tmp_path / "p.bin")],
                   check=True, capture_output=True)
    out = subprocess.run([str(LOGGOPSIM / "LogGOPSim"), "-f", str(tmp_path / "p.bin"), "-L", "2500", "-o", "1500",
                          "-g", "1000", "-G", "6", "-b"], check=True, capture_output=True, text=True).stdout
    theirs = float(re.search(r"Maximum finishing time at host \d+: (\d+)", out).group(1))  # type: ignore[union-attr]
    assert simulate_goal(schedule, LogGP(2500, 1500, 1000, 6)).makespan == theirs


@pytest.mark.parametrize("text, line, needle", BAD_GOAL)
def test_errors_in_a_file_are_located_by_the_line_reader(write_file, text, line, needle):
    path = write_file("bad.goal", text)
    with pytest.raises(InputError) as info:
        read_goal(path)
    assert info.value.line == line and needle in str(info.value) and str(path) in str(info.value)


def test_lazy_items_are_read_once_and_only_when_first_asked_for() -> None:
    calls = []

    def read() -> tuple[int, ...]:
        calls.append(1)
        return (5, 6, 7)

    seq: LazySequence[int] = LazySequence(read, 3)
    assert len(seq) == 3 and calls == []
    assert seq[1] == 6 and list(seq[1:]) == [6, 7] and list(seq) == [5, 6, 7]
    assert calls == [1]
