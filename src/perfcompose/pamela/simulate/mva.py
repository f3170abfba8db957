"""Mean value analysis (Reiser and Lavenberg) of the closed networks PAMELA describes, beside the bound.

``par (p = a, b) seq (i = 1, N) body`` with a body of ``delay`` (think time) and ``use`` of FCFS
resources that do not depend on the client is a closed network of K customers: its cycle time is
R(K) = Z + sum_k R_k(K), R_k(n) = D_k (1 + Q_k(n - 1)) at one server (Seidmann's approximation at
m servers), and N cycles take about N R(K), exact in the steady state for exponential service.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from perfcompose.model import symbol
from perfcompose.pamela.compile import ir

__all__ = ["ClosedNetwork", "closed_network", "mva_cycle_time", "mva_estimate"]


@dataclass(frozen=True)
class ClosedNetwork:
    """K clients cycling N times; per cycle: think time Z and the demand at each FCFS station."""

    clients: float
    cycles: float
    think: float
    demands: tuple[tuple[float, float], ...]  #: (demand per cycle, servers) per station


def _body(proc: ir.Proc, values: dict, think: list[float], demand: dict) -> bool:
    if isinstance(proc, ir.Nil):
        return True
    if isinstance(proc, ir.Seq):
        return _body(proc.left, values, think, demand) and _body(proc.right, values, think, demand)
    if isinstance(proc, ir.Use):
        t = float(proc.time.subs(values))
        if proc.resource.key is None:  # the infinite server
            think[0] += t
            return True
        key = proc.resource.key.subs(values)
        if key.free_symbols:
            return False  # a resource of its own per client: not one shared station
        m = float(proc.resource.multiplicity.subs(values))
        old = demand.get(key, (0.0, m))
        demand[key] = (old[0] + t, m)
        return True
    return False


def closed_network(proc: ir.Proc, values: Mapping[str, float]) -> ClosedNetwork | None:
    """The network of ``proc`` at the given values, or None where it is not of that form."""
    subs = {symbol(k): v for k, v in values.items()}
    if not (isinstance(proc, ir.Loop) and proc.kind == "par"):
        return None
    inner = proc.body
    if not (isinstance(inner, ir.Loop) and inner.kind == "seq"):
        return None
    try:
        clients = float(proc.hi.subs(subs) - proc.lo.subs(subs) + 1)
        cycles = float(inner.hi.subs(subs) - inner.lo.subs(subs) + 1)
        think = [0.0]
        demand: dict = {}
        if not _body(inner.body, subs, think, demand):
            return None
    except (TypeError, ValueError):  # something left symbolic (a loop index in a time)
        return None
    return ClosedNetwork(clients, cycles, think[0], tuple(demand.values()))


def mva_cycle_time(net: ClosedNetwork) -> float:
    """Exact MVA's mean cycle time with ``net.clients`` customers."""
    K = int(round(net.clients))
    queues = [0.0] * len(net.demands)
    cycle = net.think + sum(d for d, _ in net.demands)
    for n in range(1, K + 1):
        times = [d / m * (1 + q) + d * (m - 1) / m for (d, m), q in zip(net.demands, queues)]
        cycle = net.think + sum(times)
        throughput = n / cycle
        queues = [throughput * (r - d * (m - 1) / m) for r, (d, m) in zip(times, net.demands)]
    return cycle


def mva_estimate(proc: ir.Proc, values: Mapping[str, float]) -> float | None:
    """MVA's estimate of the completion time, or None where the process is no closed network."""
    net = closed_network(proc, values)
    if net is None or net.clients < 1 or net.cycles < 1:
        return None
    return net.cycles * mva_cycle_time(net)
