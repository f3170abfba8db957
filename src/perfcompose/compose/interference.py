"""Composition with parts measured in context and their co-run slowdowns.

The papers' operators assume that a part costs the same wherever it runs and that parts running
at once do not disturb each other. Here every part is the one inside the program (its context
name, :mod:`perfcompose.compose.context`, timed on the data it receives there) and every pair of
worker chains that run at once carries its measured co-run slowdown ``F[a|b]`` (chain a's call
beside chain b over a's call alone, :mod:`perfcompose.runtime.corun`):

* a chain ``seq(c1, ..., ck)`` in one worker: ``E[c1] + ... + E[ck]``, with ``E`` a part as one
  worker in the executor on the data it receives in the program;
* ``tpool_n(S)`` of a chain: ``(C[S] F[S|S] + Q_n) / n``; a chain whose copies cannot run in
  parallel (a lock, the GIL) runs about one copy at a time: one worker's time, slower by
  a share of the convoy two copies side by side show, ``C[S] + s(C[S]) max(T[S||S] / 2 - C[S], 0)
  + Q_n / n`` with ``T[S||S]`` each copy's time per call in that co-run (every hand-over wakes the
  waiting thread; a chain of short NumPy calls that releases the GIL in each pays it many times
  per element) and ``s`` the share a pool shows, larger for longer calls (its workers hand the
  lock over at every element, :func:`convoy_share`); where the copies side by side were faster
  than twice one alone (the chain holds the lock for part of its call), faster by the share of
  that gain that the cores they kept busy together say was parallel (:func:`parallel_share`);
  ``Q_n = n T[tpool_n(nop)] - T[nop]`` is what n workers on one queue add to an element;
* ``pipe(S1, ..., Sm)``: time sharing. A bottleneck stage b is busy all the time; every other
  stage a is busy for ``C[a] F[a|b]`` of it, and slows b down by the share ``1 - 1/F[b|a]``
  meanwhile: ``P_b = C[b] + sum_a C[a] F[a|b] (1 - 1/F[b|a])``, where every ``C[a] F[a|b]``
  fits in ``P_b`` (else a, not b, is the bottleneck); the period is the largest such ``P_b``.
  Two stages that hold the GIL throughout (F = 2) then take ``C[a] + C[b]``, stages that do not
  meet (F = 1) the larger one. A later stage adds what it pays when it is always fed (its
  ``pipe(nop, stage)`` probe less its own time: it wakes the stage before it, blocked on a full
  queue) for the share of the time that stage is blocked; a first stage adds the wake-up of the
  next one (its ``pipe(stage, touch)`` probe less its own time) for the share of the time the
  next stage idles; a pipe without such a probe runs no faster than a pipe of the cheapest stages;
* ``seq`` of parallel parts: one after the other.

Values are arrays over the sizes (with a leading member axis for a bootstrap), so one call
composes the prediction and every member of its interval.
"""
from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from perfcompose.compose.context import Stage, chain, pipe_stages, stage_chain
from perfcompose.compose.terms import Pipe, Seq, Term, TPool
from perfcompose.errors import ModelError

#: a chain whose copies beside each other take at least this share of the pool's width longer
#: runs them one at a time (a lock): 2 copies at >= 1.6x their call alone
LOCKED = 0.8
#: two copies of a chain that together keep at most this many times the cores busy (or wait for
#: them) that the chain alone does take turns at a lock: a measure that other programs on the
#: machine leave alone, since a thread waiting for a core counts as much as one running
TURNS = 1.5
#: a chain that alone keeps more than this many cores busy runs threads of its own
OWN_THREADS = 1.3
#: of the convoy two copies side by side show (each slower per call than twice the chain alone),
#: the share a pool's workers show: this much for a chain of ``CONVOY_CALL`` ns alone, ``CONVOY_SLOPE``
#: more per tenfold longer call, within ``CONVOY_RANGE`` (the development draws of
#: ``benchmarks/user_code.py``: 0.36-0.53 below 0.1 ms, 0.66 up to 0.3 ms, 0.86-0.94 beyond, at the
#: median)
CONVOY_CALL, CONVOY_SHARE, CONVOY_SLOPE, CONVOY_RANGE = 2e4, 0.35, 0.27, (0.3, 1.0)


