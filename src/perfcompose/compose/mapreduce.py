"""MapReduce on a distributed engine: the papers' operator per reduction strategy, and the
same operator calibrated with what the engine adds.

Per strategy (000 sections 4.2.4-4.2.5), for x inputs and 768 keys:

* ``pairwise``: k(x) = x reductions of a constant-size collection, d(x) = 768, reduce = reduce_p;
* ``local``, ``shuffle``: k(x) = 768 keys of d(x) = x values each, reduce = reduce_v.

A pair is 8 bytes on the wire: the histogram's collections are vectors whose index is the key.
The shuffle of ``shuffle`` is eq. 7 with a measured bandwidth; ``pairwise`` and ``local`` only
send each node's one collection to the node that finishes (768 pairs from each of m - 1 nodes).
On one node nothing crosses between processes and the shuffle is free, as in eq. 6.

The calibrated operator keeps eq. 5's structure and replaces what the papers leave out by
quantities measured on the engine (:class:`EngineCosts`): the map task timed inside the engine
with every thread busy, the engine's cost per task on a thread (``dispatch``), the latency of
each dependent step after the map phase (``hop``), the job's fixed cost, and the bytes that
really cross between worker processes.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import sympy as sp

from perfcompose.compose.operators import compose
from perfcompose.errors import ModelError
from perfcompose.model import Model, symbol

KEYS = 768
#: bytes of one key-value pair on the wire (an int64 count; the key is its index)
PAIR_BYTES = 8


@dataclass(frozen=True)
class Shape:
    """k(x), d(x) and the reduce component of a strategy."""

    keys: str
    per_key: str
    reduce: str


SHAPES: dict[str, Shape] = {
    "pairwise": Shape("x", str(KEYS), "reduce_p"),
    "local": Shape(str(KEYS), "x", "reduce_v"),
    "shuffle": Shape(str(KEYS), "x", "reduce_v"),
}


def _shape(strategy: str) -> Shape:
    if strategy not in SHAPES:
        raise ModelError(f"unknown reduction strategy {strategy!r}; choose one of: {', '.join(SHAPES)}")
    return SHAPES[strategy]


def paper_term(strategy: str, m: int, n: int, bandwidth: float | None = None) -> str:
    """The term of 000 for a strategy on m nodes x n threads (its shuffle as described above)."""
    shape = _shape(strategy)
    text = (f"mapreduce(map=map, reduce={shape.reduce}, m={m}, n={n}, keys={shape.keys}, "
            f"per_key={shape.per_key}")
    if m > 1:
        if bandwidth is None or bandwidth <= 0:
            raise ModelError(f"a mapreduce on m={m} nodes needs the measured bandwidth between them")
        if strategy == "shuffle":
            text += f", bandwidth={float(bandwidth)!r}, bytes={float(PAIR_BYTES)!r}"
        else:
            text += f", o={KEYS}, shuffle=collect"
    return text + ")"


def paper_model(strategy: str, m: int, n: int, parts: Mapping[str, Model],
                bandwidth: float | None = None) -> Model:
    """Eq. 5 (with eq. 7) over the atomic models ``parts`` (``map`` at one input, ``reduce_p``,
    ``reduce_v`` of the values per key), all in seconds."""
    components = dict(parts)
    if m > 1 and strategy != "shuffle" and bandwidth:
        components["collect"] = Model.constant((m - 1) * KEYS * PAIR_BYTES / float(bandwidth), params=("x",))
    return compose(paper_term(strategy, m, n, bandwidth), components)


@dataclass(frozen=True)
class EngineCosts:
    """What an engine adds to a job, measured on it [s, bytes/s]."""

    #: a job's cost outside its tasks: submission and fetching the result
    job: float
    #: a thread's wait between two queued tasks
    dispatch: float
    #: the latency of a task waiting for one on the same worker / on another worker
    hop_local: float
    hop_remote: float | None = None
    #: bytes per second between workers (None on one worker)
    bandwidth: float | None = None


def critical_hops(strategy: str, m: int, n: int) -> tuple[int, int]:
    """Dependent steps after the last map task (same worker, other worker) on the critical path."""
    _shape(strategy)
    if strategy == "shuffle":
        return (1, 2) if m > 1 else (3, 0)
    local = 1 + (1 if n > 1 else 0)
    return (local, 1) if m > 1 else (local, 0)


def crossing_bytes(strategy: str, m: int) -> sp.Expr:
    """Bytes that cross between worker processes, as a function of x."""
    _shape(strategy)
    x = symbol("x")
    collection = KEYS * PAIR_BYTES
    return sp.Rational(m - 1, m) * collection * (x + 1) if strategy == "shuffle" else sp.Integer((m - 1) * collection)


def calibrated_model(strategy: str, m: int, n: int, parts: Mapping[str, Model], costs: EngineCosts) -> Model:
    """Eq. 5 with the map task timed inside the engine (``parts["map"]``), plus the engine's
    dispatch per task, its hops after the map phase, its fixed cost per job and the bytes
    that cross between workers over the measured bandwidth."""
    x = symbol("x")
    mn = m * n
    shape = _shape(strategy)
    map_one = parts["map"].expr.xreplace({x: sp.Integer(1)})
    reduce_d = parts[shape.reduce].expr.xreplace({x: sp.sympify(shape.per_key, locals={"x": x})})
    keys = sp.sympify(shape.keys, locals={"x": x})
    local, remote = critical_hops(strategy, m, n)
    if remote and costs.hop_remote is None:
        raise ModelError(f"a job on m={m} nodes needs the latency of a hop between workers")
    hops = local * costs.hop_local + remote * (costs.hop_remote or 0.0)
    shuffle = crossing_bytes(strategy, m) / float(costs.bandwidth) if m > 1 and costs.bandwidth else 0
    expr = (sp.Float(costs.job) + x * (map_one + sp.Float(costs.dispatch)) / mn - sp.Float(costs.dispatch)
            + sp.Float(hops) + shuffle + keys * reduce_d / mn)
    return Model(expr, params=("x",), unit="s", name=f"calibrated {strategy} m={m} n={n}")
