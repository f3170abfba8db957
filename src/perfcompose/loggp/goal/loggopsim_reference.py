"""LogGOPSim's main loop written plainly in Python (LogGOPSim.cpp's, without a network model or OS noise): slow,
obviously right, the reference the compiled kernel (``_cgoal.c``) is tested against, and what
:func:`.loggopsim.simulate_goal` runs where it is not built. LogGOPSim sorts newly executable operations with
libstdc++'s ``std::sort``, which :func:`sort_like_cxx` reproduces exactly (the reference of the compiled loops'
``_cxx_sort.h``): as it is not stable beyond 16 elements, the order it leaves among operations of one kind decides which
one is issued first.
"""
from __future__ import annotations

import heapq
from collections import deque
from collections.abc import Iterable
from typing import Any

import numpy as np

from perfcompose.loggp.goal.loggopsim import LOGGOPSIM_S
from perfcompose.loggp.goal.schedule import ANY, KIND_NAMES, SEND, GoalSchedule
from perfcompose.loggp.params import LogGP

__all__ = ["reference_times"]


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


class _Run:
    """The state of one run: per rank the clocks and queues, per operation (by its index in the schedule) its
    dependency counts and times."""

    def __init__(self, s: GoalSchedule, params: LogGP, O: float, S: float) -> None:
        self.p, self.O, self.S = params, O, S
        n, P = s.num_ops, s.num_ranks
        self.op_ptr, self.rank = s.op_ptr.tolist(), s.rank_of.tolist()
        self.kind, self.size, self.peer, self.tag, self.cpu, self.nic = (
            c.tolist() for c in (s.kind, s.size, s.peer, s.tag, s.cpu, s.nic))
        n_cpu, n_nic = 1 + max(self.cpu, default=0), 1 + max(self.nic, default=0)
        self.nexto = [[0.0] * n_cpu for _ in range(P)]
        self.nextgr = [[0.0] * n_nic for _ in range(P)]
        self.nextgs = [[0.0] * n_nic for _ in range(P)]
        self.need_req, self.need_ireq = [0] * n, [0] * n
        self.dep_req: list[list[int]] = [[] for _ in range(n)]
        self.dep_ireq: list[list[int]] = [[] for _ in range(n)]
        for need, dep, a_col, b_col in ((self.need_req, self.dep_req, s.req_a, s.req_b),
                                        (self.need_ireq, self.dep_ireq, s.ireq_a, s.ireq_b)):
            for a, b in zip(a_col.tolist(), b_col.tolist()):
                need[a] += 1
                dep[b].append(a)
        self.issued, self.started, self.done = [False] * n, [False] * n, [False] * n
        self.start, self.end = np.full(n, np.nan), np.full(n, np.nan)
        self.rq = [_MatchQueue() for _ in range(P)]
        self.uq = [_MatchQueue() for _ in range(P)]
        self.fresh: list[list[int]] = [[] for _ in range(P)]
        self.aq: list[tuple[float, int, str, int, Any]] = []
        self.ts = 0

    def ready(self, i: int) -> None:
        if self.need_req[i] == 0 and self.need_ireq[i] == 0 and not self.issued[i]:
            self.issued[i] = True
            self.fresh[self.rank[i]].append(i)

    def mark_started(self, i: int) -> None:
        if not self.started[i]:
            self.started[i] = True
            for j in self.dep_ireq[i]:
                self.need_ireq[j] -= 1
                self.ready(j)

    def mark_done(self, i: int) -> None:
        self.mark_started(i)
        if not self.done[i]:
            self.done[i] = True
            for j in self.dep_req[i]:
                self.need_req[j] -= 1
                self.ready(j)

    def push(self, t: float, its: int, kind: str, h: int, payload: Any) -> None:
        heapq.heappush(self.aq, (t, its, kind, h, payload))

    def issue(self, h: int, initial: bool) -> None:
        new = self.fresh[h]
        sort_like_cxx(new, self.kind, 0, len(new))  # (SEND < RECV < CALC, as LogGOPSim's types)
        self.fresh[h] = []
        for i in new:
            kind, cpu = self.kind[i], self.cpu[i]
            if initial:
                t = 0.0
            elif kind == SEND:
                t = max(self.nexto[h][cpu], self.nextgs[h][self.nic[i]])
            else:
                t = self.nexto[h][cpu]
            self.push(t, self.ts, KIND_NAMES[kind], h, i)
            self.ts += 1

    def rendezvous(self, src: int, send_idx: int, cpu: int, nic: int, t: float, check: set[int]) -> None:
        """A rendezvous send's request completes when its receive matches it."""
        self.mark_done(send_idx)
        check.add(src)
        self.nexto[src][cpu] = max(self.nexto[src][cpu], t)
        self.nextgs[src][nic] = max(self.nextgs[src][nic], t)

    def calc(self, t: float, its: int, h: int, i: int, check: set[int]) -> None:
        cpu, size = self.cpu[i], self.size[i]
        if self.nexto[h][cpu] <= t:
            self.nexto[h][cpu] = t + size
            self.start[i], self.end[i] = t, t + size
            self.mark_done(i)
            check.add(h)
        else:
            self.push(self.nexto[h][cpu], its, "calc", h, i)

    def send(self, t: float, its: int, h: int, i: int, check: set[int]) -> None:
        cpu, nic, size, p = self.cpu[i], self.nic[i], self.size[i], self.p
        if max(self.nexto[h][cpu], self.nextgs[h][nic]) > t:
            self.push(max(self.nexto[h][cpu], self.nextgs[h][nic]), its, "send", h, i)
            return
        self.mark_started(i)
        check.add(h)
        k1 = max(size - 1.0, 0.0)
        self.nexto[h][cpu] = t + p.o + k1 * self.O
        self.nextgs[h][nic] = t + p.g + k1 * p.G
        self.start[i], self.end[i] = t, t + p.o + k1 * self.O
        peer = self.peer[i]
        self.push(t + p.o + p.L, self.ts, "msg", peer, (h, peer, size, self.tag[i], i, cpu, nic))
        self.ts += 1
        if size <= self.S:
            self.mark_done(i)

    def recv(self, t: float, h: int, i: int, check: set[int]) -> None:
        self.mark_started(i)
        check.add(h)
        found = self.uq[h].match(self.peer[i], self.tag[i])
        if found is None:
            self.rq[h].push(self.peer[i], self.tag[i], i)
            return
        src, send_idx, t_start, t_end = found
        if self.size[i] > self.S:
            self.rendezvous(src, send_idx, self.cpu[i], self.nic[i], t, check)
        self.start[i], self.end[i] = t_start, t_end
        self.mark_done(i)

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
        self.start[found], self.end[found] = t, self.nexto[h][cpu]
        self.mark_done(found)
        check.add(h)

    def run(self) -> None:
        for h in range(len(self.nexto)):
            for i in range(self.op_ptr[h], self.op_ptr[h + 1]):
                self.ready(i)
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


