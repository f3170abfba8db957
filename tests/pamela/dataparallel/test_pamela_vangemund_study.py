"""``perfcompose paper vangemund``: every configuration measured for real and predicted by its
generated model; the table marks the predicted best against the measured best. Cost per statement:
each statement's model against the time its line took in a run."""
from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.commands.pamela import vangemund as pamela_vangemund
from perfcompose.pamela.dataparallel.machine_model import MachineParameters, machine_text
from perfcompose.pamela.dataparallel.modeling_engine import generate
from perfcompose.pamela.dataparallel.vangemund import (
    STUDIES,
    Case,
    StudyResult,
    VanGemundRow,
    phases,
    run_vangemund_study,
)

MACHINE = MachineParameters(t_call=4e-7, t_index=1.5e-7, t_ew=5e-10, t_ews=5e-9, t_ewm=7e-10, t_ewc=6e-10, t_copy=5e-10,
                            t_mxv=2e-10, t_mxm=1e-10, t_sort=5e-9, t_merge=5e-9, t_msg=2e-5, t_word=3e-9,
                            t_smsg=1e-5, t_sword=3e-9)


def test_one_study_runs_for_real_at_a_tiny_size(tmp_path):
    machine = tmp_path / "given.pam"
    machine.write_text(machine_text(MACHINE))
    result = run_vangemund_study(tmp_path / "out", quick=True, studies=(STUDIES[0],), machine=machine)
    assert [(r.N, r.P) for r in result.rows] == [(64, 1), (64, 1), (64, 2), (64, 2)]
    assert all(r.measured > 0 and r.predicted > 0 for r in result.rows)
    assert (tmp_path / "out" / "matmul_bcast.pam").read_text().startswith("% generated from matmul_bcast.py")
    assert len(result.cases) == 2 and all(c.distinct for c in result.cases)
    # the gathered product is one BLAS call; the model must rank it first at this size as well
    assert all(c.predicted_best.startswith("B gathered") for c in result.cases)


def test_the_table_marks_agreement_and_disagreement(monkeypatch, tmp_path):
    rows = (VanGemundRow("GAUSS", "block", 8, 2, 2.0, 1.0, 0.1, 0, 1.0),
            VanGemundRow("GAUSS", "cyclic", 8, 2, 1.0, 2.0, 0.1, 0, 1.0),
            VanGemundRow("ADI", "i axis (rows)", 8, 1, 1.0, 1.1, 0.1, 0, 1.0),
            VanGemundRow("ADI", "j axis (columns)", 8, 1, 1.0, 1.0, 0.1, 0, 1.0))
    cases = (Case("GAUSS", 8, 2, "cyclic", "block", True),
             Case("ADI", 8, 1, "i axis (rows)", "j axis (columns)", False))
    study = StudyResult(rows, cases, Path("m.pam"), 0.1)
    monkeypatch.setattr(pamela_vangemund, "run_vangemund_study", lambda *a, **k: study)
    from perfcompose.commands.common import console

    monkeypatch.setattr(console, "_width", 250)  # the console read COLUMNS when it was made
    r = CliRunner().invoke(app, ["paper", "vangemund", "--out", str(tmp_path)], env={"COLUMNS": "250"})
    assert r.exit_code == 0, r.output
    assert "no (measured: block)" in r.output and "same program at this P" in r.output
    assert "average |error| 39.8 %" in r.output and "in 0 of 1 cases" in r.output


PROGRAM = '''
import numpy as np
from perfcompose.pamela.dataparallel import block


def program(dp, N):
    X = dp.array((N,), block(0))
    for i in range(50):
        Y = X * X
    Z = np.sort(X)
'''


def test_every_statement_is_predicted_and_timed(tmp_path):
    (tmp_path / "prog.py").write_text(PROGRAM)
    machine = MachineParameters(t_call=1e-6, t_index=1e-7, t_ew=1e-9, t_ews=1e-9, t_ewm=1e-9, t_ewc=1e-9,
                                t_copy=1e-9, t_mxv=1e-9, t_mxm=1e-9, t_sort=1e-8, t_merge=1e-8, t_msg=1e-5,
                                t_word=1e-9, t_smsg=1e-5, t_sword=1e-9)
    (tmp_path / "machine.pam").write_text(machine_text(machine))
    found = phases(tmp_path / "prog.py", {"N": 4096}, 1, tmp_path / "machine.pam", clock="cpu")
    modelled = {ph.source: ph for ph in found if ph.modelled}
    assert set(modelled) == {"Y = X * X", "Z = np.sort(X)"}
    assert modelled["Y = X * X"].predicted == pytest.approx(50 * (1e-6 + 4096 * 1e-9))
    assert all(ph.measured > 0 for ph in modelled.values())
    assert any(ph.source.startswith("for i in range") for ph in found if not ph.modelled)
    assert not any("dp.array" in ph.source for ph in found)
    assert [s[2] for s in generate(tmp_path / "prog.py").statements] == ["Y = X * X", "Z = np.sort(X)"]
