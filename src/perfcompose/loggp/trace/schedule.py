"""A traced MPI run as a GOAL schedule (times in ns), as LogGOPSim's Schedgen builds one.

Each rank's calls are read in order; calls that start at the same instant (the halves of an
MPI_Sendrecv, the requests one MPI_Waitall completes) form one group. The time between one
group's end and the next one's start is computation, a ``calc``. Every operation depends on the
rank's *chain*, the operation before it:

=============================  ================================================================
call                           operations
=============================  ================================================================
MPI_Send, Recv, Mrecv          a send / recv that ``requires`` the chain; it becomes the chain
MPI_Sendrecv                   a send and a recv that require the chain, joined by a ``calc 0``
MPI_Isend, Irecv               a send / recv that requires the chain; the next operation
                               ``irequires`` it (it may start once the send or recv has started)
MPI_Wait, Waitall, Test, ...   a ``calc 0`` requiring the chain and every request completed
                               (a receive from any source or with any tag takes its status')
collective                     the steps of its algorithm (:mod:`.collectives`): each step's
                               messages require the chain, a ``calc 0`` joins a step of several
a cancelled request            its recv becomes a ``calc 0`` (so does a recv never completed by
                               the end of the run)
MPI_Probe, Iprobe, Test (not   nothing (their time is neither computation nor communication)
done), Waitany (none), Cancel
=============================  ================================================================

Peers are world ranks; a message of 0 bytes is written as 1 byte (LogGOPSim charges (k - 1)G for
k bytes, in unsigned integers). Collective messages carry the tag :data:`COLLECTIVE_TAG` plus the number
of their communicator, so that they never match the program's own messages. A run whose messages
do not pair up (a receive without its send) or whose ranks disagree on a communicator's
collectives is an error naming the rank and the call.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from perfcompose.errors import InputError
from perfcompose.loggp.goal.schedule import CALC, RECV, SEND, GoalSchedule
from perfcompose.loggp.trace.collectives import ALGORITHMS, DEFAULTS, expand
from perfcompose.loggp.trace.records import RankTrace, call_names, describe

__all__ = ["TracedSchedule", "COLLECTIVE_TAG", "NS", "trace_schedule", "measured_span", "choose_algorithms"]

NS = 1e9  #: schedule time units per second
COLLECTIVE_TAG = 2 ** 30
_BLOCKING = {"send": SEND, "sendrecv_send": SEND, "recv": RECV, "sendrecv_recv": RECV, "mrecv": RECV}
_NONBLOCKING = {"isend": SEND, "irecv": RECV}
_TIMING_ONLY = frozenset({"probe", "test", "wait_none", "cancel", "init", "finalize"})
_NONE = -2  # the tracer's peer of MPI_PROC_NULL and of calls without a peer


@dataclass(frozen=True, eq=False)
class TracedSchedule:
    """A traced run's schedule; ``origin[i]`` is the call (record index in its rank's trace) that
    operation ``i`` comes from; ``measured`` the run's span in seconds (first MPI_Init end to last
    MPI_Finalize start) and ``calc`` each rank's computation in seconds."""

    schedule: GoalSchedule
    origin: np.ndarray
    measured: float
    calc: np.ndarray


@dataclass
class _Rank:
    """The operations of one rank being built: (kind, size, peer, tag, origin) each, and the
    dependencies as local index pairs."""

    ops: list[tuple[int, float, int, int, int]] = field(default_factory=list)
    req: list[tuple[int, int]] = field(default_factory=list)
    ireq: list[tuple[int, int]] = field(default_factory=list)
    chain: tuple[int, bool] | None = None  # (operation, whether the next one only needs its start)

    def add(self, kind: int, size: float, peer: int, tag: int, origin: int) -> int:
        i = len(self.ops)
        self.ops.append((kind, size if kind == CALC else max(size, 1.0), peer, tag, origin))
        if self.chain is not None:
            (self.ireq if self.chain[1] else self.req).append((i, self.chain[0]))
        return i

    def join(self, ops: Sequence[int], origin: int, *, always: bool = False) -> None:
        """The chain becomes the single operation ``ops``, else a ``calc 0`` requiring them all."""
        if len(ops) == 1 and not always:
            self.chain = (ops[0], False)
            return
        j = self.add(CALC, 0.0, 0, 0, origin)
        self.req.extend((j, o) for o in ops)
        self.chain = (j, False)


