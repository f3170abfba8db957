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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from perfcompose.errors import InputError
from perfcompose.loggp.goal.schedule import CALC, RECV, SEND, GoalSchedule
from perfcompose.loggp.trace.collectives import ALGORITHMS, DEFAULTS, ROOTED, expand
from perfcompose.loggp.trace.records import RankTrace, call_names, describe

__all__ = ["TracedSchedule", "COLLECTIVE_TAG", "NS", "trace_schedule", "by_required"]

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


_SKIP, _BLOCK, _START, _DONE, _COLL, _NO_RULE = range(6)
_LAST = 2 ** 62  #: the position of a join after the operations it joins


@cache
def _rules() -> tuple[np.ndarray, np.ndarray]:
    """Per call number: its rule (``_SKIP`` ... ``_COLL``) and the kind of its message."""
    def rule(name: str) -> int:
        return (_BLOCK if name in _BLOCKING else _START if name in _NONBLOCKING else _DONE if name == "done"
                else _COLL if name in ALGORITHMS else _SKIP if name in _TIMING_ONLY else _NO_RULE)
    names = call_names()
    kinds = {**_BLOCKING, **_NONBLOCKING}
    return np.array([rule(n) for n in names], np.int8), np.array([kinds.get(n, CALC) for n in names], np.int8)


def _completed(start_key: np.ndarray, start_at: np.ndarray, done_key: np.ndarray, done_at: np.ndarray) -> np.ndarray:
    """For each completion, the start (index) whose request it completes, or -1: the starts of a
    request handle wait in the order made and a completion takes the oldest waiting, if any."""
    n_start = len(start_key)
    key, at = np.concatenate([start_key, done_key]), np.concatenate([start_at, done_at])
    order = np.lexsort((at, key))
    key, is_start = key[order], order < n_start
    first = np.ones(len(key), bool)
    first[1:] = key[1:] != key[:-1]
    handle = np.cumsum(first) - 1
    step = np.where(is_start, 1, -1)
    level = np.cumsum(step)
    level -= (level - step)[first][handle]  # starts less completions so far, per handle
    big = 2 * len(key) + 2  # each handle's levels below every earlier handle's: one running minimum serves all
    lowest = np.minimum(np.minimum.accumulate(level - handle * big) + handle * big, 0)
    before = np.empty_like(lowest)
    before[1:] = lowest[:-1]
    before[first] = 0
    took = ~is_start & (lowest == before)  # a completion that finds an empty queue lowers the lowest level
    starts_before: np.ndarray = (np.cumsum(is_start) - is_start)[first][handle]
    took_before = (np.cumsum(took) - took)[first][handle]
    nth = np.cumsum(took) - 1 - took_before  # the n-th completion that took one takes the n-th start
    out = np.full(len(done_key), -1, np.int64)
    out[order[took] - n_start] = order[is_start][(starts_before + nth)[took]]
    return out


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


def _check_collectives(traces: Sequence[RankTrace], keys: list[dict[int, int]]) -> None:
    """Every member of a communicator makes the same collective calls on it, with the same root."""
    rooted = np.array([n in ROOTED for n in call_names()])
    calls = []  # per rank, its collective calls (record indices) per communicator (its number across the run)
    for t, mine in zip(traces, keys):
        at = np.flatnonzero(_rules()[0][t.records["call"]] == _COLL)
        calls.append({mine[cid]: at[t.records["comm"][at] == cid] for cid in np.unique(t.records["comm"][at]).tolist()})
    members = {key: t.comms[cid] for t, k in zip(traces, keys) for cid, key in k.items()}
    none = np.zeros(0, np.int64)
    for key in sorted({key for c in calls for key in c}):
        ref = next(m for m in members[key] if key in calls[m])
        t0, first = traces[ref], calls[ref][key]
        for m in members[key]:
            t, mine = traces[m], calls[m].get(key, none)
            k = min(len(mine), len(first))
            a_call, b_call = t.records["call"][mine[:k]], t0.records["call"][first[:k]]
            a_root, b_root = t.records["peer"][mine[:k]], t0.records["peer"][first[:k]]
            differ = np.flatnonzero((a_call != b_call) | (rooted[a_call] & (a_root != b_root)))
            if differ.size:
                i, j = int(mine[differ[0]]), int(first[differ[0]])
                raise InputError(f"{describe(t, i)} does not match {describe(t0, j)} on the same communicator",
                                 path=t.path, hint="collectives must be called in the same order on every rank")
            if len(mine) != len(first):
                longer, k, other = ((t, int(mine[len(first)]), ref) if len(mine) > len(first)
                                    else (t0, int(first[len(mine)]), m))
                raise InputError(f"{describe(longer, k)} has no counterpart on rank {other}", path=longer.path,
                                 hint="the traces are cut or of different runs; trace the program again")


