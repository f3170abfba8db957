"""Modular vs monolithic vs measured (000 section 4): run composed programs, fit them, and set the
prediction from the parts beside the measurement.

Everything is measured in interleaved rounds: every round times each program and each part once
at every size, in a shuffled order, so a slow minute of the machine spreads over all of them
instead of biasing one. Each round is checkpointed; an interrupted study resumes where it stopped.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from perfcompose.bench.runner import CallableTarget, Target, run_sweep
from perfcompose.bench.tasks import TASKS, random_ints, touch, warm_touch
from perfcompose.compose.calibrated import CalibratedComposer, Overheads
from perfcompose.compose.interference import InContext, interference, predict
from perfcompose.compose.interval import interval_of, members_lane
from perfcompose.compose.operators import Composer
from perfcompose.compose.oversubscription import shared
from perfcompose.compose.parser import parse_term
from perfcompose.compose.terms import Component, Pipe, Term
from perfcompose.data.experiment import Experiment, Point, Series
from perfcompose.errors import InputError, PerfcomposeError
from perfcompose.fit import PMNFFitter
from perfcompose.fit.uncertainty import with_uncertainty
from perfcompose.model import Model
from perfcompose.runtime.executor import DISTURBED_SHARE, plan, worker_count
from perfcompose.runtime.target import Period, TermTarget
from perfcompose.validate import in_context as ctx
from perfcompose.validate.held_out import measurement_interval, untrusted, with_held_out_error
from perfcompose.validate.rounds import Rounds, calibration, dense_grid, over_rounds, piped_probe

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class Comparison:
    """One program: its measurement, the model fitted to it, and the models composed from parts."""

    configuration: str
    workers: int
    x: tuple[float, ...]
    #: seconds per data element at each x (the fastest round, :func:`over_rounds`)
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
    #: the half width of the interval, relative to the prediction, that the predictor's errors on
    #: the study's other undisturbed programs give this one (leave it out; the median over the
    #: sizes; :func:`~perfcompose.validate.held_out.with_held_out_error`); 0 where too few others
    #: were measured
    held_out_error: float = 0.0
    #: per x, how far the co-run measurements move the in-context prediction from its parts
    #: composed without them (|ln|, :func:`~perfcompose.compose.interference.interference`);
    #: empty where the program was not composed in context
    interference: tuple[float, ...] = ()
    #: why the prediction cannot be trusted (empty where it can): the parts it is composed from
    #: scattered over the rounds beyond :data:`UNTRUSTED_SPREAD`, or it is not finite
    warning: str = ""

    @property
    def trusted(self) -> bool:
        return not self.warning

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
                "wait_share": self.wait_share, "disturbed": self.disturbed, "held_out_error": self.held_out_error,
                "interference": list(self.interference),
                "trusted": self.trusted, "warning": self.warning}


@dataclass(frozen=True)
class Study:
    """A validation: the programs compared, the parts' models and the executor's overheads."""

    comparisons: tuple[Comparison, ...]
    #: the parts timed in isolation (the papers' atomic models) [ns]
    parts: Mapping[str, Model]
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
    #: the sizes the parts were measured at alone (denser than ``x``)
    part_x: tuple[float, ...] = ()
    #: parts that cost something else on the data they receive in a program than on fresh input
    context_effects: tuple[ctx.ContextEffect, ...] = ()
    #: co-run slowdowns of the worker chains that run at once (a chain beside itself: a pool)
    slowdowns: tuple[ctx.Slowdown, ...] = ()
    #: pools whose threads run one at a time, predicted with processes as workers
    process_options: tuple[ctx.ProcessOption, ...] = ()
    #: what the programs were composed from in context [ns], per size
    in_context: InContext | None = None

    @property
    def width(self) -> float | None:
        """Median over the measured points of the interval's width relative to the prediction."""
        widths = [(h - l) / p for c in self.comparisons if c.low
                  for l, h, p in zip(c.low, c.high, np.asarray(c.calibrated(x=np.array(c.x)), dtype=float))]
        return float(np.median(widths)) if widths else None

    @property
    def coverage(self) -> float | None:
        """Share of measured points inside their predicted intervals (None without intervals)."""
        inside = [v for c in self.comparisons for v in c.inside]
        return float(np.mean(inside)) if inside else None


