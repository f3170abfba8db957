"""LogGOPSim compatibility: its textual GOAL schedules and its simulation semantics.

LogGOPSim (Hoefler, Schneider, Lumsdaine, 2010) differs from paper 002's algorithm in three ways
that change predicted times: a host has separate send and receive gaps (``nextgs``, ``nextgr``)
next to its CPU overhead clock (``nexto``); a message's receive overhead is charged when the
message arrives (``o + (k-1)G`` from then on, whether or not the receive was posted); and events
are processed in time order with ties in creation order, so there is no priority of receives
over sends. A message is injected at ``t + o`` and its first byte arrives at ``t + o + L``.
``O`` is the overhead per byte and messages above ``S`` bytes use a rendezvous: the send
completes when the receiver matches it. This module reads and writes GOAL text, turns a
:class:`~perfcompose.loggp.program.Program` into a GOAL schedule, and simulates a schedule with
those rules, so that the two tools can be run on the same input and compared.
"""
from __future__ import annotations

import heapq
import math
import re
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from perfcompose.errors import InputError
from perfcompose.loggp.params import LogGP
from perfcompose.loggp.program import CommStep, CompStep, Program
from perfcompose.loggp.simulate import Op

__all__ = ["GoalOp", "GoalRank", "GoalSchedule", "GoalResult", "read_goal", "parse_goal", "goal_text",
           "program_to_goal", "simulate_goal", "simulate_program_loggopsim", "ANY"]

ANY = -1  #: any source / any tag (written -1 in GOAL)

_SEND, _RECV, _CALC = "send", "recv", "calc"
_TYPE_ORDER = {_SEND: 1, _RECV: 2, _CALC: 3}  # LogGOPSim issues new ops sorted by type


@dataclass(frozen=True)
class GoalOp:
    """One GOAL operation: a send (``peer`` = destination), a receive (``peer`` = source, or ANY)
    or a local computation (``size`` = its duration)."""

    kind: str
    size: float
    peer: int = 0
    tag: int = 0
    cpu: int = 0
    nic: int = 0
    label: str = ""
    line: int = 0
    origin: tuple[Any, ...] | None = None  # (step, message) or ("comp", step) when made from a Program


@dataclass(frozen=True)
class GoalRank:
    """The operations of one rank and its dependencies as (op, op it depends on) index pairs:
    ``requires`` waits for completion, ``irequires`` for the start."""

    ops: tuple[GoalOp, ...] = ()
    requires: tuple[tuple[int, int], ...] = ()
    irequires: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class GoalSchedule:
    """A GOAL schedule: one :class:`GoalRank` per rank."""

    ranks: tuple[GoalRank, ...]

    @property
    def num_ranks(self) -> int:
        return len(self.ranks)


# ---------------------------------------------------------------------------------------------
# GOAL text


_RE_OP = re.compile(
    r"^(?:(?P<label>[A-Za-z][A-Za-z0-9_]*)\s*:\s*)?"
    r"(?:(?P<kind>send|recv)\s+(?P<size>\d+)\s*b\s+(?P<dir>to|from)\s+(?P<peer>-1|\d+)"
    r"(?:\s+tag\s+(?P<tag>-1|\d+))?(?:\s+cpu\s+(?P<cpu>\d+))?(?:\s+nic\s+(?P<nic>\d+))?"
    r"|(?P<calc>calc)\s+(?P<csize>\d+)(?:\s+cpu\s+(?P<ccpu>\d+))?)\s*$")
_RE_DEP = re.compile(r"^(?P<a>[A-Za-z][A-Za-z0-9_]*)\s+(?P<how>requires|irequires)\s+(?P<b>[A-Za-z][A-Za-z0-9_]*)\s*$")
_RE_RANK = re.compile(r"^rank\s+(?P<rank>\d+)\s*\{\s*$")
_RE_NUM = re.compile(r"^num_ranks\s+(?P<n>\d+)\s*$")

_GOAL_HINT = ("GOAL lines: 'num_ranks N', 'rank R {', 'l1: send 8b to 1 tag 0', 'l2: recv 8b from 0 tag 0', "
              "'l3: calc 100', 'l3 requires l1', 'l2 irequires l1', '}'")


def _strip_comments(text: str) -> str:
    """Blank out // and /* */ comments, keeping line and column numbers."""
    def blank(m: re.Match[str]) -> str:
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r"/\*.*?\*/|//[^\n]*", blank, text, flags=re.S)


