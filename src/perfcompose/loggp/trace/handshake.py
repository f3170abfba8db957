"""Long messages with the time their rendezvous adds.

LogGP charges a message of s bytes o + L + (s - 1)G + o, one line over every size. An MPI sends
messages above its eager limit by a rendezvous (Open MPI's shared memory from 4 KiB on): their
one-way times lie on a line of the same slope set higher by R. ``loggp calibrate`` measures R
from its ping-pongs (the one-way time of the sizes from ``from_bytes`` on that the model misses,
median over sizes and repetitions) and writes it into the parameter file; here each send of at
least ``from_bytes`` bytes waits for a ``calc`` of R on its rank before it starts, the sender's
share of the handshake (LogGPS's synchronous messages, Ino et al. 2001).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from perfcompose.loggp.goal.schedule import CALC, SEND, GoalSchedule
from perfcompose.loggp.params import convert_time

__all__ = ["Handshake", "read_handshake", "with_handshakes"]


@dataclass(frozen=True)
class Handshake:
    """R (in ``unit``) added to every message of at least ``from_bytes`` bytes."""

    from_bytes: int
    cost: float
    unit: str = "us"

    def ns(self) -> float:
        return convert_time(self.cost, self.unit, "ns")


def read_handshake(path: Path) -> Handshake | None:
    """The handshake a parameter file from ``loggp calibrate`` holds, or None (a file written by
    hand or before R was measured, or one whose R is not above zero)."""
    data = json.loads(Path(path).read_text())
    if not isinstance(data, dict):
        return None
    cost, start = data.get("R"), data.get("R_from_bytes")
    if not isinstance(cost, (int, float)) or not isinstance(start, int) or not math.isfinite(cost) or cost <= 0:
        return None
    return Handshake(start, float(cost), data.get("unit") or "us")


def with_handshakes(s: GoalSchedule, from_bytes: int, cost_ns: float) -> GoalSchedule:
    """``s`` with a ``calc`` of ``cost_ns`` before each send of at least ``from_bytes`` bytes: the
    calc takes over what the send required (and irequired), the send requires the calc."""
    big = np.flatnonzero((s.kind == SEND) & (s.size >= from_bytes))
    if not big.size or cost_ns <= 0:
        return s
    n = s.num_ops
    new = np.arange(n) + np.cumsum(np.isin(np.arange(n), big))  # each old operation's number
    calc = new[big] - 1
    total = n + big.size

    def column(old: np.ndarray, fill: float | int) -> np.ndarray:
        out = np.full(total, fill, old.dtype)
        out[new] = old
        return out

    kind, size = column(s.kind, CALC), column(s.size, 0)
    size[calc] = cost_ns
    peer, tag = column(s.peer, 0), column(s.tag, 0)
    cpu, nic = column(s.cpu, 0), column(s.nic, 0)
    cpu[calc], nic[calc] = s.cpu[big], s.nic[big]
    to_calc = np.full(n, -1, np.int64)
    to_calc[big] = calc

    def pairs(a: np.ndarray, b: np.ndarray, extra: bool) -> tuple[np.ndarray, np.ndarray]:
        a2 = np.where(to_calc[a] >= 0, to_calc[a], new[a])
        b2 = new[b]
        if extra:
            a2, b2 = np.concatenate([a2, new[big]]), np.concatenate([b2, calc])
        order = np.argsort(b2 * total + a2, kind="stable")  # by the operation required, as the readers give them
        return a2[order].astype(s.req_a.dtype), b2[order].astype(s.req_b.dtype)

    req_a, req_b = pairs(s.req_a, s.req_b, True)
    ireq_a, ireq_b = pairs(s.ireq_a, s.ireq_b, False)
    ptr = s.op_ptr + np.searchsorted(big, s.op_ptr)
    message = None if s.message is None else column(s.message, -1)
    return GoalSchedule(s.num_ranks, ptr.astype(s.op_ptr.dtype), kind, size, peer, tag, cpu, nic, req_a, req_b,
                        ireq_a, ireq_b, message)