def _fit(name: str, x: Sequence[float], values: Sequence[Sequence[float]], uncertainty: bool = False) -> Model:
    points = tuple(Point((float(v),), tuple(float(s) * 1e9 for s in vals)) for v, vals in zip(x, values))
    experiment = Experiment(("x",), (Series("time", points, name, "ns"),), source="perfcompose validate")
    model = PMNFFitter(max_terms=1).fit(experiment).model_.with_meta(name=name, unit="ns")
    return with_uncertainty(model, experiment) if uncertainty else model


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
    return None if a is None or b is None or a[0] != b[0] or b[1] == 0 else abs(a[1] - b[1]) / abs(b[1])


#: a timing or run that lost its cores to other work is taken again up to this many times
RETRIES = 3
#: how a run in the executor is summed up (see :func:`~perfcompose.runtime.target.median_period`)
PERIOD: Period = "median"
#: a run in the executor lasts at least this long [s] (more elements where they are short): on
#: a quiet 2-core machine the spread of a program's runs over the rounds fell from 14 % (runs of
#: 10 ms) to 8 % (50-100 ms)
RUN_TIME = 0.05


def checkpoint_dir(base: Path, identity: Mapping[str, Any], study: str = "validate") -> Path:
    """A folder of checkpoints named by the study and what it measures, so a rerun resumes and
    another study never mixes with it."""
    digest = hashlib.sha1(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:12]
    return base / f"{study}-{digest}"


class _Progress:
    """Counts the timings done over the whole study for one progress bar."""

    def __init__(self, progress: Progress | None, total: int) -> None:
        self.progress, self.total, self.done = progress, total, 0

    def step(self, label: str, first: Callable[[], None] | None = None) -> Callable[..., None]:
        """A sweep's progress callback under ``label`` (calling ``first`` before each report)."""
        def report(k: int, _n: int, _c: tuple[float, ...]) -> None:
            if first is not None:
                first()
            if self.progress is not None:
                self.progress(label, self.done + k, self.total)
        return report


def _components(functions: Mapping[str, Callable[[Any], Any]] | None) -> dict[str, Callable[[Any], Any]]:
    """The study's components (default: the reference tasks), with the probes nop and touch,
    the reference kernels compiled."""
    chosen = dict(functions) if functions is not None else {n: TASKS[n].run for n in ("nop", "inc", "qsort")}
    chosen.setdefault("nop", TASKS["nop"].run)
    chosen.setdefault("touch", touch)
    if chosen["touch"] is touch:
        warm_touch()
    for name in ("nop", "inc", "qsort"):
        if chosen.get(name) is TASKS[name].run:
            TASKS[name].warm()
    return chosen


def _fitting(configurations: Sequence[str | Term], functions: Mapping[str, Callable[[Any], Any]],
             limit: int) -> tuple[list[tuple[Term, int]], list[tuple[str, str]]]:
    """The configurations with their worker counts that fit ``limit`` workers, and the others
    with why they are skipped."""
    terms = [parse_term(c, components=functions) if isinstance(c, str) else c for c in configurations]
    counted = [(term, worker_count(plan(term, functions))) for term in terms]
    kept = [(term, n) for term, n in counted if n <= limit]
    skipped = [(str(term), f"{n} workers, {limit} cores") for term, n in counted if n > limit]
    if not kept:
        raise PerfcomposeError("no configuration fits this machine: "
                               + "; ".join(f"{c}: {why}" for c, why in skipped))
    return kept, skipped


def pipe_stages(terms: Sequence[Term]) -> list[str]:
    """The components that run as a stage of a pipe on their own in any of ``terms``."""
    return sorted({side.name for term in terms for node in term.walk() if isinstance(node, Pipe)
                   for side in node.children() if isinstance(side, Component)})


