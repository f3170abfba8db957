"""LogGOPSim's main loop written plainly in Python (LogGOPSim.cpp's, without a network model or
OS noise): slow, obviously right, the reference the compiled kernel (``_cgoal.c``) is tested
against, and what :func:`.loggopsim.simulate_goal` runs where it is not built."""
from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Iterable
from typing import Any

import numpy as np

from perfcompose.errors import InputError
from perfcompose.loggp.goal.loggopsim import LOGGOPSIM_S
from perfcompose.loggp.goal.schedule import ANY, GoalSchedule
from perfcompose.loggp.kernels.cxx_sort import sort_like_cxx
from perfcompose.loggp.params import LogGP

__all__ = ["reference_goal", "reference_times"]


class _MatchQueue:
    """LogGOPSim's posted-receive / unexpected-message queue: the first entry (in insertion order)
    whose source and tag match, with -1 matching anything on either side."""

    def __init__(self) -> None:
        self._entries: dict[int, tuple[int, int, Any]] = {}
        self._exact: dict[tuple[int, int], deque[int]] = {}
        self._wild = 0
        self._next = 0

    def push(self, src: int, tag: int, item: Any) -> None:
        key = self._next
        self._next += 1
        self._entries[key] = (src, tag, item)
        if src == ANY or tag == ANY:
            self._wild += 1
        else:
            self._exact.setdefault((src, tag), deque()).append(key)

    def _remove(self, key: int) -> Any:
        src, tag, item = self._entries.pop(key)
        if src == ANY or tag == ANY:
            self._wild -= 1
        else:
            q = self._exact[(src, tag)]
            q.remove(key) if q[0] != key else q.popleft()
        return item

    def match(self, src: int, tag: int) -> Any | None:
        if self._wild == 0 and src != ANY and tag != ANY:
            q = self._exact.get((src, tag))
            return self._remove(q[0]) if q else None
        for key, (s, t, _) in self._entries.items():
            if (src == ANY or s == ANY or s == src) and (tag == ANY or t == ANY or t == tag):
                return self._remove(key)
        return None

    def items(self) -> Iterable[tuple[int, int, Any]]:
        return self._entries.values()


_TYPE_ORDER = {"send": 1, "recv": 2, "calc": 3}