@dataclass(frozen=True)
class InContext:
    """What a program is composed from, per size [ns] (slowdowns unitless)."""

    #: a context part as one worker in the executor
    executor: Mapping[str, np.ndarray]
    #: F[a|b]: chain a's call beside chain b over its call alone
    slowdown: Mapping[tuple[Stage, Stage], np.ndarray] = field(default_factory=dict)
    #: the period of a pipe of the cheapest real stages
    floor: np.ndarray | None = None
    #: a chain as the first stage of ``pipe(chain, touch)``: waking an idle next stage
    feeding: Mapping[Stage, np.ndarray] = field(default_factory=dict)
    #: a chain as the second stage of ``pipe(nop, chain)``: always fed, waking a blocked stage
    fed: Mapping[Stage, np.ndarray] = field(default_factory=dict)
    #: per pool width n, what n workers taking elements from one queue add to each element:
    #: ``n T[tpool_n(nop)] - T[nop]``
    queue: Mapping[int, np.ndarray] = field(default_factory=dict)
    #: two copies of a chain side by side: the cores their threads kept busy or waited for, over
    #: the chain's alone (2 where they run in parallel, 1 where they take turns)
    concurrency: Mapping[Stage, np.ndarray] = field(default_factory=dict)
    #: the cores a chain alone keeps busy or waits for, its own threads included (about 1 for a
    #: chain on its worker's thread, more for one that brings threads of its own: BLAS, OpenMP)
    cores: Mapping[Stage, np.ndarray] = field(default_factory=dict)
    #: two copies of a chain side by side: each copy's time per call, NaN at a size where other
    #: programs took the cores (:func:`~perfcompose.validate.in_context.measured`)
    together: Mapping[Stage, np.ndarray] = field(default_factory=dict)

    def part(self, name: str) -> np.ndarray:
        if name in self.executor:
            return self.executor[name]
        raise ModelError(f"part '{name}' was not measured in its context")

    def factor(self, a: Stage, b: Stage) -> np.ndarray | float:
        return self.slowdown.get((a, b), 1.0)

    def threaded(self, a: Stage) -> bool:
        """Whether chain ``a`` brings threads of its own (:data:`OWN_THREADS`): copies of it
        oversubscribe the cores, which their co-run slowdown measures; they are no lock."""
        cores = self.cores.get(a)
        return cores is not None and bool(np.nanmedian(np.asarray(cores, dtype=float)) > OWN_THREADS)

    def locked(self, a: Stage) -> bool:
        """Whether copies of chain ``a`` run one at a time (:func:`locked`)."""
        return not self.threaded(a) and locked(self.factor(a, a), 2, self.concurrency.get(a))


def locked(slowdown: np.ndarray | float, width: int = 2, concurrency: np.ndarray | None = None) -> bool:
    """Whether ``width`` copies of a chain run one at a time: by the cores two copies kept busy
    together (:data:`TURNS`) where that was measured, else by their self co-run slowdown, which
    other programs on the machine lower (a copy that loses its core leaves the lock to the other)."""
    if concurrency is not None and np.isfinite(np.median(np.asarray(concurrency))):
        return bool(np.median(np.asarray(concurrency)) <= TURNS)
    return bool(np.median(np.asarray(slowdown)) >= LOCKED * width)


def predict(term: Term, m: InContext) -> np.ndarray:
    """The time per element of a context-named term (:func:`~perfcompose.compose.context.in_context`)."""
    parts = chain(term)
    if parts is not None:
        return np.asarray(sum(m.part(p) for p in parts), dtype=float)
    if isinstance(term, TPool):
        if not isinstance(term.threads, int):
            raise ModelError(f"{term} has no thread count")
        body = chain(term.body)
        inner = predict(term.body, m)
        if body is None or term.threads == 1:
            return inner / term.threads
        queue = m.queue.get(term.threads, 0.0)
        if m.locked(Stage(body)):
            return _turns(inner, m.together.get(Stage(body)), m.concurrency.get(Stage(body))) + queue / term.threads
        return (inner * np.maximum(m.factor(Stage(body), Stage(body)), 1.0) + queue) / term.threads
    if isinstance(term, Pipe):
        return _pipe(term, m)
    if isinstance(term, Seq):
        return predict(term.first, m) + predict(term.second, m)
    raise ModelError(f"cannot compose {term} from parts measured in context")


def interference(term: Term, m: InContext) -> np.ndarray:
    """How far the co-run measurements (slowdowns, locks, wake-ups, the pipe floor) move the
    prediction of a context-named term from its parts composed without them, |ln| per size: 0
    for a chain, whose parts are only added. The predictor is surest where nothing moves it; its
    error grows with this (:func:`~perfcompose.validate.held_out.with_held_out_error`)."""
    bare = predict(term, InContext(executor=m.executor, queue=m.queue))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(np.abs(np.log(predict(term, m) / bare)), dtype=float)