def reference_times(schedule: GoalSchedule, params: LogGP, *, O: float = 0.0, S: float = LOGGOPSIM_S
                    ) -> tuple[np.ndarray, ...]:
    """LogGOPSim's main loop in plain Python (slow, obviously right): finish per rank; start, end and done per
    operation. New operations are ordered by the same emulation of its ``std::sort`` as the kernel's."""
    run = _Run(schedule, params, O, S)
    run.run()
    return np.array([max(c) for c in run.nexto], dtype=np.float64), run.start, run.end, np.array(run.done, np.bool_)


# ---------------------------------------------------------------------------------------------
# libstdc++'s std::sort on operation indices keyed by their kind


def _linear_insert(a, kind, last):
    val = a[last]
    nxt = last - 1
    while kind[val] < kind[a[nxt]]:
        a[last] = a[nxt]
        last = nxt
        nxt -= 1
    a[last] = val


def _insertion_sort(a, kind, first, last):
    if first == last:
        return
    for i in range(first + 1, last):
        if kind[a[i]] < kind[a[first]]:
            a[first:i + 1] = [a[i], *a[first:i]]
        else:
            _linear_insert(a, kind, i)


def sort_like_cxx(a, kind, first, last):
    """Sort the operations a[first:last] by kind the way LogGOPSim's ``std::sort`` does with
    libstdc++ (introsort, median-of-three pivot, insertion sort below 17 elements): not stable,
    and the order it leaves among operations of one kind decides which is issued first."""
    n = last - first
    if n < 2:
        return
    if n <= 16:
        _insertion_sort(a, kind, first, last)
        return
    stack = [(first, last, 2 * (n.bit_length() - 1))]
    while stack:
        lo, hi, lim = stack.pop()
        while hi - lo > 16:
            if lim == 0:  # libstdc++ switches to heap sort here; a stable sort stands in for it
                a[lo:hi] = sorted(a[lo:hi], key=kind.__getitem__)
                break
            lim -= 1
            mid = lo + (hi - lo) // 2
            x, y, z = lo + 1, mid, hi - 1  # move the median of three to lo
            kx, ky, kz = kind[a[x]], kind[a[y]], kind[a[z]]
            if kx < ky:
                m = y if ky < kz else (z if kx < kz else x)
            else:
                m = x if kx < kz else (z if ky < kz else y)
            a[lo], a[m] = a[m], a[lo]
            pivot = kind[a[lo]]
            f, l_ = lo + 1, hi
            while True:
                while kind[a[f]] < pivot:
                    f += 1
                l_ -= 1
                while pivot < kind[a[l_]]:
                    l_ -= 1
                if not f < l_:
                    break
                a[f], a[l_] = a[l_], a[f]
                f += 1
            stack.append((f, hi, lim))
            hi = f
    _insertion_sort(a, kind, first, first + 16)
    for i in range(first + 16, last):
        _linear_insert(a, kind, i)