def _groups(rec: np.ndarray, start: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The records that make operations (their indices) and their groups: each one's first and
    end position among those records and the ns of computation before it; a group is the calls that start at one
    instant; the computation before one is the time since the previous group outside the calls
    that only poll or probe (no operation of their own)."""
    t0s = rec["t0"]
    starts = np.insert(np.flatnonzero(np.diff(t0s[1:]) != 0) + 2, 0, 1)  # after the MPI_Init record
    ends = np.maximum.accumulate(np.maximum.reduceat(rec["t1"], starts))
    gaps = np.maximum(t0s[starts] - np.insert(ends[:-1], 0, start), 0.0)
    polls = np.array([n in _TIMING_ONLY and n != "finalize" for n in call_names()])[rec["call"][starts]]
    # a run of polls computes between them: its span less the time inside them
    inner = np.zeros(len(starts))
    at = starts[polls]
    inner[polls] = (rec["t1"][at] - t0s[at] - rec["bytes"][at] / NS).clip(0.0)
    keep = np.flatnonzero(~polls)
    ns = np.round(np.diff(np.cumsum(gaps + inner)[keep], prepend=0.0) * NS).astype(np.int64)
    his = np.append(starts[1:], len(rec))
    lo, hi = starts[keep], his[keep]
    rows = np.repeat(lo - np.cumsum(np.insert(hi - lo, 0, 0))[:-1], hi - lo) + np.arange(int((hi - lo).sum()))
    first = np.cumsum(np.insert(hi - lo, 0, 0))
    return rows, first[:-1], first[1:], ns


def _rank_ops(t: RankTrace, start: float, keys: dict[int, int],
              algorithms: Mapping[str, str]) -> tuple[np.ndarray, ...]:
    """One rank's operations from its trace, in order: their kind, size, peer, tag and origin (each a column),
    then their dependencies and those on a start as (operation, operation it requires) rows, numbered within
    the rank; its time 0 is ``start`` (seconds). Each operation has
    a place (group, step, position): a group's computation is step 0, its calls' operations step 1
    (a collective's steps 1, 2, ...) and the ``calc 0`` that joins a step comes last in it."""
    rules, kinds = _rules()
    rows, first, end, gap = _groups(t.records, start)
    # (a field at a time: gathering whole records of 48 bytes took four times as long)
    call, peer, tag, comm, size, request = (t.records[f][rows].astype(np.int64, copy=False)
                                            for f in ("call", "peer", "tag", "comm", "bytes", "request"))
    rule = rules[call[first]]
    if (rule == _NO_RULE).any():
        raise AssertionError(f"call {call_names()[int(call[first][rule == _NO_RULE][0])]} has no rule")
    group_of = np.repeat(np.arange(len(first)), end - first)
    ones = np.maximum(size, 1).astype(np.float64)
    parts: list[tuple[np.ndarray, ...]] = []

    def place(g: np.ndarray, step: np.ndarray | int, pos: np.ndarray | int, kind: np.ndarray | int,
              nbytes: np.ndarray | float, to: np.ndarray | int, tags: np.ndarray | int, at: np.ndarray,
              joins: np.ndarray | bool = False, starts: bool = False) -> np.ndarray:
        """Operations at places (``g``, ``step``, ``pos``); their numbers in ``parts`` order."""
        n, begin = len(g), sum(len(p[0]) for p in parts)
        parts.append(tuple(np.broadcast_to(np.asarray(v), n) for v in (g, step, pos, kind, nbytes, to, tags, at,
                                                                         joins, starts)))
        return np.arange(begin, begin + n)

    computes = np.flatnonzero(gap > 0)
    place(computes, 0, 0, CALC, gap[computes].astype(np.float64), 0, 0, rows[first[computes]])
    blocking = np.flatnonzero((rule[group_of] == _BLOCK) & (peer != _NONE))
    place(group_of[blocking], 1, blocking, kinds[call[blocking]], ones[blocking], peer[blocking], tag[blocking],
          rows[blocking])
    several = np.flatnonzero((rule == _BLOCK) & (np.bincount(group_of[blocking], minlength=len(first)) > 1))
    place(several, 1, _LAST, CALC, 0.0, 0, 0, rows[first[several]], joins=True)
    started = np.flatnonzero((rule == _START) & (peer[first] != _NONE))
    k = first[started]
    start_ops = place(started, 1, 0, kinds[call[k]], ones[k], peer[k], tag[k], rows[k], starts=True)
    completions = np.flatnonzero(rule[group_of] == _DONE)
    took = _completed(request[k], k, request[completions], completions)
    done = took >= 0
    waits = np.flatnonzero(np.bincount(group_of[completions[done]], minlength=len(first)))
    wait_ops = place(waits, 1, _LAST, CALC, 0.0, 0, 0, rows[first[waits]], joins=True)
    collective = np.flatnonzero(rule == _COLL)
    if collective.size:
        _place_collectives(place, t, collective, rows, first, (call, comm, size, peer), keys, algorithms)
    g_, step_, pos_, kind, nbytes, to, tags, origin, joins, starts = (np.concatenate(c) for c in zip(*parts))
    order = np.lexsort((pos_, step_, g_))
    number = np.empty_like(order)
    number[order] = np.arange(len(order))
    kind, nbytes, to, tags, origin, joins, starts = (c[order] for c in (kind, nbytes, to, tags, origin, joins, starts))
    kind, to, tags = kind.astype(np.int8), to.astype(np.int64), tags.astype(np.int64)
    nbytes, origin = nbytes.astype(np.float64), origin.astype(np.int64)
    g_, step_ = g_[order], step_[order]
    new = np.ones(len(order), bool)
    new[1:] = (g_[1:] != g_[:-1]) | (step_[1:] != step_[:-1])
    block = np.cumsum(new) - 1
    last = np.append(np.flatnonzero(new)[1:], len(order)) - 1  # each block's last operation: the chain after it
    ops = np.arange(len(order))
    later = block > 0
    chain = last[block[later] - 1]
    after_start = starts[chain]
    joined = ~joins & joins[last[block]]  # a step's operations and the calc 0 that joins them
    req = [np.stack([ops[later][~after_start], chain[~after_start]], 1),
           np.stack([last[block[joined]], ops[joined]], 1),
           np.stack([number[wait_ops][np.searchsorted(waits, group_of[completions[done]])],
                     number[start_ops][took[done]]], 1)]
    ireq = np.stack([ops[later][after_start], chain[after_start]], 1)
    # what the completions say: a cancelled or never completed receive is a calc 0, a receive from
    # any source or with any tag takes its status'
    op, status = number[start_ops][took[done]], completions[done]
    recv = kind[op] == RECV
    cancelled = comm[status] != 0
    fill = op[recv & ~cancelled]
    status = status[recv & ~cancelled]
    nbytes[fill] = ones[status]
    tags[fill] = np.where(tags[fill] == -1, tag[status], tags[fill])
    source = comm[k][took[done][recv & ~cancelled]]
    for cid in np.unique(source[to[fill] == -1]).tolist():
        ranks = np.array(t.comms.get(cid, ()), np.int64)
        mine = (source == cid) & (to[fill] == -1) & (peer[status] >= 0) & (peer[status] < len(ranks))
        to[fill[mine]] = ranks[peer[status][mine]]
    never = np.ones(len(start_ops), bool)
    never[took[done]] = False
    dropped = np.concatenate([op[recv & cancelled], number[start_ops][never]])
    dropped = dropped[kind[dropped] == RECV]
    kind[dropped], nbytes[dropped], to[dropped], tags[dropped] = CALC, 0.0, 0, 0
    return kind, nbytes, to, tags, origin, np.concatenate(req).astype(np.int64, copy=False), ireq.astype(np.int64)


def _place_collectives(place: Callable[..., np.ndarray], t: RankTrace, groups: np.ndarray, rows: np.ndarray,
                       first: np.ndarray, columns: tuple[np.ndarray, ...], keys: dict[int, int],
                       algorithms: Mapping[str, str]) -> None:
    """The operations of a rank's collective calls (the ``groups`` they start): each different
    call (collective, communicator, bytes, root) expanded once, its operations repeated for every
    group that makes it."""
    calls, which = np.unique(np.stack([c[first[groups]] for c in columns], 1), axis=0, return_inverse=True)
    which = which.reshape(-1)
    for u, (c, cid, nbytes, root) in enumerate(calls.tolist()):
        members = t.comms[cid]
        name = call_names()[c]
        ops: list[tuple[int, int, int, float, int, bool]] = []  # step, position, kind, bytes, peer, join
        for n, messages in enumerate(expand(name, algorithms[name], members.index(t.rank), len(members), nbytes,
                                             root), start=1):
            ops += [(n, i, SEND if what == "send" else RECV, max(float(nb), 1.0), members[to], False)
                    for i, (what, to, nb) in enumerate(messages)]
            if len(messages) != 1:
                ops.append((n, _LAST, CALC, 0.0, 0, True))
        if not ops:
            continue
        mine = groups[which == u]
        step, pos, kind, nb, to, joins = (np.tile(np.array(v), mine.shape[0]) for v in zip(*ops))
        tag = np.where(kind == CALC, 0, COLLECTIVE_TAG + keys[cid])
        place(np.repeat(mine, len(ops)), step, pos, kind, nb, to, tag, np.repeat(rows[first[mine]], len(ops)),
              joins=joins)


def _check_messages(s: GoalSchedule, origin: np.ndarray, traces: Sequence[RankTrace]) -> None:
    """Every send meets a receive on its channel (source, destination, tag) and the other way round."""
    rank = s.rank_of.astype(np.int64)
    exact = (s.kind != CALC) & (s.peer >= 0) & (s.tag >= 0)
    is_send = s.kind == SEND
    src = np.where(is_send, rank, s.peer)[exact]
    dst = np.where(is_send, s.peer, rank)[exact]
    idx = np.flatnonzero(exact)
    P = s.num_ranks
    pair, tags = src * P + dst, s.tag[exact].astype(np.int64)
    if P * P < 2 ** 31:  # (pair, tag) as one number (tags are below 2^32): sorted as the pairs are, and faster
        key, sent = pair << 32 | tags, is_send[exact]
        if np.array_equal(np.sort(key[sent]), np.sort(key[~sent])):
            return  # the same channels as often: every message pairs up
        chan, inv = np.unique(key, return_inverse=True)
        chan = np.stack([chan >> 32, chan & 0xFFFFFFFF], axis=1)
    else:
        chan, inv = np.unique(np.stack([pair, tags], axis=1), axis=0, return_inverse=True)
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
    """The GOAL schedule of a traced run (times in ns), collectives by ``algorithms`` (checked; the defaults for the
    collectives it leaves out)."""
    for name, alg in (algorithms or {}).items():
        if name not in ALGORITHMS:
            raise InputError(f"no collective {name!r}", hint="collectives: " + ", ".join(ALGORITHMS))
        if alg not in ALGORITHMS[name]:
            raise InputError(f"no algorithm {alg!r} for {name}", hint=f"{name}: " + ", ".join(ALGORITHMS[name]))
    algs = {**DEFAULTS, **(algorithms or {})}
    keys = _comm_keys(traces)
    _check_collectives(traces, keys)
    start = min(float(t.records["t1"][0]) for t in traces)
    kinds, *columns, reqs, ireqs = zip(*(_rank_ops(t, start, k, algs) for t, k in zip(traces, keys)))
    ptr = np.zeros(len(traces) + 1, np.int64)
    np.cumsum([len(k) for k in kinds], out=ptr[1:])
    (req_a, req_b), (ireq_a, ireq_b) = (by_required(*np.concatenate([r + ptr[k] for k, r in enumerate(rows)]).T)
                                        for rows in (reqs, ireqs))
    kind, size, peer, tag, origin = (np.concatenate(c) for c in (kinds, *columns))
    zeros = np.zeros(kind.shape[0], np.int64)
    sched = GoalSchedule(len(traces), ptr, kind, size, peer, tag, zeros, zeros.copy(), req_a, req_b, ireq_a, ireq_b)
    _check_messages(sched, origin, traces)
    calc = np.bincount(sched.rank_of, np.where(kind == CALC, size, 0.0), minlength=len(traces)) / NS
    return TracedSchedule(sched, origin, max(float(t.records["t0"][-1]) for t in traces) - start, calc)


def by_required(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dependencies (``a`` requires ``b``) ordered by the operation required, then the dependent one, as the GOAL
    readers give them."""
    order = np.argsort(b * (int(a.max(initial=0)) + 1) + a, kind="stable")
    return a[order], b[order]
