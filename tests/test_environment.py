"""Environment variables set for a block and put back after it, and only those."""
import os

from perfcompose.environment import environment


def test_a_block_sets_and_unsets_and_only_its_variables_are_put_back(monkeypatch):
    monkeypatch.setenv("PC_SET", "before")
    monkeypatch.setenv("PC_UNSET", "there")
    monkeypatch.delenv("PC_KEPT", raising=False)
    monkeypatch.delenv("PC_OTHER", raising=False)
    with environment({"PC_SET": "during", "PC_UNSET": None}, keep=["PC_KEPT"]):
        assert os.environ["PC_SET"] == "during" and "PC_UNSET" not in os.environ
        os.environ["PC_KEPT"] = "set by a worker's start"
        os.environ["PC_OTHER"] = "set by someone else"
    assert os.environ["PC_SET"] == "before" and os.environ["PC_UNSET"] == "there"
    assert "PC_KEPT" not in os.environ and os.environ["PC_OTHER"] == "set by someone else"
