"""The latency study: the executor's stamps against the operators, one small round."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.validate.latency import study, workers


def test_workers_of_the_reference_programs():
    assert workers("pipe(inc, tpool_2(qsort))") == 3 and workers("seq(inc, qsort)") == 1


def test_study_predicts_from_parts_measured_in_the_same_round():
    rows = study(("seq(inc, qsort)", "pipe(inc, qsort)"), xs=(2048.0,), rounds=1, count=8, cores=2)
    assert [r.configuration for r in rows] == ["seq(inc, qsort)", "pipe(inc, qsort)"]
    seq, pipe = rows
    # a seq runs in one worker: saturated and alone are the same operator
    assert seq.saturated == seq.alone
    # qsort is the slower stage: the saturated pipe waits behind the queue, 4 of qsort's times
    assert pipe.saturated[0] > pipe.alone[0] and pipe.inside[1] == pytest.approx(4.0)
    assert all(v > 0 for v in (*pipe.measured, *pipe.period))


def test_programs_beyond_the_cores_are_left_out():
    assert study(("pipe(inc, tpool_4(qsort))",), xs=(1024.0,), rounds=1, count=4, cores=2) == []


def test_paper_latency_command_writes_records(tmp_path):
    out = tmp_path / "lat.json"
    r = CliRunner().invoke(app, ["paper", "latency", "--quick", "--config", "tpool_2(qsort)", "--json", str(out)])
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    assert {d["x"] for d in doc} == {4096.0, 16384.0} and all("error" in d for d in doc)
