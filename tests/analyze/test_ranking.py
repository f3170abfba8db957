"""The ranking reads as a list of scaling bugs: call paths that hold 1 % of the run or more at the
target come first, by the time they add between the largest measured point and the target; a
timer that grows fastest but stays negligible comes after them; callers that merely wrap one
callee are folded into its entry."""
from __future__ import annotations

import math
from pathlib import Path

import pytest

from perfcompose.analyze import analyze

P = (32.0, 64.0, 128.0, 256.0, 512.0)
N = (5000.0, 6000.0, 7000.0, 8000.0, 9000.0)


def _timers(path: Path) -> Path:
    """Timers as RELeARN writes them (a flat profile over p and n): one at most of the run growing
    with log2(p)^2 * n, one tiny and growing fastest, one small and linear in p."""
    laws = {"Create synapses": lambda p, n: 2e-4 * math.log2(p) ** 2 * n,
            "Update global tree": lambda p, n: 3e-9 * p ** 0.75 * math.log2(p) ** 2,
            "Initialization": lambda p, n: 0.2 + 0.003 * p}
    parts = tuple(laws.values())
    laws = {"main()": lambda p, n: 100 + sum(f(p, n) for f in parts), **laws}
    lines = ["PARAMETER p", "PARAMETER n", *(f"POINTS ( {p:g} {n:g} )" for p in P for n in N), "METRIC runtime"]
    for name, law in laws.items():
        lines.append(f"REGION {name}")
        lines += [f"DATA {law(p, n):.9g} {1.002 * law(p, n):.9g}" for p in P for n in N]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_call_path_that_matters_at_the_target_ranks_above_a_negligible_one_growing_faster(tmp_path: Path) -> None:
    runtime = analyze(_timers(tmp_path / "timers.txt"), {"p": 4096, "n": 9000}).metrics[0]
    assert runtime.run == "main()"
    ranking = {r.path: (k, r) for k, r in enumerate(runtime.ranking)}
    assert [r.path for r in runtime.ranking] == ["Create synapses", "Initialization", "Update global tree"]
    synapses, tree = ranking["Create synapses"][1], ranking["Update global tree"][1]
    assert tree.growth > synapses.growth and tree.share_target < 0.01 <= synapses.share_target
    added = 2e-4 * 9000 * (12 ** 2 - 9 ** 2)
    assert synapses.added.value == pytest.approx(added, rel=0.02)
    assert synapses.added.low <= synapses.added.value <= synapses.added.high


def test_callers_that_only_wrap_one_callee_are_one_entry(tmp_path: Path) -> None:
    xs = (4.0, 8.0, 16.0, 32.0, 64.0, 128.0)
    c = [5 + 0.01 * x ** 2 for x in xs]
    d = [2.0 * x for x in xs]
    values = {"main": [1 + u + v for u, v in zip(c, d)], "main->a": c, "main->a->b": c, "main->a->b->c": c,
              "main->d": d}
    lines = ["PARAMETER p", "POINTS " + " ".join(f"( {x:g} )" for x in xs), "METRIC time"]
    for path, vs in values.items():
        lines += [f"REGION {path}", *(f"DATA {v:.9g} {1.001 * v:.9g}" for v in vs)]
    profile = tmp_path / "wrapped.txt"
    profile.write_text("\n".join(lines) + "\n")
    ranking = analyze(profile, {"p": 1024}).metrics[0].ranking
    assert [r.path for r in ranking] == ["main->a->b->c", "main->d"]
    assert ranking[0].collapsed == ("main->a->b", "main->a")
    assert ranking[1].collapsed == ()
