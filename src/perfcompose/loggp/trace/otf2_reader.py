"""Score-P's OTF2 traces read into the records of :mod:`.records`, one :class:`RankTrace` per MPI rank.

An MPI rank is a location of the MPI paradigm's ``COMM_LOCATIONS`` group, its world rank that
location's place in the group. A call is an ``Enter``/``Leave`` pair of an MPI region; the MPI
events between them give its records (times in seconds from the clock's offset, ticks over the
timer resolution):

====================================  =======================================================
OTF2 events                           records
====================================  =======================================================
MPI_Init, MPI_Init_thread             ``init``
MPI_Finalize                          ``finalize``
MpiSend, MpiRecv                      ``send``, ``recv`` (``sendrecv_send``, ``sendrecv_recv``
                                      in MPI_Sendrecv)
MpiIsend, MpiIrecvRequest             ``isend``, ``irecv`` (the receive's peer, tag and
                                      communicator are those of its completion)
MpiIsendComplete, MpiIrecv,           ``done`` of the request (cancelled: ``comm`` 1)
MpiRequestCancelled
MpiProbe, then MpiMrecv               ``mrecv`` (from the probe's peer, tag and communicator)
MpiCollectiveEnd                      the collective its kind names, with its root and the bytes
                                      :mod:`.records` counts, from the bytes sent and received
MPI_Probe, Iprobe, Test*, Wait*       ``probe``, ``test``, ``wait_none``: a call that polls
  without a completion                and completes nothing
====================================  =======================================================

Other regions (the program's, and MPI calls without messages) count as computation. An MPI event
the records have no place for (one-sided, nonblocking collectives, MPI_Alltoallw, MPI_Exscan), an
MPI event outside the ranks' locations, a rank whose calls do not run from MPI_Init to
MPI_Finalize, and an archive the OTF2 library cannot read are located errors.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from perfcompose.errors import InputError
from perfcompose.loggp.trace.collectives import ROOTED
from perfcompose.loggp.trace.records import RECORD, RankTrace, call_number, check_span

__all__ = ["read_otf2"]

_RERUN = "trace the program again with Score-P (SCOREP_ENABLE_TRACING=true)"
#: CollectiveOp names -> the collective as records.py names it (the v-forms as their regular ones)
_COLLECTIVES = {"BARRIER": "barrier", "BCAST": "bcast", "GATHER": "gather", "GATHERV": "gather",
                "SCATTER": "scatter", "SCATTERV": "scatter", "ALLGATHER": "allgather", "ALLGATHERV": "allgather",
                "ALLTOALL": "alltoall", "ALLTOALLV": "alltoall", "ALLREDUCE": "allreduce", "REDUCE": "reduce",
                "REDUCE_SCATTER": "reduce_scatter", "REDUCE_SCATTER_BLOCK": "reduce_scatter", "SCAN": "scan"}
#: CollectiveOp names of making and freeing communicators and windows: not a call of the records
_HANDLES = frozenset({"CREATE_HANDLE", "DESTROY_HANDLE", "ALLOCATE", "DEALLOCATE", "CREATE_HANDLE_AND_ALLOCATE",
                      "DESTROY_HANDLE_AND_DEALLOCATE"})
_INIT = frozenset({"MPI_Init", "MPI_Init_thread"})
#: regions whose calls poll: the record they make where no request completes in them
_POLLS = {"MPI_Probe": "probe", "MPI_Iprobe": "probe", "MPI_Mprobe": "probe", "MPI_Improbe": "probe",
          "MPI_Test": "test", "MPI_Testall": "test", "MPI_Testany": "test", "MPI_Testsome": "test",
          "MPI_Wait": "wait_none", "MPI_Waitall": "wait_none", "MPI_Waitany": "wait_none",
          "MPI_Waitsome": "wait_none"}
#: events of the MPI paradigm that make no record of their own (the region around them does)
_QUIET = frozenset({"MpiCollectiveBegin", "MpiRequestTest"})
#: the prefixes of the MPI paradigm's events (point-to-point and collective, one-sided, nonblocking collective)
_MPI_EVENTS = ("Mpi", "Rma", "NonBlockingCollective")
_UNDEFINED = 2 ** 32 - 1  #: OTF2's undefined uint32 (a collective without a root)


def _int64(value: int) -> int:
    """An OTF2 unsigned 64-bit value as the records' signed one."""
    return value - 2 ** 64 if value >= 2 ** 63 else value


