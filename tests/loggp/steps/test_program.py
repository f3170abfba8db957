"""Section 2 of paper 002: programs of alternating computation and communication steps, read from
JSON; every malformed program is an InputError naming the file and the place."""
from __future__ import annotations

import json

import numpy as np
import pytest

from perfcompose.errors import InputError
from perfcompose.loggp import CommStep, Program, program_to_json, read_program

GOOD = {"P": 3, "steps": [{"kind": "comp", "durations": [1, 2, 3]},
                          {"kind": "comm", "messages": [[0, 1, 8], [2, 1, 4], [0, 2, 1]],
                           "send_order": [[2, 0], [], [1]]}]}


def test_reads_a_program(write_file):
    prog = read_program(write_file("p.json", json.dumps(GOOD)))
    assert prog.P == 3 and len(prog.steps) == 2
    comm = prog.steps[1]
    assert isinstance(comm, CommStep)
    assert comm.send_order(0) == (2, 0) and comm.send_order(2) == (1,)
    assert list(comm.nbytes) == [8, 4, 1]
    assert program_to_json(prog) == {**GOOD, "steps": [
        {"kind": "comp", "durations": [1.0, 2.0, 3.0]}, GOOD["steps"][1]]}


def test_default_send_order_is_id_order():
    step = CommStep.from_messages(2, [[0, 1, 1], [1, 0, 1], [0, 1, 2]])
    assert step.send_order(0) == (0, 2) and step.send_order(1) == (1,)


def _err(write_file, text: str) -> InputError:
    path = write_file("bad.json", text)
    with pytest.raises(InputError) as info:
        read_program(path)
    assert str(path) in str(info.value)
    return info.value


def test_malformed_json_points_at_the_character(write_file):
    e = _err(write_file, '{"P": 2,\n "steps": [}\n')
    assert e.line == 2 and e.column == 12 and "not valid JSON" in str(e)


def test_message_id_out_of_range_is_located(write_file):
    text = ('{"P": 2, "steps": [\n'
            '  {"kind": "comm", "messages": [[0, 1, 8]],\n'
            '   "send_order": [[0, 5], []]}\n'
            ']}\n')
    e = _err(write_file, text)
    assert (e.line, e.column) == (3, 23)
    assert "message id 5 is out of range" in str(e) and "hint" in str(e)


def test_send_order_missing_a_message(write_file):
    text = json.dumps({"P": 2, "steps": [{"kind": "comm", "messages": [[0, 1, 8], [0, 1, 8]],
                                           "send_order": [[0], []]}]})
    e = _err(write_file, text)
    assert "message 1 (from processor 0) is missing from the send order" in str(e)
    assert "add 1 to send_order[0]" in str(e)


def test_send_order_repeating_a_message(write_file):
    text = json.dumps({"P": 2, "steps": [{"kind": "comm", "messages": [[0, 1, 8], [0, 1, 8]],
                                           "send_order": [[0, 1, 0], []]}]}, indent=1)
    e = _err(write_file, text)
    assert "appears twice" in str(e)
    assert text.splitlines()[e.line - 1].strip().startswith("0")  # the caret's line holds the repeat


def test_send_order_listing_another_processors_message(write_file):
    text = json.dumps({"P": 2, "steps": [{"kind": "comm", "messages": [[0, 1, 8]],
                                           "send_order": [[], [0]]}]})
    assert "sent by processor 0, not 1" in str(_err(write_file, text))


@pytest.mark.parametrize("step, needle", [
    ({"kind": "comm", "messages": [[0, 1, -3]]}, "bytes = -3.0 must be a finite non-negative"),
    ({"kind": "comm", "messages": [[0, 2, 3]]}, "dst 2 is not a processor"),
    ({"kind": "comm", "messages": [[1, 1, 3]]}, "sends to itself"),
    ({"kind": "comm", "messages": [[0, 1]]}, "must be [src, dst, bytes]"),
    ({"kind": "comm", "messages": [[0, "a", 1]]}, "dst must be a number"),
    ({"kind": "comm", "messages": [[0, 1, 8], [10 ** 400, 1, 8]]}, "message 1: src is too large"),
    ({"kind": "comm", "messages": [[0, 1, 8], [1e300, 1, 8]]}, "message 1: src 1e+300 is not a processor"),
    ({"kind": "comm", "messages": [[0, 1.5, 8]]}, "message 0: dst 1.5 is not a processor"),
    ({"kind": "comp", "durations": [1, -2]}, "processor 1 is -2"),
    ({"kind": "comp", "durations": [1]}, "list of 2 numbers"),
    ({"kind": "wait"}, "kind must be 'comp' or 'comm'"),
    ({"kind": "comm"}, "needs messages"),
    ({"kind": "comp", "durations": [1, 2], "extra": 1}, "unknown key 'extra'"),
])
def test_bad_steps(write_file, step, needle):
    e = _err(write_file, json.dumps({"P": 2, "steps": [step]}))
    assert needle in str(e)
    assert e.line == 1 and e.column is not None


@pytest.mark.parametrize("doc, needle", [
    ('[1, 2]', "a program is a JSON object"),
    ('{"steps": []}', "missing P"),
    ('{"P": 0, "steps": []}', "P must be a positive integer"),
    ('{"P": 2}', "steps must be a list"),
    ('{"P": 2, "steps": [], "unit": "fortnight"}', "unknown time unit"),
])
def test_bad_programs(write_file, doc, needle):
    assert needle in str(_err(write_file, doc))


def test_missing_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="cannot read"):
        read_program(tmp_path / "none.json")


def test_program_checks_processor_counts():
    with pytest.raises(InputError, match="step 0 is for 3 processors"):
        Program(2, (CommStep.from_messages(3, [[0, 1, 1]]),))


def test_from_arrays_checks_its_order():
    with pytest.raises(InputError, match="exactly once"):
        CommStep.from_arrays(2, np.array([0, 0]), np.array([1, 1]), np.array([1, 1]), np.array([0, 0]))
