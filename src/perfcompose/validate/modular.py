"""Modular vs monolithic vs measured (000 section 4): run composed programs, fit them, and set the
prediction from the parts beside the measurement.

Everything is measured in interleaved rounds: every round times each program and each part once
at every size, in a shuffled order, so a slow minute of the machine spreads over all of them
instead of biasing one. Each round is checkpointed; an interrupted study resumes where it stopped.
"""
from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from perfcompose.bench.runner import CallableTarget, run_sweep
from perfcompose.compose.calibrated import CalibratedComposer, Overheads
from perfcompose.compose.interval import with_interval
from perfcompose.compose.operators import Composer
from perfcompose.compose.oversubscription import accounted
from perfcompose.compose.parser import parse_term
from perfcompose.compose.terms import Component, Term, TPool
from perfcompose.data.experiment import Experiment, Point, Series
from perfcompose.ensemble import SampledEnsemble
from perfcompose.errors import PerfcomposeError
from perfcompose.fit import PMNFFitter
from perfcompose.fit.uncertainty import with_uncertainty
from perfcompose.model import Model
from perfcompose.runtime.executor import plan, worker_count
from perfcompose.runtime.target import TermTarget

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class Comparison:
    """One program: its measurement, the model fitted to it, and the models composed from parts."""

    configuration: str
    workers: int
    x: tuple[float, ...]
    #: seconds per data element at each x (median over the rounds)
    measured: tuple[float, ...]
    monolithic: Model
    modular: Model
    calibrated: Model
    #: relative error of the leading coefficient, modular vs monolithic (None if orders differ)
    lead_error: float | None
    errors_paper: tuple[float, ...]
    errors_calibrated: tuple[float, ...]
    #: the calibrated prediction's interval at each x [ns] (low, high), at ``level``
    low: tuple[float, ...] = ()
    high: tuple[float, ...] = ()
    level: float = 0.9
    #: the largest share of a run of this program or of the parts and probes it is predicted
    #: from that the workers spent waiting for a core (other work on the machine)
    wait_share: float = 0.0
    #: the measurement lost its cores to other work: the interval is widened by ``wait_share``
    disturbed: bool = False
    #: the operators' own relative error on the study's other undisturbed programs (the
    #: ``level`` quantile, leave this one out) that the interval spans at least; 0 when not known
    operator_error: float = 0.0

    @property
    def inside(self) -> tuple[bool, ...]:
        """Per x: whether the measured time lies inside the calibrated prediction's interval."""
        if not self.low:
            return ()
        meas = np.array(self.measured) * 1e9
        return tuple(bool(v) for v in (np.array(self.low) <= meas) & (meas <= np.array(self.high)))

    @property
    def error_paper(self) -> float:
        """Median relative error of the papers' operators vs the measurement, over x."""
        return float(np.median(self.errors_paper))

    @property
    def error_calibrated(self) -> float:
        return float(np.median(self.errors_calibrated))

    def to_json(self) -> dict[str, Any]:
        return {"configuration": self.configuration, "workers": self.workers,
                "monolithic": str(self.monolithic), "modular": str(self.modular),
                "calibrated": str(self.calibrated), "unit": "ns", "x": list(self.x),
                "measured": list(self.measured), "lead_error": self.lead_error,
                "error_paper": self.error_paper, "error_calibrated": self.error_calibrated,
                "max_error_paper": max(self.errors_paper), "max_error_calibrated": max(self.errors_calibrated),
                "interval": {"level": self.level, "low": list(self.low), "high": list(self.high),
                             "inside": list(self.inside)},
                "wait_share": self.wait_share, "disturbed": self.disturbed, "operator_error": self.operator_error}


@dataclass(frozen=True)
class Study:
    """A validation: the programs compared, the parts' models and the executor's overheads."""

    comparisons: tuple[Comparison, ...]
    #: the parts timed in isolation (the papers' atomic models) [ns]
    parts: Mapping[str, Model]
    #: the parts timed inside the executor, by the number of workers running at once [ns]
    parts_in_executor: Mapping[int, Mapping[str, Model]]
    overheads: Overheads
    skipped: tuple[tuple[str, str], ...] = ()
    x: tuple[float, ...] = ()
    rounds: int = 0
    count: int = 0
    workers: str = "threads"
    measured: Mapping[str, tuple[float, ...]] = field(default_factory=dict)
    #: runs taken again because other work took the cores away, and runs kept although every
    #: retake was disturbed too (in this invocation; resumed runs are not counted)
    retaken: int = 0
    disturbed: int = 0
    #: the sizes the parts were measured at alone (denser than ``x``) and their measurements
    part_x: tuple[float, ...] = ()
    part_experiments: Mapping[str, Experiment] = field(default_factory=dict)

    @property
    def coverage(self) -> float | None:
        """Share of measured points inside their predicted intervals (None without intervals)."""
        inside = [v for c in self.comparisons for v in c.inside]
        return float(np.mean(inside)) if inside else None


