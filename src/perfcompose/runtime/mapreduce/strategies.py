"""The three reductions of 000 section 4.2.5 as Dask task graphs.

The inputs are split into m contiguous blocks, one per node (worker); block j's map tasks run on
node j. Every task names its phase in its key (``map-``, ``shuffle-``, ``reduce-``), so the
engine's task records say which phase spent the time. Placement is a preference
(``allow_other_workers``): if a node dies, the engine reruns its tasks elsewhere.

* ``pairwise`` (GrPPi, reduce_p): each of the n threads of a node reduces its share of the
  node's collections pairwise, the node reduces its n results, one node reduces the m results;
* ``local`` (reduce_v local): the same with per-key reductions, every key's values at once;
* ``shuffle`` (reduce_v global, Hadoop): the keys are split among the m x n reducers; each node
  sends every reducer the values of its keys (the shuffle), each reducer reduces its keys, and
  one node joins the key ranges.
"""
from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from perfcompose.choices import MAPREDUCE_STRATEGIES
from perfcompose.errors import PerfcomposeError
from perfcompose.runtime.mapreduce import ops

#: what each strategy does, in the order of the ``MapReduceStrategy`` declaration
STRATEGIES: dict[str, str] = dict(zip(MAPREDUCE_STRATEGIES, (
    "reduce key-value collections pairwise, on each node then across nodes (GrPPi, reduce_p)",
    "reduce per key on each node, then per key across nodes (reduce_v local)",
    "key-partitioned shuffle, then a per-key reduction on each key's node (Hadoop, reduce_v global)",
), strict=True))


class StrategyError(PerfcomposeError):
    """An unknown reduction strategy."""


def check_strategy(name: str) -> str:
    if name not in STRATEGIES:
        raise StrategyError(f"unknown reduction strategy {name!r}; choose one of: "
                            + ", ".join(f"{k} ({v})" for k, v in STRATEGIES.items()))
    return name


def split(count: int, parts: int) -> list[tuple[int, int]]:
    """``parts`` contiguous ranges of ``range(count)`` whose lengths differ by at most one."""
    return [(j * count // parts, (j + 1) * count // parts) for j in range(parts)]


@dataclass(frozen=True)
class Graph:
    """A submitted job: the future of its result and every task key with its phase."""

    result: Any
    futures: tuple[Any, ...]
    phases: dict[str, str]

    def release(self) -> None:
        for f in self.futures:
            f.release()


def submit(client: Any, workers: Sequence[str], n: int, inputs: Sequence[Any], map: Callable[[Any], Any],
           reduce: Callable[..., Any], strategy: str, keys: int) -> Graph:
    """Submit one MapReduce job over ``inputs`` on ``workers`` (n threads each)."""
    check_strategy(strategy)
    if not inputs:
        raise PerfcomposeError("a MapReduce job needs at least one input")
    tag = uuid.uuid4().hex[:10]
    m = len(workers)
    futures: list[Any] = []
    phases: dict[str, str] = {}

    def task(phase: str, name: str, where: int, func: Callable[..., Any], *args: Any) -> Any:
        key = f"{phase}-{tag}-{name}"
        fut = client.submit(func, *args, key=key, workers=[workers[where]], allow_other_workers=True, pure=False)
        futures.append(fut)
        phases[key] = phase
        return fut

    blocks = [(j, lo, hi) for j, (lo, hi) in enumerate(split(len(inputs), m)) if hi > lo]
    maps = {j: [task("map", str(i), j, map, inputs[i]) for i in range(lo, hi)] for j, lo, hi in blocks}
    if strategy in ("pairwise", "local"):
        fold = ops.fold_pairwise if strategy == "pairwise" else ops.fold_per_key
        nodes = []
        for j, outs in maps.items():
            shares = [outs[a:b] for a, b in split(len(outs), n) if b > a]
            partial = [task("reduce", f"{j}-{t}", j, fold, reduce, share) for t, share in enumerate(shares)]
            nodes.append(partial[0] if len(partial) == 1 else task("reduce", f"{j}", j, fold, reduce, partial))
        result = nodes[0] if len(nodes) == 1 else task("reduce", "final", 0, fold, reduce, nodes)
    else:
        owners = split(keys, m)
        parts = {(j, l): task("shuffle", f"{j}-{l}", j, ops.take_keys, outs, lo, hi)
                 for j, outs in maps.items() for l, (lo, hi) in enumerate(owners)}
        slices = []
        for l, (lo, hi) in enumerate(owners):
            incoming = [parts[(j, l)] for j in maps]
            for t, (a, b) in enumerate(split(hi - lo, n)):
                if b > a:
                    slices.append(task("reduce", f"{l}-{t}", l, ops.reduce_partitions, reduce, incoming, a, b))
        result = task("reduce", "final", 0, ops.concatenate, slices)
    return Graph(result, tuple(futures), phases)