@dataclass
class _Call:
    """An MPI region entered and not yet left: its records (row numbers in the rank's list)."""

    region: str
    t0: float
    rows: list[int] = field(default_factory=list)


@dataclass
class _Rank:
    """One rank's records as they are read: rows of the RECORD fields, the open calls, the open
    nonblocking receives by request (their rows) and the probed messages by id (their MpiProbe)."""

    rank: int
    rows: list[list[Any]] = field(default_factory=list)
    open: list[_Call] = field(default_factory=list)
    irecv: dict[int, list[int]] = field(default_factory=dict)
    probed: dict[int, Any] = field(default_factory=dict)

    def put(self, call: str, t: float, peer: int = -2, tag: int = 0, comm: int = 0, nbytes: int = 0,
            request: int = 0) -> int:
        """A record of ``call`` at ``t`` inside the innermost open call (its start, its end once left)."""
        outer = self.open[-1] if self.open else None
        self.rows.append([call_number(call), peer, tag, comm, nbytes, request, outer.t0 if outer else t, t])
        if outer is not None:
            outer.rows.append(len(self.rows) - 1)
        return len(self.rows) - 1


@dataclass(frozen=True)
class _Archive:
    """What the definitions say: the ranks' locations, each communicator's number and members
    (world ranks; None for MPI_COMM_SELF), the clock's offset and resolution."""

    path: Path
    ranks: dict[Any, int]
    comms: dict[Any, int]
    members: tuple[tuple[int, ...] | None, ...]
    offset: int
    resolution: int

    def where(self, rank: int, event: Any) -> str:
        return f"rank {rank}, {type(event).__name__} at {self.seconds(event.time) * 1e6:.3f} us"

    def seconds(self, ticks: int) -> float:
        return (ticks - self.offset) / self.resolution

    def comm(self, rank: int, event: Any, comm: Any) -> int:
        if comm not in self.comms:
            raise InputError(f"{self.where(rank, event)}: communicator {comm!r} is an intercommunicator or has "
                             "no MPI group", path=self.path, hint="only intracommunicators are read")
        return self.comms[comm]

    def world(self, rank: int, event: Any, comm: Any, peer: int) -> int:
        """The world rank of ``peer``, a rank of ``comm``."""
        members = self.members[self.comm(rank, event, comm)]
        if members is None:
            return rank
        if not 0 <= peer < len(members):
            raise InputError(f"{self.where(rank, event)}: peer {peer} is not a rank of {comm.name} "
                             f"({len(members)} ranks)", path=self.path, hint=_RERUN)
        return members[peer]


def _definitions(path: Path, defs: Any) -> _Archive:
    """The ranks and communicators of the archive's definitions."""
    from otf2.enums import GroupType, Paradigm

    located = [g for g in defs.groups if g.group_type == GroupType.COMM_LOCATIONS and g.paradigm == Paradigm.MPI]
    if not located:
        raise InputError("no MPI ranks: the trace defines no MPI locations", path=path,
                         hint="trace an MPI program with Score-P's MPI adapter (scorep mpicc ...)")
    ranks = {loc: r for r, loc in enumerate(located[-1].members)}
    comms: dict[Any, int] = {}
    members: list[tuple[int, ...] | None] = []
    for comm in defs.comms:
        group = getattr(comm, "group", None)
        if group is None or group.paradigm != Paradigm.MPI or group.group_type not in (GroupType.COMM_GROUP,
                                                                                          GroupType.COMM_SELF):
            continue
        comms[comm] = len(members)
        members.append(None if group.group_type == GroupType.COMM_SELF else tuple(ranks[m] for m in group.members))
    clock = defs.clock_properties
    return _Archive(path, ranks, comms, tuple(members), int(clock.global_offset), int(clock.timer_resolution))


