"""Cost per statement: each statement's model against the time its line took in a run."""
from __future__ import annotations

import pytest

from perfcompose.pamela.dataparallel.machine_model import MachineParameters, machine_text
from perfcompose.pamela.dataparallel.modeling_engine import generate
from perfcompose.pamela.dataparallel.phases import phases

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