def parse_goal(text: str, path: str | Path = "<goal>") -> GoalSchedule:
    """Parse GOAL text (LogGOPSim's txt2bin input); errors name the file, line and column."""
    lines = _strip_comments(text).split("\n")
    raw_lines = text.split("\n")
    num_ranks: int | None = None
    ranks: dict[int, GoalRank] = {}
    current: int | None = None
    ops: list[GoalOp] = []
    deps: list[tuple[str, str, str, int, int]] = []

    def error(k: int, message: str, column: int | None = None, hint: str | None = _GOAL_HINT) -> InputError:
        col = column if column is not None else len(lines[k]) - len(lines[k].lstrip()) + 1
        return InputError(message, path=path, line=k + 1, column=col, source_line=raw_lines[k], hint=hint)

    for k, full in enumerate(lines):
        line = full.strip()
        if not line:
            continue
        if current is None:
            if (m := _RE_NUM.match(line)):
                if num_ranks is not None:
                    raise error(k, "num_ranks given twice")
                num_ranks = int(m["n"])
                if num_ranks < 1:
                    raise error(k, "num_ranks must be at least 1")
            elif (m := _RE_RANK.match(line)):
                if num_ranks is None:
                    raise error(k, "'num_ranks N' must come before the first rank")
                current = int(m["rank"])
                if current >= num_ranks:
                    raise error(k, f"rank {current} is not below num_ranks = {num_ranks}")
                if current in ranks:
                    raise error(k, f"rank {current} defined twice")
                ops, deps = [], []
            else:
                raise error(k, "expected 'num_ranks N' or 'rank R {'")
            continue
        if line == "}":
            labels: dict[str, int] = {}
            for i, op in enumerate(ops):
                if op.label:
                    labels[op.label] = i
            req: list[tuple[int, int]] = []
            ireq: list[tuple[int, int]] = []
            for a, how, b, line_no, col in deps:
                for name, c in ((a, col), (b, raw_lines[line_no].find(b, col) + 1)):
                    if name not in labels:
                        raise error(line_no, f"undefined label {name!r}", column=c,
                                    hint=f"label an operation of rank {current} '{name}: ...' first")
                (req if how == "requires" else ireq).append((labels[a], labels[b]))
            ranks[current] = GoalRank(tuple(ops), tuple(req), tuple(ireq))
            current = None
            continue
        if (m := _RE_DEP.match(line)):
            deps.append((m["a"], m["how"], m["b"], k, full.find(m["a"]) + 1))
            continue
        m = _RE_OP.match(line)
        if not m:
            raise error(k, f"cannot read this line of rank {current}")
        if m["label"] and any(op.label == m["label"] for op in ops):
            raise error(k, f"label {m['label']!r} defined twice in rank {current}")
        assert num_ranks is not None
        if m["calc"]:
            ops.append(GoalOp(_CALC, float(m["csize"]), cpu=int(m["ccpu"] or 0), label=m["label"] or "",
                              line=k + 1))
            continue
        kind, peer = m["kind"], int(m["peer"])
        if (kind == _SEND) != (m["dir"] == "to"):
            raise error(k, f"a {kind} is written '{kind} NB {'to' if kind == _SEND else 'from'} RANK'")
        col = full.find(m["peer"], full.find(m["dir"])) + 1
        if peer == ANY and kind == _SEND:
            raise error(k, "a send needs a destination rank, not -1", column=col)
        if peer >= num_ranks:
            raise error(k, f"rank {peer} is not below num_ranks = {num_ranks}", column=col)
        tag = int(m["tag"]) if m["tag"] is not None else 0
        if tag == ANY and kind == _SEND:
            raise error(k, "a send needs a tag, not -1")
        ops.append(GoalOp(kind, float(m["size"]), peer, tag, int(m["cpu"] or 0), int(m["nic"] or 0),
                          m["label"] or "", k + 1))
    if current is not None:
        raise InputError(f"rank {current} is not closed", path=path, line=len(lines),
                         hint="end every rank block with a line '}'")
    if num_ranks is None:
        raise InputError("no 'num_ranks N' line", path=path, hint=_GOAL_HINT)
    return GoalSchedule(tuple(ranks.get(r, GoalRank()) for r in range(num_ranks)))


