"""LogGOPSim's textual GOAL schedules: a columnar schedule, its reader and writer, and the schedule of a
:class:`~perfcompose.loggp.steps.program.Program`.

The writer follows the grammar of LogGOPSim's ``txt2bin`` scanner: one item per line, nothing before a label
(``txt2bin`` rejects an indented line), ranks in order from 0 and every rank written, ``tag``, ``cpu`` and ``nic`` in
that order, and labels that are not keywords. The reader accepts that grammar and, more leniently, indentation and
comments anywhere.

A schedule is held as arrays over all operations (``op_ptr`` splits them by rank) so that one with millions of messages
costs a few arrays, not millions of objects; :attr:`GoalSchedule.ranks` gives the per-rank view of small schedules.
"""
from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, NamedTuple, TypeVar, overload

import numpy as np

from perfcompose.errors import InputError
from perfcompose.limits import check_memory
from perfcompose.loggp.options import SimulateOutputs
from perfcompose.loggp.steps.program import CommStep, CompStep, Program

__all__ = ["ANY", "SEND", "RECV", "CALC", "KIND_NAMES", "GoalOp", "GoalRank", "GoalSchedule", "parse_goal",
           "read_goal", "goal_text", "write_goal", "program_to_goal", "looks_like_goal", "KEYWORDS"]

ANY = -1  #: any source / any tag (written -1 in GOAL)
#: the largest tag, CPU or NIC number a schedule holds (they are kept as 64-bit integers)
MAX_NUMBER = 2 ** 63 - 1
SEND, RECV, CALC = 0, 1, 2  #: operation kinds, in the order LogGOPSim issues new operations
KIND_NAMES = ("send", "recv", "calc")
#: words txt2bin reads as keywords where a label stands (a label spelt so is a syntax error there)
KEYWORDS = frozenset({"send", "recv", "calc", "rank", "num_ranks"})
T = TypeVar("T")


class GoalOp(NamedTuple):
    """One GOAL operation: a send (``peer`` = destination), a receive (``peer`` = source, or ANY)
    or a local computation (``size`` = its duration)."""

    kind: str
    size: float
    peer: int = 0
    tag: int = 0


class GoalRank(NamedTuple):
    """The operations of one rank and its dependencies as (op, op it depends on) index pairs,
    local to the rank: ``requires`` waits for completion, ``irequires`` for the start."""

    ops: tuple[GoalOp, ...] = ()
    requires: tuple[tuple[int, int], ...] = ()
    irequires: tuple[tuple[int, int], ...] = ()


