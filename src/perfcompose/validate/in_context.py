"""The measurements a program is predicted from in context, and what they show.

For the programs of a study this lists what to time besides the parts on fresh input: every
part on the data it receives in a program (as one worker in the executor), every pair of worker
chains that run at once side by side and each such chain alone in the same harness, and the pipe
stages in their wake-up probe. The rounds of the study time them interleaved with the programs;
:func:`measured` turns the rounds into :class:`~perfcompose.compose.interference.InContext`
values, one per bootstrap member too.
"""
from __future__ import annotations

import functools
import pickle
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from perfcompose.bench.runner import Target
from perfcompose.compose.context import (
    Stage,
    base_name,
    chain,
    in_context,
    pipe_stages,
    predecessors,
    prepared,
    side_by_side,
)
from perfcompose.compose.interference import InContext, predict
from perfcompose.compose.terms import Component, Pipe, Term, TPool, seq
from perfcompose.runtime.corun import CoRunTarget
from perfcompose.runtime.executor import DISTURBED_SHARE
from perfcompose.runtime.target import TermTarget
from perfcompose.validate.rounds import median_round

#: a part's time in context differs from its time on fresh input when the ratio is beyond
#: 1 + this, or its logarithm beyond three times the spread of its rounds, whichever is larger
NOTABLE = 0.05


def corun_name(a: Stage, b: Stage | None) -> str:
    return f"corun:{a}|{b}" if b is not None else f"solo:{a}"


def concurrency_name(a: Stage, b: Stage | None) -> str:
    return f"cores:{a}|{b}" if b is not None else f"cores:{a}"


def chain_term(stage: Stage) -> Term:
    """A chain of context parts as a term: the part, or a ``seq`` of them."""
    return Component(stage.parts[0]) if len(stage.parts) == 1 else seq(*stage.parts)


def feeding_probe(stage: Stage) -> Term:
    """``pipe(stage, touch)``: a first stage that wakes an idle next stage for every element."""
    return Pipe(chain_term(stage), Component("touch"))


def queue_probe(width: int) -> Term:
    """``tpool_n(nop)``: n workers taking elements from one queue, with nothing to do."""
    return TPool(width, Component("nop"))


def fed_probe(stage: Stage) -> Term:
    """``pipe(nop, stage)``: a later stage that is always fed, and wakes the stage before it
    (blocked on a full queue) for every element it takes."""
    return Pipe(Component("nop"), chain_term(stage))


@dataclass(frozen=True)
class ContextPlan:
    """What the programs of a study need measured in context."""

    #: each program (as written) in context names
    programs: Mapping[str, Term]
    #: context parts that receive another part's output (run in the executor on that output)
    parts: tuple[str, ...]
    pairs: tuple[tuple[Stage, Stage], ...]
    #: chains that are the first stage of a pipe (timed in :func:`feeding_probe`)
    feeding: tuple[Stage, ...]
    #: chains that are a later stage of a pipe (timed in :func:`fed_probe`)
    fed: tuple[Stage, ...]

    @property
    def widths(self) -> tuple[int, ...]:
        """The widths of the pools of a chain."""
        return tuple(sorted({t.threads for p in self.programs.values() for t in p.walk()
                             if isinstance(t, TPool) and isinstance(t.threads, int) and t.threads > 1
                             and chain(t.body) is not None}))


def plan_context(terms: Sequence[Term]) -> ContextPlan:
    programs = {str(t): in_context(t) for t in terms}
    names = list(dict.fromkeys(c for t in programs.values() for c in t.components()))
    pipes = [[chain(s) for s in pipe_stages(node)] for t in programs.values() for node in t.walk()
             if isinstance(node, Pipe)]
    feeding = [Stage(stages[0]) for stages in pipes if stages[0] is not None]
    fed = [Stage(s) for stages in pipes for s in stages[1:] if s is not None]
    pairs = [p for t in programs.values() for p in side_by_side(t)]
    return ContextPlan(programs, tuple(n for n in names if predecessors(n)), tuple(dict.fromkeys(pairs)),
                       tuple(dict.fromkeys(feeding)), tuple(dict.fromkeys(fed)))