def convoy_share(alone: np.ndarray) -> np.ndarray:
    """The share of two side-by-side copies' convoy that a pool of them shows, for a chain that
    takes ``alone`` ns a call (:data:`CONVOY_SHARE`): back to back, a copy that takes the lock
    back waits for the other to let go of it; a pool's worker lets go of it at every element,
    waiting on the queue, and the shorter the calls, the more of the wait those hand-overs save."""
    decades = np.log10(np.maximum(np.asarray(alone, dtype=float), 1.0) / CONVOY_CALL)
    return np.asarray(np.clip(CONVOY_SHARE + CONVOY_SLOPE * decades, *CONVOY_RANGE), dtype=float)


def _turns(alone: np.ndarray, together: np.ndarray | None, concurrency: np.ndarray | None = None) -> np.ndarray:
    """The time per element of copies of a chain that take turns at a lock: one copy's time
    ``alone``; where two copies side by side take longer per call than twice that (a convoy:
    each waits for the other to hand the lock back), :func:`convoy_share` of the excess of half
    their time; where they took less (the chain holds the lock for part of its call only), the
    share :func:`parallel_share` of that gain, by the cores the copies kept busy together. Not
    the slowdown of the co-run over the chain alone in the same harness, carried to the
    executor's time: where the harness's own call of the chain is slower than the executor's,
    that ratio leaves the pool short; the pools of such chains ran at 0.9-2.2x one worker's
    time."""
    alone = np.asarray(alone, dtype=float)
    if together is None:
        return alone
    half = np.asarray(together, dtype=float) / 2 - alone
    gain = parallel_share(concurrency) * np.minimum(half, 0.0) if concurrency is not None else 0.0
    step = convoy_share(alone) * np.maximum(half, 0.0) + gain
    return np.asarray(np.where(np.isfinite(step), alone + step, alone), dtype=float)


def parallel_share(concurrency: np.ndarray) -> np.ndarray:
    """Of what two copies of a locked chain side by side gain over one alone (each faster per
    call than twice the chain alone), the share a pool of them keeps: none where the copies
    kept one core busy between them (they took turns throughout; the harness's own call of such
    a chain may be faster than the executor's, which reads as a gain the pool never shows), all
    where they kept :data:`TURNS` or more (part of each call runs without the lock, and a pool's
    workers overlap those parts as the copies did), in proportion between."""
    kept = np.asarray(concurrency, dtype=float)
    return np.asarray(np.where(np.isfinite(kept), np.clip((kept - 1.0) / (TURNS - 1.0), 0.0, 1.0), 0.0), dtype=float)


def _pipe(term: Pipe, m: InContext) -> np.ndarray:
    stages = pipe_stages(term)
    chains = [None if body is None else Stage(body) for body in map(stage_chain, stages)]
    times = [predict(s, m) for s in stages]
    alone = list(times)
    for i in range(1, len(stages)):
        c = chains[i]
        if c is not None and c in m.fed and not isinstance(stages[i], TPool):
            # a stage pays for waking the stage before it, blocked on a full queue, for the
            # share of the time that one is blocked
            blocked = 1.0 - alone[i - 1] / np.maximum(alone[i - 1], alone[i])
            times[i] = alone[i] + np.maximum(m.fed[c] - alone[i], 0.0) * blocked
    woken = list(times)
    first = chains[0]
    has_probe = first is not None and first in m.feeding and not isinstance(stages[0], TPool)
    if first is not None and has_probe:
        wake = np.maximum(m.feeding[first] - alone[0], 0.0)
        idle = 1.0 - times[1] / np.maximum(times[0], times[1])
        woken[0] = times[0] + wake * idle
    out = np.asarray(functools.reduce(np.maximum, woken), dtype=float)  # where no stage can be the bottleneck
    best = np.full(np.shape(out), -np.inf)
    for b in range(len(stages)):
        period = np.asarray(woken[b], dtype=float)
        busy = []
        for a in range(len(stages)):
            ca, cb = chains[a], chains[b]
            if a == b or ca is None or cb is None:
                continue
            fab, fba = np.maximum(m.factor(ca, cb), 1.0), np.maximum(m.factor(cb, ca), 1.0)
            busy.append(woken[a] * fab)
            period = period + woken[a] * fab * (1.0 - 1.0 / fba)
        # b is the bottleneck only where every other stage's busy time fits in its period
        fits = np.all([np.asarray(t) <= 1.01 * period for t in busy], axis=0) if busy else True
        best = np.maximum(best, np.where(fits, period, -np.inf))
    out = np.where(np.isfinite(best), best, out)
    if not has_probe and m.floor is not None:
        out = np.maximum(out, m.floor)
    return np.asarray(out, dtype=float)