def _stream(parts: Sequence[str], kept: Sequence[tuple[Term, int]], levels: Sequence[int],
            context: ctx.ContextPlan) -> list[Term]:
    """Everything run in the rounds, once each: the parts in the executor, the probes (nop,
    touch, a pipe of touches, touch pools at every concurrency, every pipe stage in front of a
    touch stage), the programs and what the programs need measured in context."""
    staged = pipe_stages([t for t, _ in kept])
    calibration = [Component("nop"), Component("touch"), parse_term("pipe(touch, touch)"),
                   *(parse_term(f"tpool_{k}(touch)") for k in levels if k > 1),
                   *(parse_term(piped_probe(p)) for p in staged)]
    stream: dict[str, Term] = {}
    in_context = [*(Component(p) for p in context.parts), *(ctx.feeding_probe(s) for s in context.feeding),
                  *(ctx.fed_probe(s) for s in context.fed), *(ctx.queue_probe(n) for n in context.widths)]
    for term in [*(Component(p) for p in parts), *calibration, *(t for t, _ in kept), *in_context]:
        stream.setdefault(str(term), term)
    return list(stream.values())


def _setup(name: str, function: Callable[[Any], Any], make: Callable[[float], Any]) -> Callable[[float], tuple]:
    """How a part timed alone gets its input: a reference task on the default input as Table 1
    times it (nop on an untouched array: writing a fresh input right before the timed call
    evicts the caches, and nop then seems to grow with x), any other part on ``make(x)``."""
    task = TASKS.get(name)
    if task is not None and function is task.run and make is random_ints:
        return task.setup
    return lambda x: (make(x),)


def _time_parts_alone(parts: Sequence[str], functions: Mapping[str, Callable[[Any], Any]],
                      make: Callable[[float], Any], dense: Sequence[float], rounds: int, reps: int,
                      folder: Path | None, restart: bool, bar: _Progress) -> tuple[dict[str, list[list[float]]], int]:
    """Every part timed alone on the dense grid [s], and how many timings were taken again."""
    isolated: dict[str, list[list[float]]] = {}
    retaken = 0
    for p in parts:
        alone = CallableTarget(functions[p], _setup(p, functions[p], make), label=p,
                               retry_preempted=RETRIES, cpu_when_preempted=True)
        res = run_sweep(alone, {"x": tuple(dense)}, reps=reps, rounds=rounds, warmup=1, restart=restart,
                        checkpoint=folder / f"isolated-{p}.jsonl" if folder else None,
                        identity={"target": p}, progress=bar.step(f"{p} alone"))
        failed = next((v for v in dense if (v,) not in res.values), None)
        if failed is not None:
            why = res.failures.get((failed,))
            raise InputError(f"{p} timed alone failed at x = {failed:g}" + (f": {why.message}" if why else ""),
                             hint="choose sizes (--x) its input and its stage handle")
        isolated[p] = [res.values[(v,)] for v in dense]
        bar.done += len(dense) * rounds
        retaken += alone.preempted + alone.cpu_kept
    return isolated, retaken


def save_disturbance(target: TermTarget, path: Path) -> None:
    """The runs' disturbance so far (per term index and size: the largest share of a run lost to
    other work, and the number of runs disturbed in every retake), next to the checkpoints, so
    a resumed study flags what an earlier invocation measured on a busy machine."""
    keys = sorted(set(target.wait_share) | set(target.disturbed_runs))
    points = [[k, x, target.wait_share.get((k, x), 0.0), target.disturbed_runs.get((k, x), 0)] for k, x in keys]
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"points": points}))
    os.replace(tmp, path)


def load_disturbance(target: TermTarget, path: Path) -> None:
    """What :func:`save_disturbance` wrote, into ``target`` (nothing if there is no such file)."""
    try:
        points = json.loads(path.read_text())["points"]
    except FileNotFoundError:
        return
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(f"cannot read the runs' disturbance ({exc})", path=path,
                         hint="measure again with --restart") from None
    for k, x, share, disturbed in points:
        key = (int(k), float(x))
        target.wait_share[key] = max(target.wait_share.get(key, 0.0), float(share))
        if disturbed:
            target.disturbed_runs[key] = target.disturbed_runs.get(key, 0) + int(disturbed)