def read_goal(path: Path | str) -> GoalSchedule:
    """Read a GOAL file."""
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise InputError(f"cannot read the schedule: {exc.strerror}", path=path) from None
    except UnicodeDecodeError:
        raise InputError("the schedule is not text", path=path) from None
    return parse_goal(text, path)


def _int_text(value: float, what: str, scale: float) -> str:
    v = value * scale
    r = round(v)
    if abs(v - r) > 1e-6 * max(1.0, abs(v)):
        raise InputError(f"GOAL holds integer {what}; {value!r} x {scale:g} is not one",
                         hint="choose a time scale that makes the times integers (e.g. 1000 for us -> ns)")
    return str(int(r))


def goal_text(schedule: GoalSchedule, *, time_scale: float = 1.0) -> str:
    """GOAL text of a schedule (computation times multiplied by ``time_scale``, as GOAL holds
    integers)."""
    out = [f"num_ranks {schedule.num_ranks}", ""]
    for r, rank in enumerate(schedule.ranks):
        out.append(f"rank {r} {{")
        labels = [op.label or f"l{i}" for i, op in enumerate(rank.ops)]
        for op, label in zip(rank.ops, labels):
            if op.kind == _CALC:
                text = f"calc {_int_text(op.size, 'times', time_scale)}"
            else:
                size = _int_text(op.size, "message sizes", 1.0)
                text = f"{op.kind} {size}b {'to' if op.kind == _SEND else 'from'} {op.peer} tag {op.tag}"
            if op.cpu:
                text += f" cpu {op.cpu}"
            if op.nic and op.kind != _CALC:
                text += f" nic {op.nic}"
            out.append(f"  {label}: {text}")
        for a, b in rank.requires:
            out.append(f"  {labels[a]} requires {labels[b]}")
        for a, b in rank.irequires:
            out.append(f"  {labels[a]} irequires {labels[b]}")
        out.append("}")
        out.append("")
    return "\n".join(out)


def program_to_goal(program: Program) -> GoalSchedule:
    """The GOAL schedule of a program: per rank, each step's operations depend on a zero-length
    ``calc 0`` that completes the previous step; a communication step posts all its receives and
    issues its sends in send order (as a sequence of MPI_Isend/MPI_Irecv and a wait)."""
    P = program.P
    ops: list[list[GoalOp]] = [[] for _ in range(P)]
    req: list[list[tuple[int, int]]] = [[] for _ in range(P)]
    barrier: list[int | None] = [None] * P
    offset = 0
    for k, s in enumerate(program.steps):
        new: list[list[int]] = [[] for _ in range(P)]
        if isinstance(s, CompStep):
            for p in range(P):
                ops[p].append(GoalOp(_CALC, float(s.durations[p]), label=f"c{k}", origin=("comp", k)))
                new[p].append(len(ops[p]) - 1)
        else:
            assert isinstance(s, CommStep)
            for p in range(P):
                for m in s.send_order(p):
                    ops[p].append(GoalOp(_SEND, float(s.nbytes[m]), int(s.dst[m]), offset + m,
                                         label=f"s{offset + m}", origin=("send", offset + m)))
                    new[p].append(len(ops[p]) - 1)
            for m in range(s.M):
                d = int(s.dst[m])
                ops[d].append(GoalOp(_RECV, float(s.nbytes[m]), int(s.src[m]), offset + m,
                                     label=f"r{offset + m}", origin=("recv", offset + m)))
                new[d].append(len(ops[d]) - 1)
            offset += s.M
        for p in range(P):
            if barrier[p] is not None:
                req[p].extend((i, barrier[p]) for i in new[p])
            if new[p]:
                ops[p].append(GoalOp(_CALC, 0.0, label=f"b{k}"))
                b = len(ops[p]) - 1
                req[p].extend((b, i) for i in new[p])
                barrier[p] = b
    return GoalSchedule(tuple(GoalRank(tuple(o), tuple(r)) for o, r in zip(ops, req)))


# ---------------------------------------------------------------------------------------------
# the simulation


class _MatchQueue:
    """LogGOPSim's posted-receive / unexpected-message queue: the first entry (in insertion order)
    whose source and tag match, with -1 matching anything on either side."""

    def __init__(self) -> None:
        self._entries: dict[int, tuple[int, int, Any]] = {}
        self._exact: dict[tuple[int, int], deque[int]] = {}
        self._wild = 0
        self._next = 0

    def __len__(self) -> int:
        return len(self._entries)

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