def _experiment(name: str, x: Sequence[float], values: Sequence[Sequence[float]]) -> Experiment:
    points = tuple(Point((float(v),), tuple(float(s) * 1e9 for s in vals)) for v, vals in zip(x, values))
    return Experiment(("x",), (Series("time", points, name, "ns"),), source="perfcompose validate")


def _fit(name: str, x: Sequence[float], values: Sequence[Sequence[float]], max_terms: int = 1,
         uncertainty: bool = False) -> Model:
    experiment = _experiment(name, x, values)
    model = PMNFFitter(max_terms=max_terms).fit(experiment).model_.with_meta(name=name, unit="ns")
    return with_uncertainty(model, experiment) if uncertainty else model


def dense_grid(x: Sequence[float], per_octave: int = 4) -> tuple[float, ...]:
    """The sizes of ``x`` and ``per_octave`` sizes per power of two between its ends (Table 1's
    quick grid for 2^10 ... 2^18): the grid the parts are measured on, so the fitter sees enough
    of each part's curve to tell x from x^(3/4) log2(x)^2."""
    lo, hi = np.log2(min(x)), np.log2(max(x))
    steps = np.arange(np.ceil(lo * per_octave), np.floor(hi * per_octave) + 1) / per_octave
    return tuple(sorted({float(v) for v in x} | {float(round(2 ** s)) for s in steps}))


def resampled_medians(values: np.ndarray, picks: np.ndarray) -> np.ndarray:
    """Medians over resampled rounds: ``values`` (sizes, rounds), ``picks`` (members, rounds) of
    round indices -> (members, sizes)."""
    return np.median(values[:, picks], axis=-1).T


def curve_members(name: str, x: Sequence[float], medians: np.ndarray, central: Model) -> Model:
    """``central`` (a measured curve) carrying one member per row of ``medians`` [ns]: the same
    log-log interpolation through each resample's medians."""
    lx = np.log(np.asarray(x, dtype=float))
    ly = np.log(np.maximum(np.asarray(medians, dtype=float), 1e-6))

    def members(x: Any) -> np.ndarray:
        lv = np.log(np.asarray(x, dtype=float))
        return np.exp(np.stack([np.interp(lv, lx, row) for row in ly]))

    return central.with_meta(ensemble=SampledEnsemble(members, len(ly), ("x",)))


def curve(name: str, x: Sequence[float], values: Sequence[Sequence[float]]) -> Model:
    """The measured medians [ns] as a model: linear interpolation in log-log between the
    measured sizes (constant beyond them), for predictions that show the operators' error
    rather than a fit's."""
    lx = np.log(np.asarray(x, dtype=float))
    ly = np.log(np.maximum([float(np.median(v)) * 1e9 for v in values], 1e-6))

    def f(xv: Any) -> Any:
        return np.exp(np.interp(np.log(np.asarray(xv, dtype=float)), lx, ly))

    return Model.numeric(name, f, ("x",), unit="ns", source="measured")


def leading_term(model: Model) -> tuple[tuple, float] | None:
    """The order ``(i, j)`` in x and the coefficient of the model's leading PMNF term."""
    decomposed = model.terms()
    if decomposed is None:
        return None
    constant, terms = decomposed
    if not terms:
        return ((), constant)
    top = max(terms, key=lambda t: t.exponent("x"))
    return (tuple(top.exponent("x")), top.coefficient)


def lead_error(modular: Model, monolithic: Model) -> float | None:
    """|c_modular - c_monolithic| / c_monolithic of the leading terms, when their orders agree."""
    a, b = leading_term(modular), leading_term(monolithic)
    if a is None or b is None or a[0] != b[0] or b[1] == 0:
        return None
    return abs(a[1] - b[1]) / abs(b[1])


def _pool_sizes(terms: Sequence[Term]) -> list[int]:
    return sorted({t.threads for term in terms for t in term.walk() if isinstance(t, TPool) and isinstance(t.threads, int)})