def choose_algorithms(chosen: Mapping[str, str]) -> dict[str, str]:
    """The algorithm of every collective: the defaults, replaced by ``chosen`` (checked)."""
    for name, alg in chosen.items():
        if name not in ALGORITHMS:
            raise InputError(f"no collective {name!r}", hint="collectives: " + ", ".join(ALGORITHMS))
        if alg not in ALGORITHMS[name]:
            raise InputError(f"no algorithm {alg!r} for {name}", hint=f"{name}: " + ", ".join(ALGORITHMS[name]))
    return {**DEFAULTS, **chosen}


def measured_span(traces: Sequence[RankTrace]) -> float:
    """Seconds from the first rank's end of MPI_Init to the last rank's start of MPI_Finalize."""
    return max(float(t.records["t0"][-1]) for t in traces) - min(float(t.records["t1"][0]) for t in traces)


def _comm_keys(traces: Sequence[RankTrace]) -> list[dict[int, int]]:
    """Per rank, its communicator ids numbered across the run: communicators with the same
    members are told apart by their order on the rank (the tracer numbers them as they are made,
    which their members do together, else as they are first used)."""
    keys: dict[tuple[tuple[int, ...], int], int] = {}
    out = []
    for t in traces:
        seen: dict[tuple[int, ...], int] = {}
        mine = {}
        for cid in sorted(t.comms):
            members = t.comms[cid]
            nth = seen[members] = seen.get(members, -1) + 1
            mine[cid] = keys.setdefault((members, nth), len(keys))
        out.append(mine)
    return out


def _collective_calls(t: RankTrace, mine: dict[int, int]) -> dict[int, list[int]]:
    """A rank's collective calls (record indices) per communicator (its number across the run)."""
    names = call_names()
    is_coll = np.array([n in ALGORITHMS for n in names])
    out: dict[int, list[int]] = {}
    for i in np.flatnonzero(is_coll[t.records["call"]]).tolist():
        out.setdefault(mine[int(t.records["comm"][i])], []).append(i)
    return out


def _check_collectives(traces: Sequence[RankTrace], keys: list[dict[int, int]]) -> None:
    """Every member of a communicator makes the same collective calls on it, with the same root."""
    names = call_names()
    calls = [_collective_calls(t, k) for t, k in zip(traces, keys)]
    members = {key: t.comms[cid] for t, k in zip(traces, keys) for cid, key in k.items()}
    for key in sorted({key for c in calls for key in c}):
        ref = next(m for m in members[key] if key in calls[m])
        t0, first = traces[ref], calls[ref][key]
        for m in members[key]:
            t, mine = traces[m], calls[m].get(key, [])
            for i, j in zip(mine, first):
                a, b = t.records[i], t0.records[j]
                rooted = names[int(a["call"])] in ("bcast", "reduce", "gather", "scatter")
                if a["call"] != b["call"] or (rooted and a["peer"] != b["peer"]):
                    raise InputError(f"{describe(t, i)} does not match {describe(t0, j)} on the same communicator",
                                     path=t.path, hint="collectives must be called in the same order on every rank")
            if len(mine) != len(first):
                longer, k, other = ((t, mine[len(first)], ref) if len(mine) > len(first)
                                    else (t0, first[len(mine)], m))
                raise InputError(f"{describe(longer, k)} has no counterpart on rank {other}", path=longer.path,
                                 hint="the traces are cut or of different runs; trace the program again")


