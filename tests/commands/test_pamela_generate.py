"""``pamela generate --machine`` names a file the model's include can hold: a quote, a newline or
a folder would write a model no reader takes."""
from __future__ import annotations

from pathlib import Path

import pytest
from run_cli import perfcompose

CASE = Path(__file__).resolve().parents[2] / "src" / "perfcompose" / "pamela" / "dataparallel" / "cases" / \
    "matmul_bcast.py"


@pytest.mark.parametrize("machine", ['a"b', "", " ", "x\ny", "/", "sub/"])
def test_a_machine_name_the_include_cannot_hold_is_refused(machine, tmp_path):
    result = perfcompose("pamela", "generate", str(CASE), "-o", str(tmp_path / "m.pam"), "--machine", machine)
    assert result.returncode == 2 and "--machine" in result.stderr
    assert not (tmp_path / "m.pam").exists()


def test_the_written_model_reads_back(tmp_path):
    assert perfcompose("pamela", "generate", str(CASE), "-o", str(tmp_path / "m.pam"), "--machine",
                       "é.pam").returncode == 0
    assert 'include "é.pam"' in (tmp_path / "m.pam").read_text()