def by_required(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dependency pairs (``a`` requires ``b``) ordered by the operation required, those that require the same one in
    their order: as every reader of GOAL text gives them (:class:`GoalSchedule`)."""
    if b.size < 2 or (b[1:] >= b[:-1]).all():
        return a, b
    order = np.argsort(b, kind="stable")
    return a[order], b[order]


def _i64(a: Any) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.int64)


@dataclass(frozen=True, eq=False)
class GoalSchedule:
    """A GOAL schedule as arrays over all operations, rank by rank.

    Operation ``i`` belongs to the rank ``r`` with ``op_ptr[r] <= i < op_ptr[r+1]``; ``kind`` is SEND, RECV or CALC;
    ``peer`` the destination or source (ANY for any); dependencies are global operation indices: ``req_a[j]`` requires
    (waits for the completion of) ``req_b[j]``, ``ireq_a[j]`` irequires (waits for the start of) ``ireq_b[j]``. The
    readers of GOAL text give the pairs ordered by the operation required (``req_b``, ``ireq_b`` ascending; pairs that
    require the same one in the order of the text), which the simulation then uses as they are. ``message`` is the
    program's message id of a send or receive made by :func:`program_to_goal` (else -1); ``labels`` and ``lines`` are
    kept for schedules read from text.
    """

    num_ranks: int
    op_ptr: np.ndarray
    kind: np.ndarray
    size: np.ndarray
    peer: np.ndarray
    tag: np.ndarray
    cpu: np.ndarray
    nic: np.ndarray
    req_a: np.ndarray
    req_b: np.ndarray
    ireq_a: np.ndarray
    ireq_b: np.ndarray
    message: np.ndarray | None = None
    labels: Sequence[str] | None = None
    lines: np.ndarray | None = None

    @property
    def num_ops(self) -> int:
        return int(self.kind.shape[0])

    @property
    def rank_of(self) -> np.ndarray:
        """The rank of every operation."""
        return np.repeat(np.arange(self.num_ranks, dtype=np.int32), np.diff(self.op_ptr))

    def describe(self, i: int) -> str:
        """``send l3 (peer 1, tag 0)``: an operation, as an error message names it."""
        local = i - int(self.op_ptr[self.rank_of[i]])
        label = self.labels[i] if self.labels and self.labels[i] else f"#{local}"
        what = f"{KIND_NAMES[int(self.kind[i])]} {label}"
        if self.kind[i] != CALC:
            what += f" (peer {int(self.peer[i])}, tag {int(self.tag[i])})"
        return what

    @property
    def ranks(self) -> tuple[GoalRank, ...]:
        """The per-rank view (operations as objects, dependencies as local index pairs)."""
        out = []
        rank_of = self.rank_of
        for r in range(self.num_ranks):
            lo, hi = int(self.op_ptr[r]), int(self.op_ptr[r + 1])
            ops = tuple(GoalOp(KIND_NAMES[int(self.kind[i])], float(self.size[i]), *(
                (int(self.peer[i]), int(self.tag[i])) if self.kind[i] != CALC else ())) for i in range(lo, hi))
            mine = rank_of[self.req_a] == r
            ireq = rank_of[self.ireq_a] == r
            out.append(GoalRank(ops, tuple(zip((self.req_a[mine] - lo).tolist(), (self.req_b[mine] - lo).tolist())),
                                tuple(zip((self.ireq_a[ireq] - lo).tolist(), (self.ireq_b[ireq] - lo).tolist()))))
        return tuple(out)


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


def looks_like_goal(head: str) -> bool:
    """Whether the start of a file reads as GOAL text (its first word, after comments, is
    ``num_ranks``) rather than JSON or another format."""
    return _strip_comments(head).lstrip().startswith("num_ranks")


class _GoalParser:
    """The state of parsing one GOAL text: the rank block open, its labels and dependencies."""

    def __init__(self, text: str, path: str | Path) -> None:
        self.lines = _strip_comments(text).split("\n")
        self.raw_lines = text.split("\n")
        self.path = path
        self.num_ranks: int | None = None
        self.blocks: dict[int, tuple[int, int]] = {}  # rank -> (first op, end) in parse order
        #: per operation (kind, size, peer, tag, cpu, nic, label, line), and the dependencies as pairs of operations
        self.ops: list[tuple[int, float, int, int, int, int, str, int]] = []
        self.req: list[tuple[int, int]] = []
        self.ireq: list[tuple[int, int]] = []
        self.current: int | None = None
        self.first = 0
        self.labels: dict[str, int] = {}
        self.deps: list[tuple[str, str, str, int, int]] = []

    def error(self, k: int, message: str, column: int | None = None, hint: str | None = _GOAL_HINT) -> InputError:
        col = column if column is not None else len(self.lines[k]) - len(self.lines[k].lstrip()) + 1
        return InputError(message, path=self.path, line=k + 1, column=col, source_line=self.raw_lines[k], hint=hint)

    def outside(self, k: int, line: str) -> None:
        """A line outside a rank block: ``num_ranks N`` or ``rank R {``."""
        if (m := _RE_NUM.match(line)):
            if self.num_ranks is not None:
                raise self.error(k, "num_ranks given twice")
            self.num_ranks = int(m["n"])
            if self.num_ranks < 1:
                raise self.error(k, "num_ranks must be at least 1")
            # the schedule and the simulation keep about a dozen numbers per rank
            check_memory(self.num_ranks * 100.0, f"a GOAL schedule of {self.num_ranks:,} ranks")
        elif (m := _RE_RANK.match(line)):
            if self.num_ranks is None:
                raise self.error(k, "'num_ranks N' must come before the first rank")
            current = int(m["rank"])
            if current >= self.num_ranks:
                raise self.error(k, f"rank {current} is not below num_ranks = {self.num_ranks}")
            if current in self.blocks:
                raise self.error(k, f"rank {current} defined twice")
            self.current, self.first, self.labels, self.deps = current, len(self.ops), {}, []
        else:
            raise self.error(k, "expected 'num_ranks N' or 'rank R {'")

    def close(self) -> None:
        """The end of a rank block: its dependencies resolved by label."""
        for a, how, lb, line_no, col in self.deps:
            for name, c in ((a, col), (lb, self.raw_lines[line_no].find(lb, col) + 1)):
                if name not in self.labels:
                    raise self.error(line_no, f"undefined label {name!r}", column=c,
                                     hint=f"label an operation of rank {self.current} '{name}: ...' first")
            (self.req if how == "requires" else self.ireq).append((self.labels[a], self.labels[lb]))
        assert self.current is not None
        self.blocks[self.current] = (self.first, len(self.ops))
        self.current = None

    def operation(self, k: int, full: str, m: re.Match[str]) -> None:
        """One ``label: send|recv|calc ...`` line of the open rank block."""
        label = m["label"] or ""
        if label in KEYWORDS:
            raise self.error(k, f"label {label!r} is a GOAL keyword", hint="choose another label, e.g. l1")
        if label and label in self.labels:
            raise self.error(k, f"label {label!r} defined twice in rank {self.current}")
        num_ranks = self.num_ranks
        assert num_ranks is not None
        if label:
            self.labels[label] = len(self.ops)
        if m["calc"]:
            kind, size, peer, tag, cpu, nic = CALC, float(m["csize"]), 0, 0, int(m["ccpu"] or 0), 0
        else:
            kind, peer = (SEND if m["kind"] == "send" else RECV), int(m["peer"])
            if (kind == SEND) != (m["dir"] == "to"):
                raise self.error(k, f"a {m['kind']} is written '{m['kind']} NB {'to' if kind == SEND else 'from'} "
                                    "RANK'")
            col = full.find(m["peer"], full.find(m["dir"])) + 1
            if peer == ANY and kind == SEND:
                raise self.error(k, "a send needs a destination rank, not -1", column=col)
            if peer >= num_ranks:
                raise self.error(k, f"rank {peer} is not below num_ranks = {num_ranks}", column=col)
            tag = int(m["tag"]) if m["tag"] is not None else 0
            if tag == ANY and kind == SEND:
                raise self.error(k, "a send needs a tag, not -1")
            size, cpu, nic = float(m["size"]), int(m["cpu"] or 0), int(m["nic"] or 0)
        for what, value in (("tag", tag), ("cpu", cpu), ("nic", nic)):
            if value > MAX_NUMBER:
                text = str(value)
                raise self.error(k, f"{what} {text} is too large: at most 2^63 - 1", column=full.find(text) + 1,
                                 hint=f"number the {what}s from 0 upwards" if what != "tag" else
                                 "use tags from 0 upwards (-1 in a recv matches any tag)")
        self.ops.append((kind, size, peer, tag, cpu, nic, label, k + 1))

    def schedule(self) -> GoalSchedule:
        """The operations in rank order (a missing rank has none)."""
        if self.current is not None:
            raise InputError(f"rank {self.current} is not closed", path=self.path, line=len(self.lines),
                             hint="end every rank block with a line '}'")
        if self.num_ranks is None:
            raise InputError("no 'num_ranks N' line", path=self.path, hint=_GOAL_HINT)
        perm: list[int] = []
        ptr = [0]
        for r in range(self.num_ranks):
            lo, hi = self.blocks.get(r, (0, 0))
            perm.extend(range(lo, hi))
            ptr.append(len(perm))
        ops = [self.ops[i] for i in perm]
        kind, size, peer, tag, cpu, nic, labels, lines = zip(*ops) if ops else ((),) * 8
        where = np.empty(len(self.ops), dtype=np.int64)
        where[np.asarray(perm, dtype=np.int64)] = np.arange(len(perm), dtype=np.int64)

        def deps_of(pairs: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
            arr = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
            return by_required(where[arr[:, 0]], where[arr[:, 1]])

        req_a, req_b = deps_of(self.req)
        ireq_a, ireq_b = deps_of(self.ireq)
        return GoalSchedule(self.num_ranks, _i64(ptr), np.asarray(kind, dtype=np.int8), np.asarray(size, dtype=float),
                            _i64(peer), _i64(tag), _i64(cpu), _i64(nic), req_a, req_b, ireq_a, ireq_b, None, labels,
                            _i64(lines))


class LazySequence(Sequence[T]):
    """``n`` items, given by ``read()`` when first asked for: the columns of a schedule that only an error message or a
    report reads (its operations' labels and lines), kept out of memory and off the reading time until then."""

    def __init__(self, read: Callable[[], Any], n: int) -> None:
        self._read, self._n = read, n
        self._items: Any = None

    def _all(self) -> Any:
        if self._items is None:
            self._items = self._read()
        return self._items

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> T: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[T]: ...

    def __getitem__(self, i: Any) -> Any:
        return self._all()[i]

    def __iter__(self) -> Iterator[T]:
        return iter(self._all())

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.asarray(self._all(), dtype=dtype)


def _read_compiled(opener: Callable[[], IO[bytes]], size: int) -> dict[str, Any] | None:
    from perfcompose.loggp.goal.goal_compiled import read_goal_compiled

    with opener() as fh:
        return read_goal_compiled(fh, size)


def _read_lean(opener: Callable[[], IO[bytes]], size: int) -> dict[str, Any] | None:
    """The columns of the typed buffers :func:`.goal_buffers.lean_buffers` reads, as arrays; an operation's line, asked
    for only by an error message, is read again from the text (:mod:`.goal_compiled`) when first asked for."""
    from perfcompose.loggp.goal.goal_buffers import COLUMNS, lean_buffers

    def offsets(num_ranks: int, ranks: Any, counts: Any) -> np.ndarray:
        per_rank = np.zeros(num_ranks + 1, np.int64)
        per_rank[np.asarray(ranks) + 1] = counts
        return np.cumsum(per_rank)

    got = lean_buffers(opener, size, lambda n, code: np.zeros(n, code), offsets)  # (NumPy asks for huge pages)
    if got is None:
        return None

    def lines() -> np.ndarray:
        again = _read_compiled(opener, size)
        assert again is not None  # the same text, read with all its columns
        return np.asarray(again["lines"])

    columns = {c: np.asarray(getattr(got, c)) for c in COLUMNS}
    return {"num_ranks": got.num_ranks, **columns, "lines": LazySequence[int](lines, got.num_ops)}


#: the readers of GOAL text's columns, in the order they are tried: in C the form perfcompose writes, into typed
#: buffers (:mod:`.goal_buffers`), in C the form Schedgen writes too (:mod:`.goal_compiled`); each gives None for a
#: text it does not read (or where the extension is not built), and the line reader, the reference, takes it
READERS: tuple[Callable[[Callable[[], IO[bytes]], int], dict[str, Any] | None], ...] = (_read_lean, _read_compiled)


def _read_text(opener: Callable[[], IO[bytes]], size: int, what: str, lines: Callable[[], GoalSchedule]
               ) -> GoalSchedule:
    """The schedule from the first of :data:`READERS` that reads the text (its labels read by ``lines`` when first
    asked for), else from ``lines``."""
    # refused where the schedule would need more memory than the limit: about 40 bytes per line of text (columns of
    # its operations and dependencies) and the simulation's arrays
    check_memory(size * 3.0, f"{what} ({size / 2 ** 20:,.0f} MiB of GOAL text)")
    cols = next((c for read in READERS if (c := read(opener, size)) is not None), None)
    if cols is None:
        return lines()
    return GoalSchedule(**cols, labels=LazySequence(lambda: lines().labels, int(cols["kind"].shape[0])))


def parse_goal(text: str, path: str | Path = "<goal>") -> GoalSchedule:
    """Parse GOAL text (LogGOPSim's txt2bin input); errors name the file, line and column."""
    data = text.encode()
    return _read_text(lambda: io.BytesIO(data), len(data), "the schedule", lambda: _parse_lines(text, path))


def _parse_lines(text: str, path: str | Path = "<goal>") -> GoalSchedule:
    """The line-by-line reader: every line matched by a regular expression, every error located."""
    parser = _GoalParser(text, path)
    for k, full in enumerate(parser.lines):
        line = full.strip()
        if not line:
            continue
        if parser.current is None:
            parser.outside(k, line)
        elif line == "}":
            parser.close()
        elif (m := _RE_DEP.match(line)):
            parser.deps.append((m["a"], m["how"], m["b"], k, full.find(m["a"]) + 1))
        elif (m := _RE_OP.match(line)):
            parser.operation(k, full, m)
        else:
            raise parser.error(k, f"cannot read this line of rank {parser.current}")
    return parser.schedule()


def read_goal(path: Path | str) -> GoalSchedule:
    """Read a GOAL file by the first of :data:`READERS` that reads it, else line by line."""
    try:
        size = Path(path).stat().st_size
        return _read_text(lambda: open(path, "rb"), size, f"the schedule {path}", lambda: _read_lines(path))
    except OSError as exc:
        raise InputError(f"cannot read the schedule: {exc.strerror}", path=path) from None


def _read_lines(path: Path | str) -> GoalSchedule:
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise InputError(f"cannot read the schedule: {exc.strerror}", path=path) from None
    except UnicodeDecodeError:
        raise InputError("the schedule is not text", path=path) from None
    return _parse_lines(text, path)


def _int_column(values: np.ndarray, what: str, scale: float) -> np.ndarray:
    if not (np.isfinite(scale) and scale > 0):
        raise InputError(f"the time scale must be a positive number, not {scale:g}",
                         hint="e.g. --time-scale 1000 writes times in us as ns")
    with np.errstate(over="ignore", invalid="ignore"):
        v = values * scale
    beyond = ~(np.abs(v) < 2.0 ** 63)
    if beyond.any():
        i = int(np.flatnonzero(beyond)[0])
        raise InputError(f"{float(values[i])!r} x {scale:g} is beyond GOAL's 64-bit integer {what}",
                         hint="choose a smaller time scale")
    r = np.round(v)
    bad = np.abs(v - r) > 1e-6 * np.maximum(1.0, np.abs(v))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"GOAL holds integer {what}; {float(values[i])!r} x {scale:g} is not one",
                         hint="choose a time scale that makes the times integers (e.g. 1000 for us -> ns)")
    return r.astype(np.int64)


def goal_text(schedule: GoalSchedule, *, time_scale: float = SimulateOutputs.time_scale) -> str:
    """GOAL text of a schedule in the grammar LogGOPSim's txt2bin reads (computation times
    multiplied by ``time_scale``, as GOAL holds integers)."""
    return b"".join(_goal_blocks(schedule, time_scale)).decode()


def write_goal(schedule: GoalSchedule, path: Path, *, time_scale: float = SimulateOutputs.time_scale) -> None:
    """Write a schedule as GOAL text (nothing written where the times cannot be GOAL's integers)."""
    blocks = _goal_blocks(schedule, time_scale)
    first = next(blocks, b"")  # the times are checked before the file is opened
    with open(path, "wb") as fh:
        fh.write(first)
        fh.writelines(blocks)


def _goal_blocks(s: GoalSchedule, time_scale: float) -> Any:
    """The text of :func:`goal_text` in blocks of bytes (:mod:`.goal_text_writer`), its sizes checked first."""
    from perfcompose.loggp.goal.goal_text_writer import goal_blocks

    is_calc = s.kind == CALC
    size = np.zeros(s.num_ops, np.int64)
    if is_calc.any():
        size[is_calc] = _int_column(s.size[is_calc], "times", time_scale)
    if (~is_calc).any():
        size[~is_calc] = _int_column(s.size[~is_calc], "message sizes", 1.0)
    use = s.labels is not None and all(lb and lb not in KEYWORDS for lb in s.labels)
    return goal_blocks(s.num_ranks, s.op_ptr, s.kind, size, s.peer, s.tag, s.cpu, s.nic,
                       (s.req_a, s.req_b, s.ireq_a, s.ireq_b), s.labels if use else None)


def _by_rank(ranks: np.ndarray, P: int) -> np.ndarray:
    """A stable order of ``ranks`` (radix sort where ranks fit 16 bits)."""
    return np.argsort(ranks.astype(np.uint16) if P <= 2 ** 16 else ranks, kind="stable")


_Part = tuple[np.ndarray, np.ndarray, int, np.ndarray, np.ndarray, np.ndarray]


def _schedule_parts(program: Program) -> list[_Part]:
    """Per step, its parts in the order a rank issues them: (ranks, operations per rank, kind, sizes, peers, tags), each
    sorted by rank (stably); a step's zero-length barrier calc has the tag -2."""
    P = program.P
    all_p = np.arange(P, dtype=np.int32)
    parts: list[_Part] = []
    offset = 0
    for s in program.steps:
        if isinstance(s, CompStep):
            ones = np.ones(P, np.int64)
            parts.append((all_p, ones, CALC, np.asarray(s.durations, dtype=np.float64), np.zeros(P, np.int32),
                          np.full(P, -1, np.int32)))
            has_new: np.ndarray = all_p
        else:
            assert isinstance(s, CommStep)
            sent = s.order  # each sender's messages in its send order, senders in rank order
            recv = _by_rank(s.dst, P)
            n_sent, n_recv = np.diff(s.send_ptr), np.bincount(s.dst, minlength=P)
            parts.append((np.repeat(all_p, n_sent), n_sent, SEND, s.nbytes[sent], s.dst[sent].astype(np.int32),
                          (offset + sent).astype(np.int32)))
            parts.append((np.repeat(all_p, n_recv), n_recv, RECV, s.nbytes[recv], s.src[recv].astype(np.int32),
                          (offset + recv).astype(np.int32)))
            has_new = np.flatnonzero(n_sent + n_recv).astype(np.int32)
            offset += s.M
        nb = has_new.shape[0]
        one = np.zeros(P, np.int64)
        one[has_new] = 1
        parts.append((has_new, one, CALC, np.zeros(nb), np.zeros(nb, np.int32), np.full(nb, -2, np.int32)))
    return parts


def program_to_goal(program: Program) -> GoalSchedule:
    """The GOAL schedule of a program: per rank, each step's operations depend on a zero-length ``calc 0`` that
    completes the previous step; a communication step posts all its receives and issues its sends in send order (as a
    sequence of MPI_Isend/MPI_Irecv and a wait). The tag of a message is its id in the program. Built without sorting:
    each part's operations are placed at their rank's next free positions."""
    P = program.P
    parts = _schedule_parts(program)
    total = np.sum([cnt for _, cnt, *_ in parts], axis=0) if parts else np.zeros(P, np.int64)
    ptr = np.zeros(P + 1, np.int64)
    np.cumsum(total, out=ptr[1:])
    n = int(ptr[-1])
    if n >= 2 ** 31 - 1:
        raise InputError(f"a program of {n:,} GOAL operations is too large (at most 2^31)")
    kind, size = np.empty(n, np.int8), np.empty(n)
    peer, tag = np.empty(n, np.int32), np.empty(n, np.int32)
    filled = ptr[:-1].copy()  # each rank's next free position
    for rk, cnt, kd, sz, pe, tg in parts:
        first = np.zeros(P, np.int64)  # where each rank's block starts within the part
        np.cumsum(cnt[:-1], out=first[1:])
        pos = np.repeat(filled - first, cnt) + np.arange(rk.shape[0])  # the ranks are sorted
        kind[pos], size[pos], peer[pos], tag[pos] = kd, sz, pe, tg
        filled += cnt
    del parts
    rank = np.repeat(np.arange(P, dtype=np.int32), total)
    is_bar = tag == -2
    message = np.where(kind == CALC, -1, tag)
    tag[kind == CALC] = 0
    peer[kind == CALC] = 0
    idx = np.arange(n, dtype=np.int32)
    prev_bar = np.maximum.accumulate(np.where(is_bar, idx, -1))
    next_bar = np.minimum.accumulate(np.where(is_bar, idx, n)[::-1])[::-1]
    ops = ~is_bar
    # each operation of a step: its step's barrier requires it; it requires the previous barrier
    req_a1, req_b1 = next_bar[ops], idx[ops]
    has_prev = ops & (prev_bar >= 0)
    has_prev[has_prev] = rank[prev_bar[has_prev]] == rank[has_prev]
    req_a2, req_b2 = idx[has_prev], prev_bar[has_prev]
    # the order of the pairs: per operation in rank order, its own requirement then its barrier's
    req_a = np.concatenate([req_a2, req_a1])
    req_b = np.concatenate([req_b2, req_b1])
    z = np.zeros(0, np.int32)
    return GoalSchedule(P, ptr, kind, size, peer, tag, np.zeros(n, np.int8), np.zeros(n, np.int8), req_a, req_b,
                        z, z, message)