def with_context_functions(functions: Mapping[str, Callable[[Any], Any]],
                           plan: ContextPlan) -> dict[str, Callable[[Any], Any]]:
    """The study's functions, every context name running its part's function."""
    return {**{c: functions[base_name(c)] for t in plan.programs.values() for c in t.components()}, **functions}


def makers(stream: Sequence[Term], functions: Mapping[str, Callable[[Any], Any]],
           make: Callable[[float], Any]) -> dict[int, Callable[[float], Any]]:
    """Per stream index, how a run of a context part (or its probe) gets its elements."""
    out: dict[int, Callable[[float], Any]] = {}
    for k, term in enumerate(stream):
        if isinstance(term, Pipe) and term.first == Component("nop"):
            term = term.second  # nop hands the element on as it is
        first = next(iter(term.components()), "")
        if predecessors(first):
            out[k] = prepared(make, functions, first)
    return out


class RoundTarget(Target):
    """One target for a study's rounds: the point's ``term`` index picks a run in the executor
    or a co-run."""

    def __init__(self, executor: TermTarget, corun: CoRunTarget) -> None:
        self.executor, self.corun = executor, corun
        self.label = "validate"

    def measure(self, point: Mapping[str, float]) -> float:
        if int(point["term"]) < len(self.executor.terms):
            return self.executor.measure(point)
        return self.corun.measure(point)


def round_entries(plan: ContextPlan, stream: Sequence[Term], functions: Mapping[str, Callable[[Any], Any]],
                  make: Callable[[float], Any], retries: int,
                  shares: dict[tuple[int, float], float] | None = None) -> tuple[list[str], CoRunTarget]:
    """The names of the rounds' entries beyond the executor's ``stream`` and the co-run target
    (its sides indexed after the stream's; it records the share of each co-run that other
    programs took in ``shares``, per entry index and size)."""
    solos = dict.fromkeys(a for a, _ in plan.pairs)
    runs: list[tuple[Stage, Stage | None]] = [*plan.pairs, *((s, None) for s in solos)]
    stages = [[a] if b is None else [a, b] for a, b in runs]
    sides = [[[functions[base_name(p)] for p in s.parts] for s in run] for run in stages]
    feeds = [[prepared(make, functions, s.parts[0]) for s in run] for run in stages]
    names = [corun_name(a, b) for a, b in runs]
    # the cores two copies of a chain keep busy, and the chain alone: a lock is where they are the same
    concurrent = [(i, runs.index((a, None))) for i, (a, b) in enumerate(runs) if a == b]
    for i, _ in concurrent:
        names.extend([concurrency_name(runs[i][0], runs[i][0]), concurrency_name(runs[i][0], None)])
    corun = CoRunTarget(sides, feeds, offset=len(stream),
                        concurrent=[k for pair in concurrent for k in pair], retries=retries,
                        wait_share={} if shares is None else shares)
    return names, corun