#: a timing or run that lost its cores to other work is taken again up to this many times
RETRIES = 3


def checkpoint_dir(base: Path, identity: Mapping[str, Any]) -> Path:
    """A folder of checkpoints named by what is measured, so a rerun resumes and another study
    never mixes with it."""
    digest = hashlib.sha1(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:12]
    return base / f"validate-{digest}"


def study(configurations: Sequence[str | Term], x: Sequence[float], *, rounds: int = 5, count: int = 32,
          workers: str = "threads", functions: Mapping[str, Callable[[Any], Any]] | None = None,
          make: Callable[[float], Any] | None = None, max_workers: int | None = None,
          checkpoints: Path | None = None, restart: bool = False, progress: Progress | None = None,
          part_rounds: int = 11, part_reps: int = 3, per_octave: int = 4, resamples: int = 200,
          level: float = 0.9, seed: int = 0) -> Study:
    """Run every configuration over ``x``, fit it, and compare with the models composed from its parts.

    The parts are timed alone on a denser grid than the programs (:func:`dense_grid`,
    ``per_octave`` sizes per power of two, ``part_rounds`` rounds of ``part_reps``: Table 1's
    quick measurement), so their fitted classes are as sure as Table 1's. Every calibrated
    prediction carries a ``level`` interval: ``resamples`` bootstrap resamples of the rounds
    (the same rounds for every part, probe and program) composed by the calibrated operators,
    widened by sqrt(2) for the noise of the measurement it is compared with, and by the share of
    the runs that other work took (:attr:`Comparison.wait_share`) where that share is large.

    ``functions`` are the components (default: the reference tasks nop, inc, qsort) and ``make(x)``
    builds one data element (default: x random 32-bit ints). Configurations with more workers than
    ``max_workers`` (default: this machine's cores) are skipped and listed.
    """
    from perfcompose.bench.tasks import TASKS, random_ints, touch

    if functions is None:
        functions = {name: TASKS[name].run for name in ("nop", "inc", "qsort")}
    functions = dict(functions)
    functions.setdefault("nop", TASKS["nop"].run)
    functions.setdefault("touch", touch)
    make = make or random_ints
    for name in ("nop", "inc", "qsort"):
        if functions.get(name) is TASKS[name].run:
            TASKS[name].warm()
    if rounds < 1 or count < 2:
        raise PerfcomposeError("need at least one round and two elements per run")
    limit = max_workers or os.cpu_count() or 1
    xs = tuple(sorted({float(v) for v in x}))
    if len(xs) < 3:
        raise PerfcomposeError(f"need at least 3 input sizes to fit a model, got {len(xs)}: "
                               "give e.g. --x 1024:262144 (the powers of two in between)")
    kept: list[tuple[Term, int]] = []
    skipped: list[tuple[str, str]] = []
    for cfg in configurations:
        term = parse_term(cfg, components=functions) if isinstance(cfg, str) else cfg
        n = worker_count(plan(term, functions))
        if n > limit:
            skipped.append((str(term), f"{n} workers, {limit} cores"))
        else:
            kept.append((term, n))
    if not kept:
        raise PerfcomposeError("no configuration fits this machine: "
                               + "; ".join(f"{c}: {why}" for c, why in skipped))
    parts = sorted({c for term, _ in kept for c in term.components()})
    cores = os.cpu_count() or 1
    levels = sorted({min(n, cores) for _, n in kept} | {1})
    calibration = [Component("nop"), Component("touch"), parse_term("pipe(touch, touch)"),
                   *(parse_term(f"tpool_{k}(touch)") for k in levels if k > 1)]
    stream: list[Term] = []
    for term in [*(Component(p) for p in parts), *calibration, *(t for t, _ in kept)]:
        if str(term) not in {str(s) for s in stream}:
            stream.append(term)
    dense = dense_grid(xs, per_octave)
    identity = {"terms": [str(t) for t in stream], "x": list(xs), "count": count, "workers": workers,
                "parts": {"x": list(dense), "rounds": part_rounds, "reps": part_reps}}
    folder = checkpoint_dir(checkpoints, identity) if checkpoints is not None else None
    total = len(parts) * len(dense) * part_rounds + rounds * len(stream) * len(xs)
    done = 0

    def step(label: str) -> Callable[[int, int, tuple[float, ...]], None]:
        def report(k: int, _n: int, _c: tuple[float, ...]) -> None:
            if progress is not None:
                progress(label, done + k, total)
        return report

    isolated: dict[str, list[list[float]]] = {}
    retaken = 0
    for p in parts:
        alone = CallableTarget(functions[p], lambda x, _make=make: (_make(x),), label=p,
                               retry_preempted=RETRIES, cpu_when_preempted=True)
        res = run_sweep(alone, {"x": dense}, reps=part_reps, rounds=part_rounds, warmup=1, restart=restart,
                        checkpoint=folder / f"isolated-{p}.jsonl" if folder else None,
                        identity={"target": p}, progress=step(f"{p} alone"))
        isolated[p] = [res.values[(v,)] for v in dense]
        done += len(dense) * part_rounds
        retaken += alone.preempted + alone.cpu_kept
    target = TermTarget(stream, functions, make, count=count, workers=workers, retry_disturbed=RETRIES)
    runs: dict[tuple[int, float], list[float]] = {}
    for r in range(rounds):
        res = run_sweep(target, {"term": tuple(float(k) for k in range(len(stream))), "x": xs}, reps=1,
                        warmup=0, seed=r, restart=restart,
                        checkpoint=folder / f"round-{r}.jsonl" if folder else None,
                        identity={**identity, "round": r}, progress=step(f"round {r + 1}/{rounds}"))
        if res.failures:
            coord, failure = next(iter(res.failures.items()))
            raise PerfcomposeError(f"{stream[int(coord[0])]} failed at x={coord[1]:g}: {failure.message}")
        for (k, v), vals in res.values.items():
            runs.setdefault((int(k), v), []).extend(vals)
        done += len(stream) * len(xs)
    index = {str(t): k for k, t in enumerate(stream)}

    def series(term: str) -> list[list[float]]:
        return [runs[(index[term], v)] for v in xs]

    hot = {p: _fit(p, dense, isolated[p], uncertainty=resamples > 1) for p in parts}
    width = min(len(runs[(index[str(t)], v)]) for t in stream for v in xs)
    picks = np.random.default_rng(seed).integers(0, width, size=(max(resamples, 1), width))

    def matrix(term: str) -> np.ndarray:
        """The term's runs [s]: (sizes, rounds)."""
        return np.array([runs[(index[term], v)][:width] for v in xs])

    def contention(k: int) -> np.ndarray:
        return k * matrix(f"tpool_{k}(touch)") - matrix("touch") if k > 1 else np.zeros((len(xs), width))

    def at(k: int, p: str) -> list[list[float]]:
        """Part p's time per element when k workers run at once: its own time in the executor
        plus the contention k one-pass probes meet (k T[tpool_k(touch)] - T[touch])."""
        if k == 1:
            return series(p)
        return (matrix(p) + np.median(contention(k), axis=1, keepdims=True)).tolist()

    def measured_curve(name: str, values: np.ndarray, members: np.ndarray) -> Model:
        central = curve(name, xs, values.tolist())
        return curve_members(name, xs, members * 1e9, central) if resamples > 1 else central

    concurrent = {k: {p: measured_curve(f"{p}_{k}", np.array(at(k, p)),
                                        resampled_medians(matrix(p), picks)
                                        + resampled_medians(contention(k), picks))
                      for p in parts} for k in levels}
    overheads = Overheads(stream=measured_curve("o", matrix("nop"), resampled_medians(matrix("nop"), picks)),
                          pipe=measured_curve("P", matrix("pipe(touch, touch)"),
                                              resampled_medians(matrix("pipe(touch, touch)"), picks)))
    paper_ops = Composer(hot, pipe="asymptotic")
    calibrated_ops = {k: CalibratedComposer(concurrent[k], pipe="pointwise", hot=hot, overheads=overheads)
                      for k in levels}
    shares = target.wait_share
    comparisons = []
    for term, n in kept:
        values = series(str(term))
        measured = tuple(float(np.median(v)) for v in values)
        monolithic = _fit(str(term), xs, values, max_terms=1)
        level_k = min(n, cores)
        modular = paper_ops(term)
        calibrated = with_interval(calibrated_ops[level_k], term) if resamples > 1 else calibrated_ops[level_k](term)
        if n > cores:
            # the workers share the cores: no faster than the total work over the cores
            modular = accounted(paper_ops, term, modular, cores)[0]
            calibrated = accounted(calibrated_ops[level_k], term, calibrated, cores)[0]
        xv = np.array(xs)
        meas = np.array(measured) * 1e9
        predicted = np.asarray(calibrated(x=xv), dtype=float)
        err_p = np.abs(np.asarray(modular(x=xv), dtype=float) - meas) / meas
        err_c = np.abs(predicted - meas) / meas
        probes = ["nop", "touch", "pipe(touch, touch)", *([f"tpool_{level_k}(touch)"] if level_k > 1 else [])]
        # a program with more workers than cores waits for them by design: only its parts count
        involved = [*([str(term)] if n <= cores else []), *term.components(), *probes]
        share_x = np.array([max((shares.get((index[t], v), 0.0) for t in involved if t in index), default=0.0)
                            for v in xs])
        share = float(share_x.max())
        disturbed = share > DISTURBED_SHARE or any(
            target.disturbed_runs.get((index[t], v), 0) for t in involved if t in index for v in xs)
        interval = calibrated.interval(x=xv, level=level) if resamples > 1 else None
        low, high = (predicted, predicted) if interval is None else interval
        low, high = measurement_interval(predicted, np.asarray(low), np.asarray(high),
                                         share_x if disturbed else 0.0)
        comparisons.append(Comparison(str(term), n, xs, measured, monolithic, modular, calibrated,
                                      lead_error(modular, monolithic), tuple(map(float, err_p)),
                                      tuple(map(float, err_c)), tuple(map(float, low)), tuple(map(float, high)),
                                      level, float(share), bool(disturbed)))
    comparisons = with_operator_error(comparisons, level)
    return Study(tuple(comparisons), hot, concurrent, overheads, tuple(skipped), xs, rounds, count, workers,
                 {str(t): tuple(float(np.median(v)) for v in series(str(t))) for t in stream},
                 retaken + target.retaken, target.kept_disturbed, dense,
                 {p: _experiment(p, dense, isolated[p]) for p in parts})