def _bytes(name: str, sent: int, received: int, me: int, n: int, root: int) -> int:
    """The bytes of a collective as records.py counts them, from the bytes Score-P counts the rank
    to send and receive: a root's own block, else what the others send it less its own (in place);
    the all-to-all kinds' n blocks (in place n - 1: read as n, a block 1/n short)."""
    if name in ("bcast", "scatter"):
        return received if me != root or received else sent // max(n - 1, 1)
    if name in ("reduce", "gather"):
        return sent if me != root or sent else received // max(n - 1, 1)
    if name == "reduce_scatter":
        return sent
    if name == "scan":  # n - me blocks sent, me + 1 received
        return (sent + received) // (n + 1)
    return 0 if name == "barrier" else max(sent, received) // n


def _collective(a: _Archive, r: _Rank, event: Any) -> None:
    op = str(event.collective_op).rpartition(".")[2]
    if op in _HANDLES:
        return
    name = _COLLECTIVES.get(op)
    if name is None:
        raise InputError(f"{a.where(r.rank, event)}: MPI_{op.capitalize()} has no collective algorithm here",
                         path=a.path, hint="collectives read: " + ", ".join(sorted(set(_COLLECTIVES.values()))))
    cid = a.comm(r.rank, event, event.communicator)
    members = a.members[cid] or (r.rank,)
    me, n = members.index(r.rank), len(members)
    root = int(event.root) if name in ROOTED and event.root != _UNDEFINED else 0
    nbytes = _bytes(name, int(event.size_sent), int(event.size_received), me, n, root)
    r.put(name, a.seconds(event.time), root, 0, cid, nbytes)


def _leave(r: _Rank, region: str, t: float) -> None:
    """The innermost open call left at ``t``: its records end there; a poll that completed nothing
    is a record of its own."""
    if not r.open or r.open[-1].region != region:
        return
    call = r.open.pop()
    poll = _POLLS.get(call.region)
    if poll is not None and not call.rows:
        r.rows.append([call_number(poll), -2, 0, 0, round((t - call.t0) * 1e9), 1, call.t0, t])
    for row in call.rows:
        r.rows[row][7] = t


def _message(a: _Archive, r: _Rank, event: Any, kind: str, t: float) -> None:
    """A send or receive, blocking (in MPI_Sendrecv, its halves) or started."""
    inside = r.open[-1].region.startswith("MPI_Sendrecv") if r.open else False
    call = {"MpiIsend": "isend", "MpiSend": "sendrecv_send" if inside else "send",
            "MpiRecv": "sendrecv_recv" if inside else "recv"}[kind]
    peer = event.sender if kind == "MpiRecv" else event.receiver
    r.put(call, t, a.world(r.rank, event, event.communicator, peer), event.msg_tag,
          a.comm(r.rank, event, event.communicator), int(event.msg_length),
          _int64(event.request_id) if kind == "MpiIsend" else 0)


def _completed(a: _Archive, r: _Rank, event: Any, kind: str, t: float) -> None:
    """A request completed: a received message also names its receive's peer, tag and communicator."""
    request = _int64(event.request_id)
    waiting = r.irecv.get(request)
    if kind == "MpiIrecv":
        cid = a.comm(r.rank, event, event.communicator)
        if waiting:
            r.rows[waiting.pop(0)][1:4] = [a.world(r.rank, event, event.communicator, event.sender),
                                           event.msg_tag, cid]
        r.put("done", t, int(event.sender), event.msg_tag, 0, int(event.msg_length), request)
        return
    if kind == "MpiRequestCancelled" and waiting:
        waiting.pop(0)
    r.put("done", t, comm=int(kind == "MpiRequestCancelled"), request=request)