def _run_rounds(target: Target, executor: TermTarget, labels: Sequence[str], xs: Sequence[float], rounds: int,
                identity: Mapping[str, Any], folder: Path | None, restart: bool,
                bar: _Progress) -> dict[tuple[int, float], list[float]]:
    """Every entry of ``labels`` at every size, once per round in a shuffled order [s]."""
    runs: dict[tuple[int, float], list[float]] = {}
    flags = folder / "disturbance.json" if folder else None
    if flags is not None and not restart:
        load_disturbance(executor, flags)
    save = None if flags is None else functools.partial(save_disturbance, executor, flags)
    for r in range(rounds):
        res = run_sweep(target, {"term": tuple(float(k) for k in range(len(labels))), "x": tuple(xs)}, reps=1,
                        warmup=0, seed=r, restart=restart,
                        checkpoint=folder / f"round-{r}.jsonl" if folder else None,
                        identity={**identity, "round": r}, progress=bar.step(f"round {r + 1}/{rounds}", save))
        if res.failures:
            coord, failure = next(iter(res.failures.items()))
            raise PerfcomposeError(f"{labels[int(coord[0])]} failed at x={coord[1]:g}: {failure.message}")
        for (k, v), vals in res.values.items():
            runs.setdefault((int(k), v), []).extend(vals)
        bar.done += len(labels) * len(xs)
    return runs


@dataclass(frozen=True)
class _Judge:
    """What a comparison is judged with: the operators, the rounds and the runs' disturbance."""

    paper_ops: Composer
    calibrated_ops: Mapping[int, CalibratedComposer]
    rounds: Rounds
    #: the target that ran them, with the runs' disturbance per (term index, x) (``wait_share``
    #: and ``disturbed_runs``)
    target: TermTarget
    cores: int
    level: float
    members: bool
    #: the programs in context, and what they are composed from (central, and per member)
    context: ctx.ContextPlan | None = None
    in_context: InContext | None = None
    in_context_members: InContext | None = None

    def _named(self, term: Term) -> tuple[Term, InContext] | None:
        """The program's context-named term and what it is composed from; None where the program
        was not planned in context (more workers than cores)."""
        if self.context is None or self.in_context is None or str(term) not in self.context.programs:
            return None
        return self.context.programs[str(term)], self.in_context

    def predicted_in_context(self, term: Term) -> Model | None:
        """The program composed from its parts measured in context with their co-run slowdowns
        (:mod:`perfcompose.compose.interference`), carrying the bootstrap's members; None where
        the program was not planned so."""
        if (planned := self._named(term)) is None:
            return None
        named, central = planned
        members = None if self.in_context_members is None else predict(named, self.in_context_members)
        return self.rounds.predicted(str(term), predict(named, central), members)

    def moved(self, term: Term) -> tuple[float, ...]:
        """Per x, how far the co-run measurements move the program's in-context prediction
        (:func:`~perfcompose.compose.interference.interference`); empty where it was not planned so."""
        planned = self._named(term)
        return () if planned is None else tuple(map(float, interference(*planned)))

    def share(self, term: Term, n: int, level_k: int) -> tuple[np.ndarray, bool]:
        """Per x, the largest share of a run that other work took, over the program (unless it
        has more workers than cores, when it waits by design), its parts and the probes; and
        whether the configuration counts as disturbed."""
        probes = ["nop", "touch", "pipe(touch, touch)", *([f"tpool_{level_k}(touch)"] if level_k > 1 else []),
                  *(piped_probe(p) for p in pipe_stages([term]))]
        involved = [t for t in [*([str(term)] if n <= self.cores else []), *term.components(), *probes]
                    if t in self.rounds.index]
        shares, runs = self.target.wait_share, self.target.disturbed_runs
        share_x = np.array([max((shares.get((self.rounds.index[t], v), 0.0) for t in involved), default=0.0)
                            for v in self.rounds.xs])
        disturbed = float(share_x.max()) > DISTURBED_SHARE or any(
            runs.get((self.rounds.index[t], v), 0) for t in involved for v in self.rounds.xs)
        return share_x, bool(disturbed)

    def compare(self, term: Term, n: int) -> Comparison:
        """The program's measurement beside its fit and its predictions from the parts."""
        xs = self.rounds.xs
        values = self.rounds.series(str(term))
        measured = tuple(float(over_rounds(v)) for v in values)
        level_k = min(n, self.cores)
        # each set of operators composes the program once: the model, its members and, where the
        # workers share the cores, the floor of the total work over the cores read the same tree
        paper = self.paper_ops.evaluate(term)
        modular = shared(paper, paper.model.with_meta(name=str(term), source="composed"), self.cores)[0]
        calibrated = self.predicted_in_context(term) if n <= self.cores else None
        if calibrated is None:
            ops = self.calibrated_ops[level_k]
            lane = members_lane(ops, term) if self.members else None
            tree = ops.evaluate(term, () if lane is None else (lane,))
            calibrated = shared(tree, interval_of(tree, tree.model.with_meta(name=str(term), source="composed")),
                                self.cores)[0]
        xv = np.array(xs)
        meas = np.array(measured) * 1e9
        predicted = np.asarray(calibrated(x=xv), dtype=float)
        err_p = np.abs(np.asarray(modular(x=xv), dtype=float) - meas) / meas
        err_c = np.abs(predicted - meas) / meas
        share_x, disturbed = self.share(term, n, level_k)
        interval = calibrated.interval(x=xv, level=self.level) if self.members else None
        low, high = (predicted, predicted) if interval is None else interval
        warning = untrusted(predicted, np.asarray(low), np.asarray(high))
        moved = self.moved(term) if n <= self.cores else ()
        low, high = measurement_interval(predicted, np.asarray(low), np.asarray(high))
        monolithic = _fit(str(term), xs, values)
        return Comparison(str(term), n, xs, measured, monolithic, modular, calibrated, lead_error(modular, monolithic),
                          tuple(map(float, err_p)), tuple(map(float, err_c)), tuple(map(float, low)),
                          tuple(map(float, high)), self.level, float(share_x.max()), disturbed, warning=warning,
                          interference=moved)