#: programs besides the one predicted that :func:`with_operator_error` needs
MIN_OTHERS = 4


def with_operator_error(comparisons: Sequence[Comparison], level: float = 0.9) -> list[Comparison]:
    """Every comparison's interval spanning at least the calibrated operators' own error: the
    ``level`` quantile of |predicted - measured| / predicted over every size of the *other*
    undisturbed programs of the study (leave one out, a jackknife form of conformal prediction:
    a program's interval is set without its own measurement). With fewer than ``MIN_OTHERS``
    such programs the intervals are left as they are."""
    import dataclasses

    errors = {c.configuration: np.abs(np.array(c.measured) * 1e9 - np.asarray(c.calibrated(x=np.array(c.x)), float))
              / np.asarray(c.calibrated(x=np.array(c.x)), float) for c in comparisons if not c.disturbed}
    out = []
    for c in comparisons:
        others = [e for name, e in errors.items() if name != c.configuration]
        if len(others) < MIN_OTHERS or not c.low:
            out.append(c)
            continue
        pooled = np.concatenate(others)
        rank = min(int(np.ceil(level * (len(pooled) + 1))), len(pooled)) - 1
        q = float(np.sort(pooled)[rank])
        predicted = np.asarray(c.calibrated(x=np.array(c.x)), dtype=float)
        low = np.minimum(np.array(c.low), predicted * (1 - q))
        high = np.maximum(np.array(c.high), predicted * (1 + q))
        out.append(dataclasses.replace(c, low=tuple(map(float, low)), high=tuple(map(float, high)),
                                       operator_error=q))
    return out


#: a configuration whose runs (or its parts' and probes') lost more than this share of their
#: time to other work is flagged as disturbed
DISTURBED_SHARE = 0.02


def measurement_interval(predicted: np.ndarray, low: np.ndarray, high: np.ndarray,
                         share: float | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where a measurement of the program should fall: the prediction's interval widened by
    sqrt(2) about the prediction (the measured medians have noise like the parts' medians the
    prediction is built from), and, for a measurement that lost ``share`` of its time to other
    work, stretched to ``low (1 - share)`` ... ``high / (1 - share)``: the program's time and
    its parts' may each be inflated by that much."""
    root2 = np.sqrt(2.0)
    lo = np.maximum(predicted - root2 * (predicted - low), 0.0)  # no time is negative
    hi = predicted + root2 * (high - predicted)
    s = np.clip(share, 0.0, 0.9)
    return lo * (1 - s), hi / (1 - s)
