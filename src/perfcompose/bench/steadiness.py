"""How steady this machine's speed is: one fixed piece of work timed back to back.

A measurement cannot be repeated more closely than the machine holds its speed. On a virtual
machine whose host shares the physical cores, a core runs at two speeds that alternate within
milliseconds, in a mix that drifts over seconds and minutes; the same program then takes a
different time from one study to the next however quiet the machine looks from inside (no
other process, no stolen time). :func:`probe` times a short, fixed piece of pure-Python and
NumPy work back to back for a while and :func:`steadiness` sums the times up: the fastest pace,
the share of probes slower than it by more than :data:`SLOW` and the 90th percentile.

>>> s = steadiness([1.0] * 8 + [1.5, 2.0])
>>> (s.slow_share, round(s.p90, 2))
(0.2, 1.55)
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

#: a probe that took this many times the fastest pace ran on a slowed core
SLOW = 1.15
#: the fastest pace: this quantile of the probes' times (the very fastest may be a fluke)
FASTEST = 0.05

_DATA = np.random.default_rng(0).normal(size=2048)


def _work() -> None:
    """About a millisecond of interpreter and NumPy work on a modern core."""
    total = 0
    for i in range(6000):
        total += i * i
    np.sort(_DATA)


@dataclass(frozen=True)
class Steadiness:
    """The probes' count, the fastest pace [s], the share of probes at least :data:`SLOW` times
    slower than it, and their 90th percentile relative to it."""

    probes: int
    fastest: float
    slow_share: float
    p90: float

    def describe(self) -> str:
        return (f"{self.probes} probes of {1e3 * self.fastest:.2f} ms: {100 * self.slow_share:.0f} % ran at least "
                f"{SLOW:g}x slower, the 90th percentile {self.p90:.2f}x")

    def moved(self, other: Steadiness) -> float:
        """How far the fastest pace moved between this probe and ``other``: the slower fastest
        over the faster (1 where it held). Each probe is summed up against its own fastest pace,
        so a host that slowed every core for the whole of one probe reads as steady there; beyond
        :data:`SLOW` the measurements between the two were taken at another speed than either."""
        return max(self.fastest, other.fastest) / min(self.fastest, other.fastest)

    def to_json(self) -> dict[str, float]:
        return {"probes": self.probes, "fastest_s": self.fastest, "slow_share": self.slow_share, "p90": self.p90}


def steadiness(times: Sequence[float]) -> Steadiness:
    """The summary of probe ``times`` [s] (at least one, all positive)."""
    t = np.asarray(times, dtype=float)
    if not len(t) or not np.all(t > 0):
        raise ValueError("steadiness needs at least one positive probe time")
    fastest = float(np.quantile(t, FASTEST))
    return Steadiness(len(t), fastest, float(np.mean(t >= SLOW * fastest)), float(np.quantile(t, 0.9) / fastest))


def probe(seconds: float = 2.0, work: Callable[[], object] = _work) -> Steadiness:
    """Time ``work`` back to back for ``seconds`` and sum the times up."""
    times: list[float] = []
    end = time.perf_counter() + seconds
    while not times or time.perf_counter() < end:
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return steadiness(times)