def measured(plan: ContextPlan, matrix: Callable[[str], np.ndarray], has: Callable[[str], bool],
             reduce: Callable[[np.ndarray], np.ndarray],
             lost: Callable[[str], np.ndarray] | None = None,
             typical: Callable[[np.ndarray], np.ndarray] = lambda v: median_round(v, axis=1)) -> InContext:
    """The plan's measurements [ns] from the rounds: ``matrix(name)`` is an entry's runs [s]
    (sizes, rounds) and ``reduce`` sums the rounds up (the study's statistic, or its bootstrap
    members). A chain's slowdown beside a copy of itself is the reduced co-run over the reduced
    solo (the co-run's reading is already the copies' pooled period); beside another chain it is
    ``typical`` (:func:`~perfcompose.validate.rounds.median_round`, or its bootstrap members) of
    the round-by-round ratio of co-run to solo: two chains that share a lock share it unevenly
    from run to run, so each chain's fastest co-run is the run in which it held the lock longest,
    and the two fastest are from different runs (a pipe of two such stages was then predicted
    10-20 % fast). ``lost(name)`` is
    the largest share of an entry's runs per size that other programs took: two copies of a
    chain side by side count as :attr:`InContext.together` only where it is at most
    ``DISTURBED_SHARE`` (each copy runs pinned to a core, where another program's work stalls
    it as it would not stall a pool's workers, free to move)."""
    def ns(name: str) -> np.ndarray:
        return reduce(matrix(name)) * 1e9

    parts = {c for t in plan.programs.values() for c in t.components()}
    executor = {p: ns(p) for p in parts if has(p)}
    def slowdown(a: Stage, b: Stage) -> np.ndarray:
        beside, alone = matrix(corun_name(a, b)), matrix(corun_name(a, None))
        if a == b:
            return np.maximum(reduce(beside) / reduce(alone), 1.0)
        return np.maximum(typical(beside / alone), 1.0)

    slowdowns = {(a, b): slowdown(a, b) for a, b in plan.pairs}
    feeding = {s: ns(str(feeding_probe(s))) for s in plan.feeding if has(str(feeding_probe(s)))}
    fed = {s: ns(str(fed_probe(s))) for s in plan.fed if has(str(fed_probe(s)))}
    floor = ns("pipe(touch, touch)") if has("pipe(touch, touch)") else None
    queue = {n: np.maximum(n * ns(str(queue_probe(n))) - ns("nop"), 0.0) for n in plan.widths
             if has(str(queue_probe(n))) and has("nop")}
    copies = [a for a, b in plan.pairs if a == b and has(concurrency_name(a, a)) and has(concurrency_name(a, None))]
    concurrency = {a: reduce(matrix(concurrency_name(a, a))) / np.maximum(reduce(matrix(concurrency_name(a, None))),
                                                                          1e-9) for a in copies}
    cores = {a: reduce(matrix(concurrency_name(a, None))) for a in copies}
    together = {a: np.where(lost(corun_name(a, a)) > DISTURBED_SHARE, np.nan, ns(corun_name(a, a)))
                for a, b in plan.pairs if a == b and lost is not None and has(corun_name(a, a))}
    return InContext(executor, slowdowns, floor, feeding, fed, queue, concurrency, cores, together)


@dataclass(frozen=True)
class ContextEffect:
    """A part whose time on the data it receives in a program differs from its time on fresh
    input: ``ratio`` in context over fresh, the largest over the sizes."""

    part: str
    ratio: float
    x: float

    def to_json(self) -> dict[str, Any]:
        return {"part": self.part, "ratio": self.ratio, "x": self.x}


@dataclass(frozen=True)
class Slowdown:
    """Chain ``a`` beside chain ``b``: its co-run slowdown (median and range over the sizes)."""

    a: str
    b: str
    median: float
    low: float
    high: float
    locked: bool = False
    #: the median over the sizes of the neighbour's time over the chain's (at most 1)
    share: float = 1.0
    #: the chain brings threads of its own (copies of it oversubscribe the cores)
    threaded: bool = False

    @property
    def notable(self) -> bool:
        """Whether the pair changes the program's time: a lock, or a median slowdown beyond 5 %
        from a neighbour that runs for at least a tenth of the chain's time."""
        return self.locked or (self.median > 1.05 and self.share >= 0.1)

    def to_json(self) -> dict[str, Any]:
        return {"stage": self.a, "beside": self.b, "median": self.median, "low": self.low, "high": self.high,
                "locked": self.locked, "share": self.share, "threaded": self.threaded}


