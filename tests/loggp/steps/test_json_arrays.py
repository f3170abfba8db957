"""Program JSON read with its number arrays tokenized in C: the same values as json.loads,
arrays that are not plain numbers left to json, and errors inside the arrays located."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

from perfcompose.errors import InputError
from perfcompose.loggp import CommStep, LogGP, Program, program_to_json, read_program, read_template
from perfcompose.loggp.kernels.backend import extension
from perfcompose.loggp.steps.execute import simulate_program
from perfcompose.loggp.steps.json_arrays import (
    JsonLists,
    JsonNumbers,
    load_json_arrays,
    plain,
)
from perfcompose.loggp.steps.program import parse_program


def _random_program(seed: int, P: int = 7, M: int = 60) -> Program:
    rng = np.random.default_rng(seed)
    src = rng.integers(0, P, M)
    dst = (src + rng.integers(1, P, M)) % P
    order = rng.permutation(M)
    comm = CommStep.from_arrays(P, src, dst, rng.integers(0, 70000, M).astype(float), order)
    from perfcompose.loggp.steps.program import CompStep

    return Program(P, (CompStep.of(rng.random(P) * 100), comm, CompStep.of(rng.integers(0, 9, P))))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("indent", [None, 1])
def test_reads_the_same_program_as_json_loads(write_file, seed, indent):
    text = json.dumps(program_to_json(_random_program(seed)), indent=indent)
    old = parse_program(json.loads(text))
    new = read_program(write_file("p.json", text))
    assert len(old.steps) == len(new.steps)
    for a, b in zip(old.steps, new.steps):
        for name in ("durations", "src", "dst", "nbytes", "order", "send_ptr"):
            if hasattr(a, name):
                assert np.array_equal(getattr(a, name), getattr(b, name)), name
    params = LogGP(9, 2, 5, 0.01)
    for semantics in ("paper", "loggopsim"):
        assert (simulate_program(old, params, semantics=semantics, timelines=False).makespan
                == simulate_program(new, params, semantics=semantics, timelines=False).makespan)


def test_number_arrays_become_arrays_and_read_back():
    text = ('{"P": 2, "steps": [{"kind": "comp", "durations": [1.5, 2e3]}, {"kind": "comm", '
            '"messages": [[0, 1, 8], [1, 0, -0.25E1]], "send_order": [[0], [1]]}, '
            '{"kind": "comm", "messages": [], "send_order": [[], []]}]}')
    doc = load_json_arrays(text.encode())
    assert plain(doc) == json.loads(text)
    if extension("_cjson_tokens") is None:  # json reads the arrays
        assert doc == json.loads(text)
        return
    steps = doc["steps"]
    assert isinstance(steps[0]["durations"], JsonNumbers) and list(steps[0]["durations"].values) == [1.5, 2000.0]
    assert isinstance(steps[1]["messages"], JsonNumbers)
    assert steps[1]["messages"].values.tolist() == [[0, 1, 8], [1, 0, -2.5]]
    assert isinstance(steps[1]["send_order"], JsonLists) and steps[1]["send_order"].counts.tolist() == [1, 1]
    assert steps[2]["messages"].values.shape == (0, 3)


@pytest.mark.parametrize("messages", ['[[0, 1, "8*x"]]', '[[0, 1]]', '[[0, 1, 8], [1, 0, null]]',
                                      '[[0, 1, 1e400]]', '[[0, 1, true]]'])
def test_arrays_that_are_not_plain_numbers_are_left_to_json(messages):
    text = f'{{"P": 2, "steps": [{{"kind": "comm", "messages": {messages}}}]}}'
    doc = load_json_arrays(text.encode())
    assert doc == json.loads(text)
    assert isinstance(doc["steps"][0]["messages"], list)


def test_a_template_with_expressions_reads_as_before(write_file):
    doc = {"P": 2, "steps": [{"kind": "comp", "durations": [1, "2*x"]},
                             {"kind": "comm", "messages": [[0, 1, "8*x"], [1, 0, 4]]}]}
    template = read_template(write_file("t.json", json.dumps(doc)))
    assert template.parameters == ("x",)
    prog = template.instantiate({"x": 3})
    assert prog.steps[0].durations.tolist() == [1, 6] and prog.steps[1].nbytes.tolist() == [24, 4]
    assert plain(template.doc) == doc


def test_the_template_keeps_its_own_copy_of_the_document():
    from perfcompose.loggp.steps.template import ProgramTemplate

    doc = {"P": 2, "steps": [{"kind": "comm", "messages": [[0, 1, 8]], "send_order": [[0], []]}]}
    template = ProgramTemplate.from_doc(doc)
    doc["steps"][0]["messages"][0][2] = 99
    doc["steps"].append({"kind": "comp", "durations": [1, 1]})
    assert plain(template.doc) == {"P": 2, "steps": [{"kind": "comm", "messages": [[0, 1, 8]],
                                                      "send_order": [[0], []]}]}


def _error(write_file, text: str) -> InputError:
    with pytest.raises(InputError) as info:
        read_program(write_file("bad.json", text))
    return info.value


def test_a_bad_processor_deep_in_the_messages_is_located(write_file):
    rows = ",\n".join(f"  [{i % 3}, {(i + 1) % 3}, {i}]" for i in range(500))
    rows = rows.replace("[1, 2, 400]", "[1, 7, 400]")
    text = '{"P": 3, "steps": [{"kind": "comm", "messages": [\n' + rows + "\n]}]}\n"
    e = _error(write_file, text)
    assert e.line == 402 and e.column == 7
    assert "message 400: dst 7 is not a processor (P = 3)" in str(e) and "numbered 0 to 2" in str(e)


def test_a_wrong_sender_in_the_send_order_is_located(write_file):
    text = ('{"P": 3, "steps": [{"kind": "comm", "messages": [[0, 1, 8], [2, 1, 8], [0, 2, 1]],\n'
            '  "send_order": [[2, 0], [],\n   [1, 1]]}]}')
    e = _error(write_file, text)
    assert "message 1 appears twice" in str(e)
    assert (e.line, e.column) == (3, 8)
    text = text.replace("[1, 1]]", "[1]]").replace("[2, 0]", "[2, 1]")
    e = _error(write_file, text)
    assert "message 1 is sent by processor 2, not 0" in str(e) and (e.line, e.column) == (2, 22)
    assert "list it in send_order[2]" in str(e)


def test_a_negative_duration_is_located(write_file):
    e = _error(write_file, '{"P": 3, "steps": [{"kind": "comp",\n "durations": [1, 2.5, -3e0]}]}')
    assert (e.line, e.column) == (2, 24) and "duration of processor 2 is -3" in str(e)


def test_invalid_json_is_located_in_the_file_not_the_skeleton(write_file):
    rows = ", ".join(["[0, 1, 8]"] * 200)
    e = _error(write_file, '{"P": 2, "steps": [{"kind": "comm", "messages": [' + rows + ']}\n, ]}')
    assert "not valid JSON" in str(e) and e.line == 2


def test_a_number_json_does_not_take_is_not_read(write_file):
    e = _error(write_file, '{"P": 2, "steps": [{"kind": "comm", "messages": [[0, 1, +8]]}]}')
    assert "not valid JSON" in str(e) and e.column == 57


ARRAYS = ["[[0, 1, 1024], [2, 3, 5]]", "[]", "[[], [1, 2], [3]]", "[-5, 1.5, 2e3, 1E-2, 1.0e+5, 0.25]",
          "[007, 12345678901234567, 1.]", "[+1]", "[.5]", "[1e400]", "[1-2]", "[1e]", '[1, "x"]', "[null]",
          "[[1, 2], [3, 4]", "[ 1 ,\n2\t,\r3 ]"]


@pytest.mark.skipif(extension("_cjson_tokens") is None, reason="the extension _cjson_tokens is not built")
def test_the_compiled_tokenizer_reads_the_tokens_as_written():
    """Where it reads an array, its tokens and numbers are those of the text (as float() reads
    each); texts that JSON or a double does not take are left to json."""
    tokenize = extension("_cjson_tokens").tokenize  # type: ignore[union-attr]
    assert all(tokenize(t.encode(), 0) is None for t in ARRAYS[5:13])
    kinds = {"[": 2, "]": 3, ",": 4}
    rng = np.random.default_rng(0)
    texts = list(ARRAYS)
    for _ in range(300):  # changed texts: a byte replaced, dropped or added
        chars = list(str(rng.choice(ARRAYS[:5])))
        i = int(rng.integers(0, len(chars)))
        how, c = int(rng.integers(0, 3)), str(rng.choice(list("0123456789-+.eE[], x")))
        if how == 0:
            chars[i] = c
        elif how == 1:
            del chars[i]
        else:
            chars.insert(i, c)
        texts.append("".join(chars))
    read = 0
    for text in texts:
        data = ('{"a": ' + text + "}").encode()
        if b"[" not in data:
            continue
        at = data.index(b"[")
        got = tokenize(data, at)
        if got is None:
            continue
        read += 1
        tokens = re.findall(r"[-+.0-9eE]+|[\[\],]", data[at:got[2]].decode())
        assert list(got[0]) == [kinds.get(t, 1) for t in tokens], text
        assert np.frombuffer(got[1]).tolist() == [float(t) for t in tokens if t not in kinds], text
        assert data[got[2] - 1:got[2]] == b"]" and text.count("[") >= 1
    assert read > 50
