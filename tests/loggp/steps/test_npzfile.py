"""The compact .npz form of LogGP programs: it round-trips, the command line reads it like JSON,
and a damaged archive is a located error."""
from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.errors import InputError
from perfcompose.loggp import CommStep, CompStep, LogGP, Program, simulate_program
from perfcompose.loggp.steps.npzfile import read_program_npz, write_program_npz

PROG = Program(3, (CompStep.of([1, 2, 0]), CommStep.from_messages(3, [[0, 1, 10], [1, 2, 10], [0, 2, 5]],
                                                                  [[2, 0], [1], []])), unit="us")
PARAMS = ["--L", "10", "--o", "2", "--g", "5", "--G", "1"]


def test_round_trip_keeps_steps_and_send_order(tmp_path):
    write_program_npz(PROG, tmp_path / "p.npz")
    again = read_program_npz(tmp_path / "p.npz")
    assert again.P == 3 and again.unit == "us" and len(again.steps) == 2
    assert again.steps[1].send_order(0) == (2, 0)
    p = LogGP(10, 2, 5, 1)
    assert simulate_program(again, p).finish.tolist() == simulate_program(PROG, p).finish.tolist()


def test_bad_archive_names_file_and_array(tmp_path):
    arrays = {"format": np.array("perfcompose-loggp-program/1"), "P": np.array(2), "kinds": np.array([1], np.int8),
              "src_0": np.array([0]), "dst_0": np.array([5]), "nbytes_0": np.array([1.0]), "order_0": np.array([0])}
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(InputError, match="step 0: message 0: dst 5 is not a processor") as info:
        read_program_npz(tmp_path / "bad.npz")
    assert "bad.npz" in str(info.value)
    del arrays["order_0"]
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(InputError, match="no array 'order_0'"):
        read_program_npz(tmp_path / "bad.npz")
    (tmp_path / "trunc.npz").write_bytes((tmp_path / "bad.npz").read_bytes()[:40])
    with pytest.raises(InputError, match="not a LogGP program archive"):
        read_program_npz(tmp_path / "trunc.npz")


def test_cli_convert_then_simulate(tmp_path):
    runner = CliRunner(env={"COLUMNS": "200"})
    src = tmp_path / "p.json"
    src.write_text(json.dumps({"P": 2, "steps": [{"kind": "comm", "messages": [[0, 1, 1]]}]}))
    res = runner.invoke(app, ["loggp", "convert", str(src), str(tmp_path / "p.npz")])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["loggp", "simulate", str(tmp_path / "p.npz"), *PARAMS, "--json", "-"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["finish"] == [2, 14]
    res = runner.invoke(app, ["loggp", "convert", str(src), str(tmp_path / "p.txt")])
    assert res.exit_code == 2 and "suffix" in res.stderr


def test_large_program_table_lists_the_latest_processors(tmp_path):
    P = 100
    rng = np.random.default_rng(0)
    src = rng.integers(0, P, 500)
    step = CommStep.from_arrays(P, src, (src + 1) % P, np.ones(500))
    write_program_npz(Program(P, (step,)), tmp_path / "big.npz")
    res = CliRunner(env={"COLUMNS": "200"}).invoke(app, ["loggp", "simulate", str(tmp_path / "big.npz"), *PARAMS])
    assert res.exit_code == 0, res.output
    assert "the 40 of 100 processors that finish last" in res.stdout


def _arrays_of(path):
    with np.load(path) as archive:
        return {name: archive[name] for name in archive.files}


def test_a_compressed_archive_reads_as_the_stored_one(tmp_path):
    write_program_npz(PROG, tmp_path / "p.npz")
    np.savez_compressed(tmp_path / "z.npz", **_arrays_of(tmp_path / "p.npz"))
    a, b = read_program_npz(tmp_path / "p.npz"), read_program_npz(tmp_path / "z.npz")
    assert a.unit == b.unit == "us" and a.steps[0].durations.tolist() == b.steps[0].durations.tolist()
    assert a.steps[1].order.tolist() == b.steps[1].order.tolist() and a.steps[1].nbytes.tolist() == [10, 10, 5]


def test_a_changed_byte_in_an_array_is_a_located_error(tmp_path):
    write_program_npz(PROG, tmp_path / "p.npz")
    data = bytearray((tmp_path / "p.npz").read_bytes())
    at = data.index(b"\x00\x00\x00\x00\x00\x00$@")  # 10.0, the first message's size in nbytes_1
    data[at + 7] ^= 0x01
    (tmp_path / "p.npz").write_bytes(bytes(data))
    with pytest.raises(InputError, match="array 'nbytes_1' cannot be read: bad CRC-32") as info:
        read_program_npz(tmp_path / "p.npz")
    assert "p.npz" in str(info.value)
