"""Progress of a fit: per series, or per batch of hypotheses when one large series is fitted."""
from __future__ import annotations

import numpy as np

import perfcompose.fit.batched as batched
from perfcompose.data import Experiment
from perfcompose.fit import PMNFFitter


def _experiment(series: int) -> Experiment:
    x = np.array([4.0, 8, 16, 32, 64])
    return Experiment.single(["x"], [((v,), (3 + v,)) for v in x]) if series == 1 else Experiment(
        ("x",), tuple(s for k in range(series) for s in Experiment.single(
            ["x"], [((v,), (3 + k * v,)) for v in x], region=f"r{k}").series))


def test_every_series_reported_then_the_end():
    calls = []
    PMNFFitter().fit(_experiment(3), progress=lambda label, k, n: calls.append((k, n)))
    assert calls == [(0, 3), (1, 3), (2, 3), (3, 3)]


def test_one_large_series_reports_its_batches(monkeypatch):
    chunked = batched.fit_batch_chunked
    monkeypatch.setattr(batched, "fit_batch_chunked", lambda *a, **k: chunked(*a, cells=1 << 14, **k))
    axes = [np.array([2.0, 4, 8, 16, 32])] * 3
    grid = np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, 3)
    e = Experiment.single(["x", "y", "z"], [(tuple(p), (1 + p[0] * p[1],)) for p in grid])
    calls = []
    PMNFFitter().fit(e, progress=lambda label, k, n: calls.append((label, k, n)))
    assert len(calls) > 2 and calls[-1][1] == calls[-1][2] and all("hypotheses" in c[0] for c in calls)