@dataclass(frozen=True, eq=False)
class GoalResult:
    """Per-rank finish time (LogGOPSim's: the latest ``nexto``) and every operation's CPU interval
    (a receive's is when its overhead was charged, on arrival)."""

    finish: np.ndarray
    start: list[np.ndarray]
    end: list[np.ndarray]
    schedule: GoalSchedule = field(repr=False)

    @property
    def makespan(self) -> float:
        return float(self.finish.max()) if self.finish.size else 0.0


def simulate_goal(schedule: GoalSchedule, params: LogGP, *, O: float = 0.0, S: float = math.inf,
                  path: str | Path | None = None) -> GoalResult:
    """Run a GOAL schedule with LogGOPSim's rules (its LogGOPSim.cpp main loop, without a
    network model or OS noise); times in the parameters' unit."""
    L, o, g, G = params.L, params.o, params.g, params.G
    P = schedule.num_ranks
    ranks = schedule.ranks
    n_cpu = [1 + max((op.cpu for op in r.ops), default=0) for r in ranks]
    n_nic = [1 + max((op.nic for op in r.ops), default=0) for r in ranks]
    nexto = [[0.0] * c for c in n_cpu]
    nextgr = [[0.0] * n for n in n_nic]
    nextgs = [[0.0] * n for n in n_nic]
    need_req = [[0] * len(r.ops) for r in ranks]
    need_ireq = [[0] * len(r.ops) for r in ranks]
    dep_req: list[list[list[int]]] = [[[] for _ in r.ops] for r in ranks]
    dep_ireq: list[list[list[int]]] = [[[] for _ in r.ops] for r in ranks]
    for h, r in enumerate(ranks):
        for a, b in r.requires:
            need_req[h][a] += 1
            dep_req[h][b].append(a)
        for a, b in r.irequires:
            need_ireq[h][a] += 1
            dep_ireq[h][b].append(a)
    for h, r in enumerate(ranks):  # receives of a rank that does not exist would never match
        for op in r.ops:
            if op.kind != _CALC and op.peer >= P:
                raise InputError(f"rank {h} names rank {op.peer}, but there are {P}", path=path, line=op.line)
    issued = [[False] * len(r.ops) for r in ranks]
    started = [[False] * len(r.ops) for r in ranks]
    done = [[False] * len(r.ops) for r in ranks]
    start = [np.full(len(r.ops), np.nan) for r in ranks]
    end = [np.full(len(r.ops), np.nan) for r in ranks]
    rq = [_MatchQueue() for _ in range(P)]
    uq = [_MatchQueue() for _ in range(P)]
    fresh: list[list[int]] = [[] for _ in range(P)]
    aq: list[tuple[float, int, str, int, Any]] = []
    ts = 0

    def ready(h: int, i: int) -> None:
        if need_req[h][i] == 0 and need_ireq[h][i] == 0 and not issued[h][i]:
            issued[h][i] = True
            fresh[h].append(i)

    def mark_started(h: int, i: int) -> None:
        if not started[h][i]:
            started[h][i] = True
            for j in dep_ireq[h][i]:
                need_ireq[h][j] -= 1
                ready(h, j)

    def mark_done(h: int, i: int) -> None:
        mark_started(h, i)
        if not done[h][i]:
            done[h][i] = True
            for j in dep_req[h][i]:
                need_req[h][j] -= 1
                ready(h, j)

    def issue(h: int, initial: bool) -> None:
        nonlocal ts
        new = sorted(fresh[h], key=lambda i: (_TYPE_ORDER[ranks[h].ops[i].kind], i))
        fresh[h] = []
        for i in new:
            op = ranks[h].ops[i]
            if initial:
                t = 0.0
            elif op.kind == _SEND:
                t = max(nexto[h][op.cpu], nextgs[h][op.nic])
            else:
                t = nexto[h][op.cpu]
            heapq.heappush(aq, (t, ts, op.kind, h, i))
            ts += 1

    for h in range(P):
        for i in range(len(ranks[h].ops)):
            ready(h, i)
        issue(h, True)

    while aq:
        t, its, kind, h, payload = heapq.heappop(aq)
        check: set[int] = set()
        if kind == _CALC:
            op = ranks[h].ops[payload]
            if nexto[h][op.cpu] <= t:
                nexto[h][op.cpu] = t + op.size
                start[h][payload], end[h][payload] = t, t + op.size
                mark_done(h, payload)
                check.add(h)
            else:
                heapq.heappush(aq, (nexto[h][op.cpu], its, kind, h, payload))
        elif kind == _SEND:
            op = ranks[h].ops[payload]
            if max(nexto[h][op.cpu], nextgs[h][op.nic]) <= t:
                mark_started(h, payload)
                check.add(h)
                k1 = max(op.size - 1.0, 0.0)
                nexto[h][op.cpu] = t + o + k1 * O
                nextgs[h][op.nic] = t + g + k1 * G
                start[h][payload], end[h][payload] = t, t + o + k1 * O
                msg = (h, op.peer, op.size, op.tag, payload, op.cpu, op.nic)
                heapq.heappush(aq, (t + o + L, ts, "msg", op.peer, msg))
                ts += 1
                if op.size <= S:
                    mark_done(h, payload)
            else:
                heapq.heappush(aq, (max(nexto[h][op.cpu], nextgs[h][op.nic]), its, kind, h, payload))
        elif kind == _RECV:
            op = ranks[h].ops[payload]
            mark_started(h, payload)
            check.add(h)
            found = uq[h].match(op.peer, op.tag)
            if found is not None:
                src, send_idx, t_start, t_end = found
                if op.size > S:  # rendezvous: the sender's request completes now
                    mark_done(src, send_idx)
                    check.add(src)
                    nexto[src][op.cpu] = max(nexto[src][op.cpu], t)
                    nextgs[src][op.nic] = max(nextgs[src][op.nic], t)
                start[h][payload], end[h][payload] = t_start, t_end
                mark_done(h, payload)
            else:
                rq[h].push(op.peer, op.tag, payload)
        else:  # a message arriving at host h
            src, _, size, tag, send_idx, cpu, nic = payload
            if max(nexto[h][cpu], nextgr[h][nic]) <= t:
                k1 = max(size - 1.0, 0.0)
                nexto[h][cpu] = t + o + max(k1 * O, k1 * G)
                nextgr[h][nic] = t + g + k1 * G
                found = rq[h].match(src, tag)
                if found is not None:
                    if size > S:
                        mark_done(src, send_idx)
                        check.add(src)
                        nexto[src][cpu] = max(nexto[src][cpu], t)
                        nextgs[src][nic] = max(nextgs[src][nic], t)
                    start[h][found], end[h][found] = t, nexto[h][cpu]
                    mark_done(h, found)
                    check.add(h)
                else:
                    uq[h].push(src, tag, (src, send_idx, t, nexto[h][cpu]))
            else:
                heapq.heappush(aq, (max(nexto[h][cpu], nextgr[h][nic]), its, kind, h, payload))
        for host in sorted(check):
            issue(host, False)

    for h in range(P):
        if not all(done[h]):
            i = done[h].index(False)
            op = ranks[h].ops[i]
            what = f"{op.kind} {op.label or '#' + str(i)}" + (f" (peer {op.peer}, tag {op.tag})" if op.kind != _CALC else "")
            raise InputError(f"the schedule deadlocks: rank {h} never completes {what}", path=path,
                             line=op.line or None,
                             hint="every receive needs a matching send, and dependencies must not form a cycle")
    finish = np.array([max(c) for c in nexto], dtype=np.float64)
    return GoalResult(finish, start, end, schedule)


def simulate_program_loggopsim(program: Program, params: LogGP, *, O: float = 0.0,
                               S: float = math.inf) -> "Any":
    """Simulate a program with LogGOPSim's rules (through its GOAL schedule)."""
    from perfcompose.loggp.execute import ProgramResult

    schedule = program_to_goal(program)
    res = simulate_goal(schedule, params, O=O, S=S)
    P = program.P
    comp = np.zeros(P)
    for s in program.steps:
        if isinstance(s, CompStep):
            comp += s.durations
    ops: list[list[Op]] = []
    for h, rank in enumerate(schedule.ranks):
        mine = []
        for i, op in enumerate(rank.ops):
            if op.origin is None:
                continue
            kind, ident = op.origin
            if kind == "comp" and op.size == 0:
                continue
            mine.append((float(res.start[h][i]), i, Op(kind, None if kind == "comp" else int(ident),
                                                      float(res.start[h][i]), float(res.end[h][i]))))
        ops.append([x[2] for x in sorted(mine, key=lambda x: (x[0], x[1]))])
    return ProgramResult(P, res.finish, comp, res.finish - comp, ops)
