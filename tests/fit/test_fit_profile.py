"""Fitting a whole profile gives the models that fitting each series alone gives."""
from __future__ import annotations

import math

import numpy as np
import pytest

from perfcompose.data import Experiment
from perfcompose.data.experiment import Point, Series
from perfcompose.errors import FitError
from perfcompose.fit import PMNFFitter
from perfcompose.fit.pmnf import Candidate, FitResult
from perfcompose.fit.profile import fit_profile

# laws of one or two parameters (p, n), as call paths of a profile have them
LAWS_2 = [
    lambda p, n: 2.0 + 0.0 * p,
    lambda p, n: 1.0 + 0.5 * p * n,
    lambda p, n: 3.0 + 0.2 * np.log2(p) + 0.01 * n ** 1.5,
    lambda p, n: 0.5 + 0.3 * n * np.log2(n),
    lambda p, n: 1.0 + 4.0 * p ** 0.5 * np.log2(n),
    lambda p, n: 10.0 + 0.001 * p ** 2,
    lambda p, n: 0.2 + 500.0 / p + 0.01 * n,          # strong scaling: falls along p
]
LAWS_1 = [
    lambda x: 5.0 + 0.0 * x,
    lambda x: 1.0 + 0.2 * x,
    lambda x: 2.0 + 0.05 * x * np.log2(x),
    lambda x: 0.5 + 3.0 * np.sqrt(x) + 0.001 * x ** 2,
    lambda x: 7.0 + 1.5 * np.log2(x) ** 2,
]
NOISE = [0.0, 0.01, 0.05, 0.2]


def _profile_2d(seed: int = 1, reps: int = 5) -> Experiment:
    """Every law at every noise level, with ``reps`` and with one repetition; a call path
    measured at one point fewer; one never visited (all zero)."""
    rng = np.random.default_rng(seed)
    grid = [(p, n) for p in (4.0, 8, 16, 32, 64) for n in (10.0, 20, 30, 40, 50)]

    def points(law, noise, reps, at=grid):
        return tuple(Point((p, n), tuple(float(v) for v in law(p, n) * (1 + noise * rng.standard_normal(reps))))
                     for p, n in at)

    series = [Series(metric, points(law, noise, r), f"main/f{k}/n{noise}")
              for k, law in enumerate(LAWS_2) for noise in NOISE for metric, r in (("time", reps), ("visits", 1))]
    series.append(Series("time", points(LAWS_2[1], 0.02, reps, grid[:-1]), "main/short"))
    series.append(Series("time", points(lambda p, n: 0.0 * p, 0.0, reps), "main/never"))
    return Experiment(("p", "n"), tuple(series), source="generated.jsonl")


def _profile_1d(seed: int = 2) -> Experiment:
    rng = np.random.default_rng(seed)
    series = []
    for k, law in enumerate(LAWS_1):
        for noise in NOISE:
            for reps in (1, 4):
                pts = tuple(Point((x,), tuple(float(v) for v in law(x) * (1 + noise * rng.standard_normal(reps))))
                            for x in (2.0, 4, 8, 16, 32, 64, 128))
                series.append(Series("time", pts, f"r{k}/n{noise}/{reps}"))
    return Experiment(("x",), tuple(series))


def _same_candidate(a: Candidate, b: Candidate) -> None:
    assert a.hypothesis == b.hypothesis
    assert a.constant == pytest.approx(b.constant, rel=1e-9, abs=1e-12 * (1 + abs(b.constant)))
    assert a.coefficients == pytest.approx(b.coefficients, rel=1e-9)
    assert a.cv_error == pytest.approx(b.cv_error, rel=1e-9, abs=1e-15)


def _same_result(a: FitResult, b: FitResult) -> None:
    assert (a.region, a.metric, a.unit, a.source, a.params, a.warnings) == \
        (b.region, b.metric, b.unit, b.source, b.params, b.warnings)
    _same_candidate(a.chosen, b.chosen)
    assert [c.hypothesis for c in a.alternatives] == [c.hypothesis for c in b.alternatives]
    for ca, cb in zip(a.alternatives, b.alternatives):
        _same_candidate(ca, cb)
    assert a.stats.keys() == b.stats.keys()
    for key in a.stats:
        assert a.stats[key] == pytest.approx(b.stats[key], rel=1e-9, abs=1e-12) or \
            (math.isnan(a.stats[key]) and math.isnan(b.stats[key]))


def _per_series(exp: Experiment, fitter: PMNFFitter) -> list[FitResult]:
    return [fitter.fit_series(exp.parameters, s, source=exp.source) for s in exp.series]