def _groups(rec: np.ndarray, start: float) -> tuple[np.ndarray, list[tuple[int, int, int]]]:
    """The records that make operations (their indices) and their groups, as (first, end, ns of
    computation before it) in positions of those records: a group is the calls that start at one
    instant; the computation before one is the time since the previous group outside the calls
    that only poll or probe (no operation of their own)."""
    t0s = rec["t0"]
    starts = np.insert(np.flatnonzero(np.diff(t0s[1:]) != 0) + 2, 0, 1)  # after the MPI_Init record
    ends = np.maximum.accumulate(np.maximum.reduceat(rec["t1"], starts))
    gaps = np.maximum(t0s[starts] - np.insert(ends[:-1], 0, start), 0.0)
    polls = np.array([n in _TIMING_ONLY and n != "finalize" for n in call_names()])[rec["call"][starts]]
    # a run of polls computes between them: its span less the time inside them
    inner = np.where(polls, rec["t1"][starts] - t0s[starts] - rec["bytes"][starts] / NS, 0.0).clip(0.0)
    keep = np.flatnonzero(~polls)
    ns = np.round(np.diff(np.cumsum(gaps + inner)[keep], prepend=0.0) * NS).astype(np.int64)
    his = np.append(starts[1:], len(rec))
    lo, hi = starts[keep], his[keep]
    rows = np.repeat(lo - np.cumsum(np.insert(hi - lo, 0, 0))[:-1], hi - lo) + np.arange(int((hi - lo).sum()))
    first = np.cumsum(np.insert(hi - lo, 0, 0))
    return rows, list(zip(first[:-1].tolist(), first[1:].tolist(), ns.tolist()))


def _rank_ops(t: RankTrace, start: float, keys: dict[int, int], algorithms: Mapping[str, str]) -> _Rank:
    """One rank's operations from its trace; its time 0 is ``start`` (seconds)."""
    names = call_names()
    rows, groups = _groups(t.records, start)
    sub = t.records[rows]
    call = [names[c] for c in sub["call"].tolist()]
    peer, tag, comm, size, request = (sub[f].tolist() for f in ("peer", "tag", "comm", "bytes", "request"))
    origin = rows.tolist()
    b = _Rank()
    pending: dict[int, list[tuple[int, int]]] = {}  # request -> [(operation, communicator id)], oldest first
    for lo, hi, gap in groups:
        if gap > 0:
            b.join([b.add(CALC, float(gap), 0, 0, origin[lo])], origin[lo])
        name = call[lo]
        if name in _BLOCKING:
            ops = [b.add(_BLOCKING[call[k]], float(size[k]), peer[k], tag[k], origin[k])
                   for k in range(lo, hi) if peer[k] != _NONE]
            if ops:
                b.join(ops, origin[lo])
        elif name in _NONBLOCKING:
            if peer[lo] != _NONE:
                op = b.add(_NONBLOCKING[name], float(size[lo]), peer[lo], tag[lo], origin[lo])
                pending.setdefault(request[lo], []).append((op, comm[lo]))
                b.chain = (op, True)
        elif name == "done":
            ops = []
            for k in range(lo, hi):
                waiting = pending.get(request[k])
                op, cid = waiting.pop(0) if waiting else (-1, 0)
                if comm[k]:  # cancelled
                    _drop_recv(b, op)
                elif op >= 0 and b.ops[op][0] == RECV:  # the status names what was received
                    members = t.comms.get(cid, ())
                    _, _, was_peer, was_tag, at = b.ops[op]
                    b.ops[op] = (RECV, max(float(size[k]), 1.0),
                                 members[peer[k]] if was_peer == -1 and 0 <= peer[k] < len(members) else was_peer,
                                 tag[k] if was_tag == -1 else was_tag, at)
                if op >= 0:
                    ops.append(op)
            if ops:
                b.join(ops, origin[lo], always=True)
        elif name in ALGORITHMS:
            members = t.comms[comm[lo]]
            steps = expand(name, algorithms[name], members.index(t.rank), len(members), size[lo], peer[lo])
            for step in steps:
                b.join([b.add(SEND if kind == "send" else RECV, float(nbytes), members[to],
                              COLLECTIVE_TAG + keys[comm[lo]], origin[lo]) for kind, to, nbytes in step], origin[lo])
        elif name not in _TIMING_ONLY:
            raise AssertionError(f"call {name} has no rule")
    for waiting in pending.values():
        for op, _ in waiting:
            _drop_recv(b, op)
    return b


