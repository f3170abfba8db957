"""The analysis of a whole profile: models at the target, shares, the ranking of growing call
paths, and each caller composed from its callees beside its own fit."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from perfcompose.analyze import Analysis, analyze, check_target
from perfcompose.errors import InputError
from perfcompose.report.analysis_json import analysis_json


def _nodes(analysis: Any) -> dict[str, Any]:
    return {n.path: n for n in analysis.metrics[0].root.walk()}


def test_a_cube_profile_is_modelled_at_the_target(cube_analysis: Any) -> None:
    nodes = _nodes(cube_analysis)
    assert set(nodes) == {"main", "main->init", "main->solve", "main->solve->comm"}
    comm = 0.01 * 1024 * 10
    truth = {"main->solve->comm": comm, "main->init": 0.5 + 10.24, "main->solve": 1 + comm, "main": 1.7 + 10.24 + comm}
    for path, value in truth.items():
        est = nodes[path].at_target
        assert est.value == pytest.approx(value, rel=0.02)
        assert est.low is not None and est.high is not None
        assert est.low <= est.value * (1 + 1e-12) and est.value <= est.high * (1 + 1e-12)
    assert nodes["main->solve"].share_of_parent == pytest.approx(nodes["main->solve"].at_target.value
                                                                 / nodes["main"].at_target.value)
    assert nodes["main->solve->comm"].share_of_root == pytest.approx(comm / truth["main"], rel=0.03)
    assert dict(nodes["main->solve->comm"].orders) == {"p": "p^(1) * log2(p)^(1)"}


def test_call_paths_rank_by_the_time_they_add_toward_the_target(cube_analysis: Any) -> None:
    ranking = cube_analysis.metrics[0].ranking
    # solve (1 + comm) adds what comm adds, and holds the larger share: ties go to the share
    assert [r.path for r in ranking] == ["main->solve", "main->solve->comm", "main->init"]
    comm = ranking[1]
    added = 0.01 * 1024 * 10 - 0.01 * 128 * 7
    assert comm.added.value == pytest.approx(added, rel=0.03)
    assert comm.added.low <= comm.added.value <= comm.added.high
    assert ranking[0].added.value == pytest.approx(added, rel=0.03)
    assert ranking[0].share_target > comm.share_target
    share_128 = 0.01 * 128 * 7 / (1.7 + 1.28 + 0.01 * 128 * 7)
    assert comm.share_measured == pytest.approx(share_128, rel=0.03)
    assert comm.growth == pytest.approx(comm.share_target / comm.share_measured)
    assert comm.growth > 1 > ranking[-1].growth  # init's share shrinks
    assert ranking[-1].added.value == pytest.approx(0.01 * (1024 - 128), rel=0.03)


def test_a_consistent_caller_composes_to_its_own_fit(cube_analysis: Any) -> None:
    main = _nodes(cube_analysis)["main"]
    c = main.composition
    assert c.term == "seq(own, init, solve)"
    assert abs(c.difference) < 0.02 and not c.disagrees
    assert c.heldout_points == 1 and c.heldout_fitted is not None and c.heldout_composed is not None


def test_a_caller_whose_fit_misses_a_callee_term_disagrees_and_the_composition_is_kept(mixed_analysis: Any) -> None:
    main = _nodes(mixed_analysis)["main"]
    c = main.composition
    truth = 2.0 + 50 * 32 + 0.01 * 1024 ** 2 + 100 * 10
    assert c.disagrees and abs(c.difference) > 0.1
    assert c.at_target.value == pytest.approx(truth, rel=0.02)
    assert abs(c.fitted_at_target - truth) > 0.1 * truth
    assert c.heldout_composed < c.heldout_fitted
    assert c.kept == "composed" and main.source == "composed" and main.at_target.value == c.at_target.value
    assert [n.path for n in mixed_analysis.metrics[0].disagreements()] == ["main"]


def test_exclusive_values_give_the_root_the_sum_of_its_subtree(exclusive_text: Path) -> None:
    analysis = analyze(exclusive_text, {"p": 512})
    time = analysis.metrics[0]
    assert "values read as exclusive" in time.note
    assert time.root.at_largest == pytest.approx(1 + 2 * 128 + 128 * 7, rel=0.01)
    assert time.ranking[0].path == "main->y"


def test_the_analysis_reads_back_from_its_json(mixed_analysis: Any) -> None:
    record = json.loads(analysis_json(mixed_analysis))
    assert Analysis.from_json(record) == mixed_analysis
    assert record["metrics"][0]["roots"][0]["composition"]["kept"] == "composed"


def test_every_parameter_needs_a_target_value() -> None:
    with pytest.raises(InputError, match="no value for n") as info:
        check_target(["p", "n"], {"p": 4.0})
    assert "--at p=VALUE,n=VALUE" in str(info.value)
    with pytest.raises(InputError, match="q is no parameter"):
        check_target(["p"], {"p": 4.0, "q": 1.0})
    assert np.isfinite(check_target(["p"], {"p": 4.0})["p"])


def test_a_call_path_measured_at_too_few_points_is_a_constant(tmp_path: Path) -> None:
    from perfcompose.data import Experiment, Point, Series, save

    xs = (2.0, 4.0, 8.0, 16.0, 32.0)
    main = Series("time", tuple(Point((x,), (10.0 + x, 10.0 + x)) for x in xs), "main")
    late = Series("time", tuple(Point((x,), (3.0, 3.2)) for x in xs[-2:]), "main->late")  # only at the largest two
    path = tmp_path / "sparse.json"
    save(Experiment(("p",), (main, late)), path)
    analysis = analyze(path, {"p": 64})
    nodes = _nodes(analysis)
    assert nodes["main->late"].source == "constant" and nodes["main->late"].at_target.value == pytest.approx(3.1)
    # main's own time is known only where late was measured too: a constant, so the fit of main is kept
    assert "2 call path(s) measured at too few points to fit" in analysis.metrics[0].note
    assert nodes["main"].composition.kept == "fitted" and "too few points" in nodes["main"].composition.reason
    assert nodes["main"].at_target.value == pytest.approx(74.0, rel=0.02)


def test_growth_is_told_apart_by_parameter(tmp_path: Path) -> None:
    from perfcompose.data import Experiment, Point, Series, save

    grid = [(p, n) for p in (2.0, 4.0, 8.0, 16.0, 32.0) for n in (10.0, 20.0, 40.0, 80.0, 160.0)]
    own = {"main": lambda p, n: 5.0, "main->a": lambda p, n: 0.5 * p, "main->b": lambda p, n: 0.1 * n}

    def inclusive(path: str, p: float, n: float) -> float:
        return own[path](p, n) + (sum(f(p, n) for k, f in own.items() if k != "main") if path == "main" else 0.0)

    series = tuple(Series("time", tuple(Point(c, (inclusive(k, *c) * 0.999, inclusive(k, *c) * 1.001)) for c in grid),
                          k) for k in own)
    path = tmp_path / "two.json"
    save(Experiment(("p", "n"), series), path)
    ranking = {r.path: r for r in analyze(path, {"p": 512.0, "n": 160.0}).metrics[0].ranking}
    a, b = ranking["main->a"], ranking["main->b"]
    assert a.growth > 1 > b.growth
    assert dict(a.growth_by_parameter)["p"] > 1 and dict(a.growth_by_parameter)["n"] == pytest.approx(1.0, rel=0.01)
    assert dict(b.growth_by_parameter)["p"] < 1
    assert dict(a.orders) == {"p": "p^(1)", "n": "1"} and dict(b.orders) == {"p": "1", "n": "n^(1)"}


def test_a_value_at_the_target_has_no_interval_below_zero_nor_an_added_time_below_minus_the_value():
    from perfcompose.analyze.analysis import _holding

    # bootstrap members of a steep fit through few noisy points reach below 0 (MPI_Allreduce of
    # LULESH's runs: 0.94 s at p=4096 with a 90 % interval from -0.24 s)
    target = _holding(0.9404, -0.2422, 0.9832, floor=0.0)
    assert (target.low, target.high) == (0.0, 0.9832)
    added = _holding(0.9357, -0.241, 0.9784, floor=-0.0047)
    assert added.low == -0.0047  # the call path cannot lose more than it had at the largest point
    assert _holding(-0.5, -0.7, 0.1, floor=0.0).low == -0.7  # a negative value keeps its interval
    assert _holding(2.0, 2.5, 3.0).low == 2.0  # the interval holds its value