@pytest.mark.parametrize("make", [_profile_2d, _profile_1d], ids=["two parameters", "one parameter"])
def test_profile_models_equal_the_per_series_fits(make):
    exp = make()
    got = fit_profile(exp)
    want = _per_series(exp, PMNFFitter())
    assert len(got) == len(want) == len(exp.series)
    for a, b in zip(got, want):
        _same_result(a, b)


def test_profile_uses_the_given_fitter_options():
    exp = _profile_2d(reps=1)
    fitter = PMNFFitter(aggregate="mean", max_terms=1)
    got = fit_profile(exp, fitter=fitter)
    for a, b in zip(got, _per_series(exp, PMNFFitter(aggregate="mean", max_terms=1))):
        _same_result(a, b)


def test_progress_hears_of_every_series_and_the_end():
    exp = _profile_1d()
    calls: list[tuple[int, int]] = []
    fit_profile(exp, progress=lambda label, k, n: calls.append((k, n)))
    assert calls[0] == (0, len(exp.series)) and calls[-1] == (len(exp.series), len(exp.series))
    assert [k for k, _ in calls] == sorted(k for k, _ in calls)


def test_dask_gives_the_models_of_the_process_in_order(monkeypatch):
    from distributed import Client, LocalCluster

    import perfcompose.fit.profile as profile

    monkeypatch.setattr(profile, "MIN_TASK", 5)   # several tasks, finishing in any order
    full = _profile_2d()
    exp = Experiment(full.parameters, full.series[::3], source=full.source)
    calls: list[int] = []
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        got = fit_profile(exp, scheduler=client, progress=lambda label, k, n: calls.append(k))
    want = fit_profile(exp)
    assert [r.label for r in got] == [s.label for s in exp.series]
    assert got == want and [r.alternatives for r in got] == [r.alternatives for r in want]
    assert calls[-1] == len(exp.series) and len(calls) > 2


def test_forked_processes_give_the_models_of_the_process_in_order(monkeypatch):
    import perfcompose.fit.profile as profile

    monkeypatch.setattr(profile, "MIN_TASK", 5)   # several chunks over the two processes
    exp = _profile_2d()
    calls: list[int] = []
    got = fit_profile(exp, scheduler="processes", workers=2, progress=lambda label, k, n: calls.append(k))
    want = fit_profile(exp, workers=1)
    assert [r.label for r in got] == [s.label for s in exp.series]
    assert got == want and [r.alternatives for r in got] == [r.alternatives for r in want]
    assert calls[-1] == len(exp.series) and len(calls) > 3


def test_a_large_profile_is_fitted_in_processes_by_default_and_a_small_one_here(monkeypatch):
    import perfcompose.fit.profile as profile

    used: list[int] = []
    monkeypatch.setattr(profile, "_in_processes", lambda fitter, params, series, source, workers, step, alternatives:
                        used.append(workers) or profile.fit_chunk(fitter, params, series, source))
    monkeypatch.setattr(profile, "usable_cores", lambda: 2)
    exp = _profile_1d()
    fit_profile(exp)
    assert used == []
    monkeypatch.setattr(profile, "AUTO_PROCESSES", len(exp.series))
    fit_profile(exp)
    fit_profile(exp, workers=1)
    assert used == [2]


def test_an_error_in_a_forked_process_names_the_series():
    bad = Series("time", tuple(Point((x,), (1.0,)) for x in (2.0, 4.0)), "flat")
    exp = Experiment(("x",), _profile_1d().series[:3] + (bad,))
    with pytest.raises(FitError, match="flat/time"):
        fit_profile(exp, scheduler="processes", workers=2)


def test_without_alternatives_the_models_are_the_same_and_list_no_runners_up():
    exp = _profile_2d()
    lean = fit_profile(exp, alternatives=False)
    for a, b in zip(lean, fit_profile(exp)):
        assert a.alternatives == () and b.alternatives
        _same_candidate(a.chosen, b.chosen)


def test_counts_the_same_at_every_point_are_constants_without_a_search():
    grid = [(p, n) for p in (4.0, 8, 16, 32, 64) for n in (10.0, 20, 30, 40, 50)]
    exp = Experiment(("p", "n"), tuple(Series("visits", tuple(Point(c, (float(v),) * 5) for c in grid), f"r{v}")
                                       for v in (1, 7, 4096)))
    for lean, alone in zip(fit_profile(exp, alternatives=False), _per_series(exp, PMNFFitter())):
        assert lean.chosen.hypothesis == () and lean.alternatives == ()
        _same_candidate(lean.chosen, alone.chosen)