def context_effects(plan: ContextPlan, matrix: Callable[[str], np.ndarray], has: Callable[[str], bool],
                    xs: Sequence[float], reduce: Callable[[np.ndarray], np.ndarray]) -> list[ContextEffect]:
    """The context parts whose executor time differs from their part's on fresh input beyond
    noise (:data:`NOTABLE`, or three times the spread of either's rounds)."""
    out = []
    for p in plan.parts:
        fresh = base_name(p)
        if not (has(p) and has(fresh)):
            continue
        a, b = matrix(p), matrix(fresh)
        ratio = reduce(a) / reduce(b)
        spread = max(_spread(a), _spread(b))
        k = int(np.argmax(np.abs(np.log(ratio))))
        # on a log scale, so that a part five times faster in context is as plain as one five
        # times slower: 1 - ratio never exceeds 1, however far the ratio falls
        if abs(np.log(ratio[k])) > max(np.log1p(NOTABLE), 3 * spread):
            out.append(ContextEffect(p, float(ratio[k]), float(xs[k])))
    return out


def _spread(runs: np.ndarray) -> float:
    """The median over sizes of the rounds' interquartile range relative to their median."""
    q1, q2, q3 = np.quantile(runs, [0.25, 0.5, 0.75], axis=1)
    return float(np.median((q3 - q1) / np.maximum(q2, 1e-12)))


def slowdowns(m: InContext) -> list[Slowdown]:
    """Every pair's slowdown, with the share of the chain's time that its neighbour runs (a
    neighbour far shorter than the chain idles in the program most of the time, however much a
    back-to-back run of it slows the chain down)."""
    out = []
    for (a, b), f in m.slowdown.items():
        values = np.asarray(f, dtype=float)
        ta, tb = predict(chain_term(a), m), predict(chain_term(b), m)
        share = float(np.median(np.minimum(tb / np.maximum(ta, 1e-12), 1.0)))
        out.append(Slowdown(str(a), str(b), float(np.median(values)), float(values.min()), float(values.max()),
                            a == b and m.locked(a), share, m.threaded(a)))
    return out


@dataclass(frozen=True)
class ProcessOption:
    """A pool of a chain that runs one copy at a time on threads, predicted on processes: its
    chain's time over the width plus the element's round trip through pickle."""

    program: str
    threads: np.ndarray   #: [ns] per size, as measured in context on threads
    processes: np.ndarray  #: [ns] per size

    def to_json(self, xs: Sequence[float]) -> dict[str, Any]:
        return {"program": self.program, "x": list(xs), "threads_ns": self.threads.tolist(),
                "processes_ns": self.processes.tolist()}


def round_trip(element: Any, output: Any, reps: int = 3) -> float:
    """Seconds to pickle an element to a worker process and its result back (the least of ``reps``)."""
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        pickle.loads(pickle.dumps(element, protocol=pickle.HIGHEST_PROTOCOL))
        pickle.loads(pickle.dumps(output, protocol=pickle.HIGHEST_PROTOCOL))
        best = min(best, time.perf_counter() - t0)
    return best


def process_options(plan: ContextPlan, m: InContext, predicted: Mapping[str, np.ndarray],
                    functions: Mapping[str, Callable[[Any], Any]], make: Callable[[float], Any],
                    xs: Sequence[float]) -> list[ProcessOption]:
    """For every program that is a pool of a chain whose copies run one at a time, what it would
    take with processes as workers (no lock between processes; each element pickled there and
    back, measured here)."""
    out = []
    for name, term in plan.programs.items():
        if not (isinstance(term, TPool) and isinstance(term.threads, int) and term.threads > 1):
            continue
        body = chain(term.body)
        if body is None or not m.locked(Stage(body)):
            continue
        element = prepared(make, functions, body[0])
        trips = [round_trip(element(x), functools.reduce(lambda data, p: functions[base_name(p)](data), body,
                                                         element(x))) * 1e9 for x in xs]
        alone = predict(term.body, m)
        out.append(ProcessOption(name, predicted[name], alone / term.threads + np.array(trips)))
    return out