def study(configurations: Sequence[str | Term], x: Sequence[float], *, rounds: int, count: int,
          workers: str = "threads", functions: Mapping[str, Callable[[Any], Any]] | None = None,
          make: Callable[[float], Any] | None = None, max_workers: int | None = None,
          checkpoints: Path | None = None, restart: bool = False, progress: Progress | None = None,
          part_rounds: int = 11, part_reps: int = 3, per_octave: int = 4, resamples: int = 200,
          level: float = 0.9, seed: int = 0) -> Study:
    """Run every configuration over ``x``, fit it, and compare with the models composed from its parts.

    The parts are timed alone on a denser grid than the programs (:func:`dense_grid`,
    ``per_octave`` sizes per power of two, ``part_rounds`` rounds of ``part_reps``: Table 1's
    quick measurement), so their fitted classes are as sure as Table 1's. A run in the executor
    counts the median pace of its steady state (:func:`~perfcompose.runtime.target.median_period`),
    so a moment in which the machine took a core away does not move the whole run. Every
    calibrated prediction carries a ``level`` interval: ``resamples`` bootstrap resamples of the
    rounds (the same rounds for every part, probe and program) composed by the calibrated
    operators, widened by sqrt(2) for the noise of the measurement it is compared with, and by
    the share of the runs that other work took (:attr:`Comparison.wait_share`) where that share
    is large.

    ``functions`` are the components (default: the reference tasks nop, inc, qsort) and ``make(x)``
    builds one data element (default: x random 32-bit ints). Configurations with more workers than
    ``max_workers`` (default: this machine's cores) are skipped and listed.
    """
    functions = _components(functions)
    make = make or random_ints
    if rounds < 1 or count < 2:
        raise PerfcomposeError("need at least one round and two elements per run")
    xs = tuple(sorted({float(v) for v in x}))
    if len(xs) < 3:
        raise PerfcomposeError(f"need at least 3 input sizes to fit a model, got {len(xs)}: "
                               "give e.g. --x 1024:262144 (the powers of two in between)")
    kept, skipped = _fitting(configurations, functions, max_workers or os.cpu_count() or 1)
    parts = sorted({c for term, _ in kept for c in term.components()})
    cores = os.cpu_count() or 1
    levels = sorted({min(n, cores) for _, n in kept} | {1})
    context = ctx.plan_context([t for t, n in kept if n <= cores])
    if workers == "processes":  # the co-run harness runs threads: its locks are not the processes'
        context = dataclasses.replace(context, pairs=())
    functions = ctx.with_context_functions(functions, context)
    stream = _stream(parts, kept, levels, context)
    target = TermTarget(stream, functions, make, count=count, workers=workers, retry_disturbed=RETRIES,
                        period=PERIOD, min_time=RUN_TIME, makers=ctx.makers(stream, functions, make))
    # the co-runs' disturbance goes with the executor's runs', and is saved and resumed with it
    extra, corun = ctx.round_entries(context, stream, functions, make, RETRIES, target.wait_share)
    labels = [str(t) for t in stream] + extra
    dense = dense_grid(xs, per_octave)
    identity = {"terms": labels, "x": list(xs), "count": count, "workers": workers,
                "period": PERIOD, "run_time": RUN_TIME,
                "parts": {"x": list(dense), "rounds": part_rounds, "reps": part_reps, "setup": "table1"}}
    folder = checkpoint_dir(checkpoints, identity) if checkpoints is not None else None
    bar = _Progress(progress, len(parts) * len(dense) * part_rounds + rounds * len(labels) * len(xs))
    isolated, retaken = _time_parts_alone(parts, functions, make, dense, part_rounds, part_reps, folder,
                                          restart, bar)
    runs = _run_rounds(ctx.RoundTarget(target, corun), target, labels, xs, rounds, identity, folder,
                       restart, bar)
    index = {label: k for k, label in enumerate(labels)}
    width = min(len(runs[(k, v)]) for k in range(len(labels)) for v in xs)
    picks = np.random.default_rng(seed).integers(0, width, size=(max(resamples, 1), width))
    measured_rounds = Rounds(runs, index, xs, picks)
    members = resamples > 1
    hot = {p: _fit(p, dense, isolated[p], uncertainty=members) for p in parts}
    concurrent, overheads, piped = calibration(measured_rounds, parts, levels, members)
    has = index.__contains__
    def lost(label: str) -> np.ndarray:
        return np.array([target.wait_share.get((index[label], v), 0.0) for v in xs])

    central = ctx.measured(context, measured_rounds.matrix, has, lambda m: over_rounds(m, axis=1), lost)
    spread = ctx.measured(context, measured_rounds.matrix, has, measured_rounds.resampled, lost,
                          measured_rounds.resampled_median) if members else None
    judge = _Judge(Composer(hot, pipe="asymptotic"),
                   {k: CalibratedComposer(concurrent[k], pipe="pointwise", hot=hot, overheads=overheads,
                                          piped=piped.get(k, {}), stages=concurrent[1])
                    for k in levels},
                   measured_rounds, target, cores, level, members, context, central, spread)
    comparisons = with_held_out_error([judge.compare(term, n) for term, n in kept], level)
    predicted = {c.configuration: np.asarray(c.calibrated(x=np.array(xs)), dtype=float) for c in comparisons}
    return Study(tuple(comparisons), hot, overheads, tuple(skipped), xs, rounds, count, workers,
                 {label: tuple(float(over_rounds(v)) for v in measured_rounds.series(label)) for label in labels},
                 retaken + target.retaken + corun.retaken, target.kept_disturbed + corun.kept_disturbed, dense,
                 tuple(ctx.context_effects(context, measured_rounds.matrix, has, xs, lambda m: over_rounds(m, axis=1))),
                 tuple(ctx.slowdowns(central)),
                 tuple(ctx.process_options(context, central, predicted, functions, make, xs)), central)