class _Run:
    """The state of one run: per rank the clocks, dependency counts, queues and times."""

    def __init__(self, schedule: GoalSchedule, params: LogGP, O: float, S: float) -> None:
        self.p, self.O, self.S = params, O, S
        ranks = self.ranks = schedule.ranks
        P = len(ranks)
        n_cpu = 1 + max((op.cpu for r in ranks for op in r.ops), default=0)
        n_nic = 1 + max((op.nic for r in ranks for op in r.ops), default=0)
        self.nexto = [[0.0] * n_cpu for _ in range(P)]
        self.nextgr = [[0.0] * n_nic for _ in range(P)]
        self.nextgs = [[0.0] * n_nic for _ in range(P)]
        self.need_req = [[0] * len(r.ops) for r in ranks]
        self.need_ireq = [[0] * len(r.ops) for r in ranks]
        self.dep_req: list[list[list[int]]] = [[[] for _ in r.ops] for r in ranks]
        self.dep_ireq: list[list[list[int]]] = [[[] for _ in r.ops] for r in ranks]
        for h, r in enumerate(ranks):
            for need, dep, pairs in ((self.need_req, self.dep_req, r.requires),
                                     (self.need_ireq, self.dep_ireq, r.irequires)):
                for a, b in pairs:
                    need[h][a] += 1
                    dep[h][b].append(a)
        self.kinds = [[_TYPE_ORDER[op.kind] for op in r.ops] for r in ranks]
        self.issued = [[False] * len(r.ops) for r in ranks]
        self.started = [[False] * len(r.ops) for r in ranks]
        self.done = [[False] * len(r.ops) for r in ranks]
        self.start = [np.full(len(r.ops), np.nan) for r in ranks]
        self.end = [np.full(len(r.ops), np.nan) for r in ranks]
        self.rq = [_MatchQueue() for _ in range(P)]
        self.uq = [_MatchQueue() for _ in range(P)]
        self.fresh: list[list[int]] = [[] for _ in range(P)]
        self.aq: list[tuple[float, int, str, int, Any]] = []
        self.ts = 0

    def ready(self, h: int, i: int) -> None:
        if self.need_req[h][i] == 0 and self.need_ireq[h][i] == 0 and not self.issued[h][i]:
            self.issued[h][i] = True
            self.fresh[h].append(i)

    def mark_started(self, h: int, i: int) -> None:
        if not self.started[h][i]:
            self.started[h][i] = True
            for j in self.dep_ireq[h][i]:
                self.need_ireq[h][j] -= 1
                self.ready(h, j)

    def mark_done(self, h: int, i: int) -> None:
        self.mark_started(h, i)
        if not self.done[h][i]:
            self.done[h][i] = True
            for j in self.dep_req[h][i]:
                self.need_req[h][j] -= 1
                self.ready(h, j)

    def push(self, t: float, its: int, kind: str, h: int, payload: Any) -> None:
        heapq.heappush(self.aq, (t, its, kind, h, payload))

    def issue(self, h: int, initial: bool) -> None:
        new = self.fresh[h]
        sort_like_cxx(new, self.kinds[h], 0, len(new))
        self.fresh[h] = []
        for i in new:
            op = self.ranks[h].ops[i]
            if initial:
                t = 0.0
            elif op.kind == "send":
                t = max(self.nexto[h][op.cpu], self.nextgs[h][op.nic])
            else:
                t = self.nexto[h][op.cpu]
            self.push(t, self.ts, op.kind, h, i)
            self.ts += 1

    def rendezvous(self, src: int, send_idx: int, cpu: int, nic: int, t: float, check: set[int]) -> None:
        """A rendezvous send's request completes when its receive matches it."""
        self.mark_done(src, send_idx)
        check.add(src)
        self.nexto[src][cpu] = max(self.nexto[src][cpu], t)
        self.nextgs[src][nic] = max(self.nextgs[src][nic], t)

    def calc(self, t: float, its: int, h: int, i: int, check: set[int]) -> None:
        op = self.ranks[h].ops[i]
        if self.nexto[h][op.cpu] <= t:
            self.nexto[h][op.cpu] = t + op.size
            self.start[h][i], self.end[h][i] = t, t + op.size
            self.mark_done(h, i)
            check.add(h)
        else:
            self.push(self.nexto[h][op.cpu], its, "calc", h, i)

    def send(self, t: float, its: int, h: int, i: int, check: set[int]) -> None:
        op, p = self.ranks[h].ops[i], self.p
        if max(self.nexto[h][op.cpu], self.nextgs[h][op.nic]) > t:
            self.push(max(self.nexto[h][op.cpu], self.nextgs[h][op.nic]), its, "send", h, i)
            return
        self.mark_started(h, i)
        check.add(h)
        k1 = max(op.size - 1.0, 0.0)
        self.nexto[h][op.cpu] = t + p.o + k1 * self.O
        self.nextgs[h][op.nic] = t + p.g + k1 * p.G
        self.start[h][i], self.end[h][i] = t, t + p.o + k1 * self.O
        self.push(t + p.o + p.L, self.ts, "msg", op.peer, (h, op.peer, op.size, op.tag, i, op.cpu, op.nic))
        self.ts += 1
        if op.size <= self.S:
            self.mark_done(h, i)

    def recv(self, t: float, h: int, i: int, check: set[int]) -> None:
        op = self.ranks[h].ops[i]
        self.mark_started(h, i)
        check.add(h)
        found = self.uq[h].match(op.peer, op.tag)
        if found is None:
            self.rq[h].push(op.peer, op.tag, i)
            return
        src, send_idx, t_start, t_end = found
        if op.size > self.S:
            self.rendezvous(src, send_idx, op.cpu, op.nic, t, check)
        self.start[h][i], self.end[h][i] = t_start, t_end
        self.mark_done(h, i)

    def message(self, t: float, its: int, h: int, payload: Any, check: set[int]) -> None:
        src, _, size, tag, send_idx, cpu, nic = payload
        if max(self.nexto[h][cpu], self.nextgr[h][nic]) > t:
            self.push(max(self.nexto[h][cpu], self.nextgr[h][nic]), its, "msg", h, payload)
            return
        p = self.p
        k1 = max(size - 1.0, 0.0)
        self.nexto[h][cpu] = t + p.o + max(k1 * self.O, k1 * p.G)
        self.nextgr[h][nic] = t + p.g + k1 * p.G
        found = self.rq[h].match(src, tag)
        if found is None:
            self.uq[h].push(src, tag, (src, send_idx, t, self.nexto[h][cpu]))
            return
        if size > self.S:
            self.rendezvous(src, send_idx, cpu, nic, t, check)
        self.start[h][found], self.end[h][found] = t, self.nexto[h][cpu]
        self.mark_done(h, found)
        check.add(h)

    def run(self) -> None:
        for h in range(len(self.ranks)):
            for i in range(len(self.ranks[h].ops)):
                self.ready(h, i)
            self.issue(h, True)
        while self.aq:
            t, its, kind, h, payload = heapq.heappop(self.aq)
            check: set[int] = set()
            if kind == "calc":
                self.calc(t, its, h, payload, check)
            elif kind == "send":
                self.send(t, its, h, payload, check)
            elif kind == "recv":
                self.recv(t, h, payload, check)
            else:
                self.message(t, its, h, payload, check)
            for host in sorted(check):
                self.issue(host, False)


def reference_times(schedule: GoalSchedule, params: LogGP, O: float, S: float) -> tuple[np.ndarray, ...]:
    """LogGOPSim's main loop in plain Python: finish per rank; start, end and done per operation."""
    run = _Run(schedule, params, O, S)
    run.run()
    finish = np.array([max(c) for c in run.nexto], dtype=np.float64)
    start, end = (np.concatenate(a) if a else np.zeros(0) for a in (run.start, run.end))
    return finish, start, end, np.array([d for r in run.done for d in r], dtype=np.bool_)


def reference_goal(schedule: GoalSchedule, params: LogGP, *, O: float = 0.0,
                   S: float = LOGGOPSIM_S) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray]]:
    """LogGOPSim's main loop in plain Python (slow, obviously right): finish, start, end per rank.
    New operations are ordered by the same emulation of its ``std::sort`` as the kernel's."""
    run = _Run(schedule, params, O, S)
    run.run()
    if not all(all(d) for d in run.done):
        raise InputError("the schedule deadlocks")
    return np.array([max(c) for c in run.nexto], dtype=np.float64), run.start, run.end