def _drop_recv(b: _Rank, op: int) -> None:
    """A receive that never completes (cancelled, or pending at the end) becomes a ``calc 0``."""
    if op >= 0 and b.ops[op][0] == RECV:
        b.ops[op] = (CALC, 0.0, 0, 0, b.ops[op][4])


def _check_messages(s: GoalSchedule, origin: np.ndarray, traces: Sequence[RankTrace]) -> None:
    """Every send meets a receive on its channel (source, destination, tag) and the other way round."""
    rank = s.rank_of.astype(np.int64)
    exact = (s.kind != CALC) & (s.peer >= 0) & (s.tag >= 0)
    is_send = s.kind == SEND
    src = np.where(is_send, rank, s.peer)[exact]
    dst = np.where(is_send, s.peer, rank)[exact]
    idx = np.flatnonzero(exact)
    P = s.num_ranks
    chan, inv = np.unique(np.stack([src * P + dst, s.tag[exact]], axis=1), axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    n_send = np.bincount(inv[is_send[exact]], minlength=len(chan))
    n_recv = np.bincount(inv[~is_send[exact]], minlength=len(chan))
    bad = np.flatnonzero(n_send != n_recv)
    if not bad.size:
        return
    c = int(bad[0])
    ns, nr = int(n_send[c]), int(n_recv[c])
    a, d, tag = int(chan[c][0]) // P, int(chan[c][0]) % P, int(chan[c][1])
    surplus = idx[(inv == c) & (is_send[exact] == (ns > nr))][min(ns, nr)]
    t = traces[int(rank[surplus])]
    what = (f"rank {d} never receives it" if ns > nr else f"no send from rank {a} matches it")
    raise InputError(f"{describe(t, int(origin[surplus]))}: {what} (rank {a} sends {ns} messages with tag {tag} "
                     f"to rank {d}, which receives {nr})", path=t.path,
                     hint="the traces are cut or of different runs; trace the program again")


def trace_schedule(traces: Sequence[RankTrace], algorithms: Mapping[str, str] | None = None) -> TracedSchedule:
    """The GOAL schedule of a traced run (times in ns), collectives by ``algorithms``."""
    algs = choose_algorithms(algorithms or {})
    keys = _comm_keys(traces)
    _check_collectives(traces, keys)
    start = min(float(t.records["t1"][0]) for t in traces)
    ranks = [_rank_ops(t, start, k, algs) for t, k in zip(traces, keys)]
    counts = [len(r.ops) for r in ranks]
    ptr = np.zeros(len(ranks) + 1, np.int64)
    np.cumsum(counts, out=ptr[1:])

    def pairs(which: str) -> tuple[np.ndarray, np.ndarray]:
        both = np.concatenate([np.array(getattr(r, which), np.int64).reshape(-1, 2) + ptr[k]
                               for k, r in enumerate(ranks)])
        order = np.argsort(both[:, 1], kind="stable")  # by the operation required, as the GOAL readers give them
        return both[order, 0], both[order, 1]

    req_a, req_b = pairs("req")
    ireq_a, ireq_b = pairs("ireq")
    cols = np.array([op for r in ranks for op in r.ops], np.float64).reshape(-1, 5)
    kind, size = cols[:, 0].astype(np.int8), cols[:, 1].copy()
    peer, tag, origin = (cols[:, k].astype(np.int64) for k in (2, 3, 4))
    zeros = np.zeros(kind.shape[0], np.int64)
    sched = GoalSchedule(len(ranks), ptr, kind, size, peer, tag, zeros, zeros.copy(), req_a, req_b, ireq_a, ireq_b)
    _check_messages(sched, origin, traces)
    calc = np.bincount(sched.rank_of, np.where(kind == CALC, size, 0.0), minlength=len(ranks)) / NS
    return TracedSchedule(sched, origin, measured_span(traces), calc)
