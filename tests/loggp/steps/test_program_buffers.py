"""Programs read into the step kernels' typed buffers without NumPy: the arrays of
loggopsim_steps.step_arrays on what the NumPy readers read, and None (the NumPy readers then
read and judge the file) for what they leave to them."""
from __future__ import annotations

import json

import numpy as np
import pytest
from random_programs import random_program

from perfcompose.loggp.kernels.backend import extension
from perfcompose.loggp.steps import program_buffers
from perfcompose.loggp.steps.loggopsim_steps import step_arrays
from perfcompose.loggp.steps.npzfile import read_program_npz, write_program_npz
from perfcompose.loggp.steps.program import program_to_json, read_program
from perfcompose.loggp.steps.program_buffers import read_json_buffers, read_npz_buffers

NAMES = ("kinds", "msg_ptr", "src", "dst", "nbytes", "order", "durations")
PROGRAMS = [random_program(4, P=7, M=50), random_program(5, P=300, M=2000, steps=2)]


def _assert_arrays(got, program):
    assert got is not None and got.P == program.P and got.unit == program.unit
    for name, want in zip(NAMES, step_arrays(program)):
        assert np.array_equal(np.asarray(getattr(got, name)), want), name
    comp = np.zeros(program.P)
    for s in program.steps:
        if not hasattr(s, "src"):
            comp += s.durations
    assert got.computation() == comp.tolist()
    ops = np.zeros(program.P, np.int64)
    for s in program.steps:
        if hasattr(s, "src"):
            np.add.at(ops, s.src, 1)
            np.add.at(ops, s.dst, 1)
        else:
            ops += np.asarray(s.durations) > 0
    assert got.operations() == ops.tolist()


@pytest.fixture(params=["compiled rows", "rows in Python"])
def splitter(request, monkeypatch):
    """The message rows split by the compiled _cmessage_rows, and without it."""
    if request.param == "compiled rows":
        if extension("_cmessage_rows") is None:
            pytest.skip("_cmessage_rows is not built")
    else:
        monkeypatch.setattr(program_buffers, "extension",
                            lambda name: None if name == "_cmessage_rows" else extension(name))
    return request.param


@pytest.mark.parametrize("program", PROGRAMS)
def test_npz_reads_the_arrays_of_the_numpy_reader(tmp_path, program, splitter):
    path = tmp_path / "p.npz"
    write_program_npz(program, path)
    _assert_arrays(read_npz_buffers(path), read_program_npz(path))


@pytest.mark.skipif(extension("_cjson_tokens") is None, reason="the JSON tokenizer is not built")
@pytest.mark.parametrize("program", PROGRAMS)
def test_json_reads_the_arrays_of_the_numpy_reader(tmp_path, program, splitter):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(program_to_json(program)))
    _assert_arrays(read_json_buffers(path), read_program(path))


@pytest.mark.skipif(extension("_cjson_tokens") is None, reason="the JSON tokenizer is not built")
@pytest.mark.parametrize("doc", [
    {"P": 2, "steps": [{"kind": "comm", "messages": [[0, 1, "8*x"]]}]},                  # an expression
    {"P": 2, "steps": [{"kind": "comm", "messages": [[0, 1, 8]], "send_order": [[0]]}]},  # a list short
    {"P": 2, "steps": [{"kind": "comm", "messages": [[0, 2, 8]]}]},                      # no processor 2
    {"P": 2, "steps": [{"kind": "comm", "messages": [[1, 1, 8]]}]},                      # to itself
    {"P": 2, "steps": [{"kind": "comm", "messages": [[0.5, 1, 8]]}]},                    # half a processor
    {"P": 2, "steps": [{"kind": "comm", "messages": [[0, 1, -8]]}]},                     # negative bytes
    {"P": 2, "steps": [{"kind": "comp", "durations": [1]}]},                             # one duration short
    {"P": 2, "steps": [{"kind": "comp", "durations": [1, 2], "note": 1}]},               # an unknown key
    {"P": 2, "unit": "fortnights", "steps": []},                                         # an unknown unit
    {"P": True, "steps": []},                                                            # P is no number
])
def test_json_leaves_the_rest_to_the_numpy_reader(tmp_path, doc, splitter):
    path = tmp_path / "p.json"
    path.write_text(json.dumps(doc))
    assert read_json_buffers(path) is None


def test_npz_leaves_the_rest_to_the_numpy_reader(tmp_path):
    path = tmp_path / "p.npz"
    write_program_npz(random_program(6, P=4, M=10, steps=1), path)
    with np.load(path) as z:
        arrays = dict(z)
    for name, bad in (("dst_0", np.full(10, 9)), ("nbytes_0", np.full(10, np.inf)), ("format", np.array("other")),
                      ("durations_1", -np.ones(4)), ("kinds", np.array([1, 2], np.int8))):
        np.savez(path, **{**arrays, name: bad})
        got = read_npz_buffers(path)
        # a processor out of range is the kernel's to find: the arrays are read as they are
        assert (got is not None) == (name == "dst_0"), name
    path.write_bytes(b"PK\x03\x04 not an archive")
    assert read_npz_buffers(path) is None
