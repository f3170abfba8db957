"""benchmarks/extrap_seeds.py: the goals of the Extra-P comparison, seed by seed and pooled."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "extrap_seeds.py"


@pytest.fixture(scope="module")
def seeds():
    spec = importlib.util.spec_from_file_location("extrap_seeds", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def records(err_a: float, err_c: float, lead_a: bool, lead_c: bool, n: int = 20) -> tuple[list, list]:
    """n data sets per parameter count and noise level with the given errors and lead terms."""
    anchor, cand = [], []
    for npar in ("1", "2"):
        for noise in ("0.0", "0.01", "0.05", "0.1"):
            for k in range(n):
                base = {"id": f"{npar}-{noise}-{k}", "n_params": npar, "noise": noise}
                anchor.append({**base, "err_x16": str(err_a), "lead_match": str(lead_a), "fit_cpu_seconds": "0.02"})
                cand.append({**base, "err_x16": str(err_c), "lead_match": str(lead_c), "fit_cpu_seconds": "0.001"})
    return anchor, cand


def test_seed_list(seeds):
    assert seeds.seed_list("20-23,default,7") == ["20", "21", "22", "23", "default", "7"]


def test_a_seed_ahead_everywhere_meets_every_goal(seeds):
    f = seeds.figures(seeds.columns(*records(0.3, 0.2, False, True)))
    assert f["lead1"] == pytest.approx(100.0) and f["speed2"] == pytest.approx(20.0)
    assert seeds.verdict(f) == []


def test_each_missed_goal_is_named(seeds):
    f = seeds.figures(seeds.columns(*records(0.2, 1.5, True, True)))
    missed = seeds.verdict(f)
    assert "lead 1p +0.0" in missed and "lead 2p +0.0" in missed
    assert "1p 5% 1.500>0.200" in missed
    assert "over 160" in missed


def test_pooled_intervals_bracket_the_margin(seeds):
    rng = np.random.default_rng(3)
    per_seed = []
    for _ in range(3):
        a, c = records(0.3, 0.2, False, True)
        for r in c:
            r["err_x16"] = str(0.2 + 0.05 * rng.standard_normal())
        per_seed.append(seeds.columns(a, c))
    point, ci = seeds.pooled(per_seed, 50, np.random.default_rng(0))
    lo, hi = ci["c1_0.05"]
    assert lo <= point["c1_0.05"] - point["a1_0.05"] <= hi < 0
