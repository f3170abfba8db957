"""Trace files read back: every rank of the run there, each from MPI_Init to MPI_Finalize; a
missing rank, a cut file or a rank that stopped early is an error naming the rank (exit 2 from
the command line, never a hang)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hand_traces import rank_trace, write_trace

from perfcompose.errors import InputError
from perfcompose.loggp.trace.records import call_names, read_traces

TRACES = [rank_trace(r, 3, [("barrier", 2, 3), ("finalize", 5, 6)]) for r in range(3)]


def test_traces_are_read_back_in_rank_order(tmp_path):
    for t in reversed(TRACES):
        write_trace(tmp_path, t)
    got = read_traces(tmp_path)
    assert [t.rank for t in got] == [0, 1, 2]
    assert [call_names()[c] for c in got[1].records["call"]] == ["init", "barrier", "finalize"]
    assert got[2].comms == {0: (0, 1, 2)}


def test_a_missing_rank_is_named(tmp_path):
    write_trace(tmp_path, TRACES[0])
    write_trace(tmp_path, TRACES[2])
    with pytest.raises(InputError, match=r"rank 1's trace is missing \(trace.1.bin\): 2 of the run's 3 ranks"):
        read_traces(tmp_path)


def test_a_cut_trace_names_the_rank_and_its_last_whole_call(tmp_path):
    for t in TRACES:
        write_trace(tmp_path, t, cut=5 if t.rank == 2 else 0)
    with pytest.raises(InputError, match=r"rank 2's trace is cut off after rank 2, call 1 \(MPI_Barrier"):
        read_traces(tmp_path)


def test_a_rank_that_stopped_before_finalize_is_named(tmp_path):
    for t in TRACES:
        write_trace(tmp_path, t, cut=48 if t.rank == 1 else 0)
    with pytest.raises(InputError, match=r"rank 1's trace ends at rank 1, call 1 \(MPI_Barrier, 0 B\), before "
                                         "MPI_Finalize"):
        read_traces(tmp_path)


def test_check_of_a_mismatched_run_exits_2_with_the_call(tmp_path):
    write_trace(tmp_path, rank_trace(0, 2, [("send", 2, 3, 1, 9, 4), ("finalize", 5, 6)]))
    write_trace(tmp_path, rank_trace(1, 2, [("finalize", 5, 6)]))
    res = subprocess.run([sys.executable, "-m", "perfcompose", "loggp", "check", str(tmp_path), "--L", "1", "--o",
                          "1", "--g", "1", "--G", "0"], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "COLUMNS": "1000"})
    assert res.returncode == 2, res.stderr
    assert "rank 0, call 1 (MPI_Send, peer 1, tag 9, 4 B): rank 1 never receives it" in res.stderr
    assert "Traceback" not in res.stderr
