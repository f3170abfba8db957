"""000 Tables 3 and 5 on Dask: the composed Table 3 column, the grouping, checkpoints that resume."""
from __future__ import annotations

import pytest
from run_cli import perfcompose

from perfcompose.errors import PerfcomposeError
from perfcompose.validate import mapreduce as mr


def test_table3_modular_column_is_recomposed_from_the_papers_table1():
    for row in mr.table3(None):
        assert row.composed == pytest.approx(row.paper_modular, rel=2e-3)
        assert row.measured is None


def test_grid_keeps_what_fits_the_cores_and_lists_the_rest():
    kept, skipped = mr.cluster_grid(2)
    assert kept == [(1, 1), (1, 2), (2, 1)]
    assert len(skipped) == 18 - 3 and all("cores" in why for *_, why in skipped)
    with pytest.raises(PerfcomposeError, match="cores"):
        mr.check_cluster(2, 4, cores=2)


def _row(picture, strategy, m, n, measured, calibrated):
    return mr.MapReduceRow(picture, strategy, m, n, 8, 1, measured, measured / 2, calibrated, {}, 3)


def test_summary_groups_as_table5():
    rows = [_row("large", "pairwise", 1, 1, 1.0, 1.1), _row("large", "shuffle", 2, 1, 1.0, 0.8),
            _row("small", "pairwise", 1, 2, 2.0, 2.0)]
    groups = dict(mr.summary(rows))
    assert groups["all"][1] == pytest.approx(20.0)
    assert groups["large"][2] == pytest.approx(15.0)
    assert groups["m=2"][0] == pytest.approx(20.0)
    assert groups["n=2"][3] == pytest.approx(0.0)
    assert dict(mr.summary(rows, calibrated=False))["all"][2] == pytest.approx(50.0)
    assert rows[1].to_json()["error"] == pytest.approx(-0.2)


def test_study_resumes_from_its_checkpoint_without_starting_a_cluster(tmp_path, monkeypatch):
    kwargs = dict(pictures=("small",), strategies=("pairwise", "shuffle"), clusters=[(1, 1)], xs=(2,), rounds=1,
                  repeat={"small": 2}, checkpoints=tmp_path)
    first = mr.study(**kwargs)
    assert [(r.strategy, r.m, r.n) for r in first.rows] == [("pairwise", 1, 1), ("shuffle", 1, 1)]
    assert all(r.measured > 0 and r.naive > 0 and r.calibrated > 0 for r in first.rows)
    assert first.clusters[0].malloc_trim == (None,)

    import perfcompose.runtime.mapreduce.engine as engine

    def no_cluster(*_a, **_k):
        raise AssertionError("a finished study must not start a cluster")

    monkeypatch.setattr(engine.Engine, "__init__", no_cluster)
    again = mr.study(**kwargs)
    assert [r.to_json() for r in again.rows] == [r.to_json() for r in first.rows]

    # a corrupt line in the middle is skipped with a warning naming it; the good lines still resume
    (path,) = first.folder.glob("cluster-*.jsonl")
    head, *rest = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(head + b'{"kind": "rou\n' + b"".join(rest))
    with pytest.warns(UserWarning, match=r"line 2: corrupt checkpoint line skipped"):
        third = mr.study(**kwargs)
    assert [r.to_json() for r in third.rows] == [r.to_json() for r in first.rows]


@pytest.mark.parametrize("args, message", [
    (["paper", "table5", "--strategy", "tree"], "unknown reduction strategy"),
    (["paper", "table5", "--scheduler", "localhost:8786"], "tcp://HOST:PORT"),
    (["mapreduce", "-m", "64", "-n", "64"], "cores"),
    (["mapreduce", "--picture", "huge"], "'huge' is not one of"),
])
def test_bad_input_exits_2_with_one_message(args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = perfcompose(*args)  # in this process: an exception that escaped would fail the test with its traceback
    assert r.returncode == 2
    assert message in r.stderr and "Traceback" not in r.stderr


def test_the_round_with_the_median_error_is_shown():
    rounds = [({"wall": 1.0}, 0.5, 1.1), ({"wall": 2.0}, 1.0, 1.0), ({"wall": 1.0}, 0.5, 0.95),
              ({"wall": 1.0}, 0.5, 3.0)]
    job, naive, calibrated = mr.median_pair(rounds)
    assert (job["wall"], calibrated) == (1.0, 0.95)      # errors -50 %, -5 %, +10 %, +200 %: lower median
