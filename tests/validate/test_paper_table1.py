"""000 Table 1 measured here: an interrupted run resumes from its checkpoints."""
from __future__ import annotations

from perfcompose.validate.paper import table1


def test_table1_resumes_from_its_checkpoints_and_restart_measures_afresh(tmp_path):
    first = table1(quick=True, tasks=("map_small",), checkpoints=tmp_path)
    (ckpt,) = tmp_path.glob("table1_map_small_quick.checkpoint.jsonl")
    lines = ckpt.read_text().splitlines()
    again = table1(quick=True, tasks=("map_small",), checkpoints=tmp_path)
    assert ckpt.read_text().splitlines() == lines  # nothing measured twice
    assert [p.values for p in again[0].experiment.series[0].points] == \
        [p.values for p in first[0].experiment.series[0].points]
    fresh = table1(quick=True, tasks=("map_small",), checkpoints=tmp_path, restart=True)
    assert [p.values for p in fresh[0].experiment.series[0].points] != \
        [p.values for p in first[0].experiment.series[0].points]
