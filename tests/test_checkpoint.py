"""The JSONL checkpoint store: every good line kept, a torn tail cut, a corrupt line reported, a lock."""
import pytest

from perfcompose.checkpoint import Checkpoint, read_records


def _busy() -> Exception:
    return RuntimeError("held by another process")


def test_records_come_back_in_order_after_reopening(tmp_path):
    path = tmp_path / "sub" / "c.jsonl"
    with Checkpoint.open(path, busy=_busy) as c:
        assert c.empty
        c.append({"k": 1})
        c.append({"k": 2})
    with Checkpoint.open(path, busy=_busy) as c:
        assert read_records(c) == ([{"k": 1}, {"k": 2}], [])


def test_a_corrupt_middle_line_is_skipped_and_named_and_the_good_lines_kept(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'{"k": 1}\n{"k": \n\n[1, 2]\n{"k": 3}\n')
    with Checkpoint.open(path, busy=_busy) as c:
        assert read_records(c) == ([{"k": 1}, {"k": 3}], [2, 4])


def test_a_torn_last_write_is_cut_off_once_everything_is_read(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'{"k": 1}\n{"k": 2')
    with Checkpoint.open(path, busy=_busy) as c:
        lines = c.lines()
        assert next(lines) == (1, {"k": 1})
        assert path.read_bytes().endswith(b'{"k": 2')  # a reader that stops early changes nothing
        assert list(lines) == []
    assert path.read_bytes() == b'{"k": 1}\n'


def test_a_second_holder_is_refused_while_the_first_has_it_open(tmp_path):
    path = tmp_path / "c.jsonl"
    with Checkpoint.open(path, busy=_busy):
        with pytest.raises(RuntimeError, match="held by another process"):
            Checkpoint.open(path, busy=_busy)
    with Checkpoint.open(path, busy=_busy) as again:
        assert again.empty


def test_restart_empties_the_checkpoint(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'{"k": 1}\n')
    with Checkpoint.open(path, busy=_busy, restart=True) as c:
        assert c.empty and read_records(c) == ([], [])