def _event(a: _Archive, r: _Rank, event: Any) -> None:
    """Add what ``event`` of rank ``r`` says to its records."""
    kind, t = type(event).__name__, a.seconds(event.time)
    if kind == "Enter" and event.region.name.startswith("MPI_"):
        name = event.region.name
        r.open.append(_Call(name, t))
        if name in _INIT or name == "MPI_Finalize":
            r.put("init" if name in _INIT else "finalize", t)
    elif kind == "Leave":
        _leave(r, event.region.name, t)
    elif kind in ("MpiSend", "MpiIsend", "MpiRecv"):
        _message(a, r, event, kind, t)
    elif kind == "MpiIrecvRequest":
        request = _int64(event.request_id)
        r.irecv.setdefault(request, []).append(r.put("irecv", t, -1, -1, 0, 0, request))
    elif kind in ("MpiIrecv", "MpiIsendComplete", "MpiRequestCancelled"):
        _completed(a, r, event, kind, t)
    elif kind == "MpiCollectiveEnd":
        _collective(a, r, event)
    elif kind == "MpiProbe":
        r.probed[int(event.message_id)] = event
    elif kind == "MpiMrecv" and int(event.message_id) in r.probed:
        probe = r.probed.pop(int(event.message_id))
        r.put("mrecv", t, a.world(r.rank, probe, probe.communicator, probe.sender), probe.tag,
              a.comm(r.rank, probe, probe.communicator), int(event.msg_length))
    elif kind.startswith(_MPI_EVENTS) and kind not in _QUIET:
        raise InputError(f"{a.where(r.rank, event)}: a {kind} event has no place in the schedule", path=a.path,
                         hint="point-to-point messages and blocking collectives are read; one-sided and "
                              "nonblocking collective MPI calls are not")


def _finish(a: _Archive, r: _Rank, size: int) -> RankTrace:
    """Rank ``r``'s trace, checked to run from MPI_Init to MPI_Finalize."""
    records = np.array([tuple(row) for row in r.rows], RECORD) if r.rows else np.zeros(0, RECORD)
    comms = {cid: m if m is not None else (r.rank,) for cid, m in enumerate(a.members)}
    trace = RankTrace(r.rank, size, records, comms, a.path)
    check_span(trace, _RERUN)
    if any(c.region != "MPI_Finalize" for c in r.open):
        inside = next(c.region for c in r.open if c.region != "MPI_Finalize")
        raise InputError(f"rank {r.rank}'s trace is cut off inside {inside}", path=a.path, hint=_RERUN)
    return trace


def _read(a: _Archive, events: Iterable[tuple[Any, Any]]) -> tuple[RankTrace, ...]:
    ranks = [_Rank(r) for r in range(len(a.ranks))]
    for location, event in events:
        rank = a.ranks.get(location)
        if rank is not None:
            _event(a, ranks[rank], event)
        elif (str(event.region.name).startswith("MPI_") if type(event).__name__ in ("Enter", "Leave")
              else type(event).__name__.startswith(_MPI_EVENTS)):  # an MPI call or event
            raise InputError(f"location {location.name!r} ({location.group.name}) is not an MPI rank, yet holds "
                             f"a {type(event).__name__} event", path=a.path,
                             hint="MPI calls are read on the ranks' own threads only")
    return tuple(_finish(a, r, len(ranks)) for r in ranks)


def read_otf2(path: Path) -> tuple[RankTrace, ...]:
    """Every MPI rank's records in the OTF2 archive whose anchor file is ``path``, in rank order."""
    try:
        import otf2
        from _otf2 import Error as LibraryError
    except ImportError:
        raise InputError("reading OTF2 traces needs the otf2 package", path=path,
                         hint="pip install 'perfcompose[otf2]'") from None
    if not path.is_file():
        raise InputError("no OTF2 anchor file here", path=path, hint="give the traces.otf2 of a Score-P run")
    try:
        with otf2.reader.open(str(path)) as reader:
            return _read(_definitions(path, reader.definitions), reader.events)
    except (LibraryError, otf2.error.Error) as exc:
        raise InputError(f"the OTF2 library cannot read this archive: {exc}", path=path,
                         hint="the archive is cut or damaged; " + _RERUN) from None
