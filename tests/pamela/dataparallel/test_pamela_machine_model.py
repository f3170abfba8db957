"""The machine model: compute costs measured with 1, 2, ... workers at once, taken at the model's P."""
from __future__ import annotations

import dataclasses

import pytest

from perfcompose.pamela import compile_file
from perfcompose.pamela.dataparallel.machine_model import MachineParameters, contended, machine_text

ONE = MachineParameters(t_call=0, t_index=0, t_ew=1, t_ews=0, t_ewm=0, t_ewc=0, t_copy=0, t_mxv=0, t_mxm=0,
                        t_sort=0, t_merge=0, t_msg=7, t_word=0, t_smsg=7, t_sword=0)


def _t_ew(tmp_path, levels, P: int) -> float:
    (tmp_path / "machine.pam").write_text(machine_text(levels))
    (tmp_path / "m.pam").write_text('include "machine.pam"\nprocess main = par (p = 0, P - 1) ew(p, 1)\n')
    return compile_file(tmp_path / "m.pam").evaluate({"P": P}).T


@pytest.mark.parametrize(("P", "expected"), [(1, 1.0), (2, 1.5), (3, 1.5), (8, 1.5)])
def test_a_cost_measured_with_two_workers_at_once_holds_from_two_processors_on(tmp_path, P, expected):
    levels = {1: ONE, 2: dataclasses.replace(ONE, t_ew=1.5)}
    assert _t_ew(tmp_path, levels, P) == pytest.approx(expected)


def test_between_measured_worker_counts_the_cost_is_interpolated(tmp_path):
    levels = {1: ONE, 2: dataclasses.replace(ONE, t_ew=2.0), 4: dataclasses.replace(ONE, t_ew=4.0)}
    assert [_t_ew(tmp_path, levels, P) for P in (1, 2, 3, 4, 6)] == pytest.approx([1, 2, 3, 4, 4])


def test_costs_the_same_for_every_worker_count_are_written_once():
    text = machine_text({1: ONE, 2: dataclasses.replace(ONE, t_ew=2.0)})
    assert "numeric t_msg = 7" in text and "t_msg_2" not in text
    assert "numeric t_ew_1 = 1" in text and "numeric t_ew_2 = 2" in text
    assert contended("t_x", [1]) == "t_x_1"
