"""Score-P's OTF2 traces, written here with the otf2 package as Score-P writes them, read into the
same records and schedules as the PMPI tracer's traces of the same calls; what the reader cannot
place is an error naming the file, the rank and the event."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

otf2 = pytest.importorskip("otf2")

from hand_traces import rank_trace  # noqa: E402
from run_cli import perfcompose  # noqa: E402

from perfcompose.errors import InputError  # noqa: E402
from perfcompose.loggp.goal.schedule import goal_text  # noqa: E402
from perfcompose.loggp.params import LogGP, write_params  # noqa: E402
from perfcompose.loggp.trace.otf2_reader import read_otf2  # noqa: E402
from perfcompose.loggp.trace.schedule import trace_schedule  # noqa: E402

TICKS = 2_000_000  #: ticks per second of the written traces' clock
START = 10 ** 9  #: the tick of the first event (the clock's offset)

Call = tuple  #: (region, enter us, leave us, *events): each event a tuple (kind, *arguments)


def write_otf2(folder: Path, ranks: list[list[Call]], *, threads: dict[int, list[Call]] | None = None) -> Path:
    """An archive of ``ranks`` (each rank's calls, MPI_Init first) as Score-P lays one out: a location
    group per rank, its master thread in the MPI locations and in the measurement system's (whose
    communicator comes first), MPI_COMM_WORLD and MPI_COMM_SELF, the program's begin and main
    around the calls; ``threads`` adds a second thread to a rank with calls of its own. Events sit
    at their call's enter."""
    E = otf2.enums
    with otf2.writer.open(str(folder), timer_resolution=TICKS) as w:
        d = w.definitions
        node = d.system_tree_node("node")
        groups = [d.location_group(f"MPI Rank {r}", system_tree_parent=node) for r in range(len(ranks))]
        masters = [d.location("Master thread", group=g) for g in groups]
        d.group("MPI", group_type=E.GroupType.COMM_LOCATIONS, paradigm=E.Paradigm.MPI, members=masters)
        system = E.Paradigm.MEASUREMENT_SYSTEM
        d.group("PROCESSXTHREADS_GROUP_LOCATIONS", group_type=E.GroupType.COMM_LOCATIONS, paradigm=system,
                members=masters)
        d.comm("Process x Threads CPU Locations", group=d.group(
            "PROCESSXTHREADS_GROUP", group_type=E.GroupType.COMM_GROUP, paradigm=system, members=masters))
        world = d.comm("MPI_COMM_WORLD", group=d.group("world", group_type=E.GroupType.COMM_GROUP,
                                                        paradigm=E.Paradigm.MPI, members=list(range(len(ranks)))))
        d.comm("MPI_COMM_SELF", group=d.group("self", group_type=E.GroupType.COMM_SELF, paradigm=E.Paradigm.MPI,
                                               members=[]))
        where = [(masters[r], calls) for r, calls in enumerate(ranks)]
        where += [(d.location("OpenMP thread 1", group=groups[r]), calls) for r, calls in (threads or {}).items()]
        main = d.region("int main(int, char**)", paradigm=E.Paradigm.COMPILER)
        for location, calls in where:
            out = w.event_writer_from_location(location)
            first, last = (START + round(t * TICKS * 1e-6) for t in (calls[0][1], calls[-1][2] or calls[-1][1]))
            out.program_begin(first, "app", [])
            out.enter(first, main)
            for region, enter, leave, *events in calls:
                reg = d.region(region, paradigm=E.Paradigm.MPI)
                t = START + round(enter * TICKS * 1e-6)
                out.enter(t, reg)
                for kind, *args in events:
                    _event(out, kind, t, world, args)
                if leave is not None:
                    out.leave(START + round(leave * TICKS * 1e-6), reg)
            out.leave(last, main)
            out.program_end(last, -1)
    return folder / "traces.otf2"


def _event(out, kind: str, t: int, world, args: list) -> None:
    if kind == "coll":
        op, root, sent, received = args
        out.mpi_collective_begin(t)
        out.mpi_collective_end(t, getattr(otf2.enums.CollectiveOp, op), world, root, sent, received)
    elif kind in ("isend_complete", "irecv_request", "cancelled", "nbc_request", "mrecv"):
        {"isend_complete": out.mpi_isend_complete, "irecv_request": out.mpi_irecv_request, "mrecv": out.mpi_mrecv,
         "cancelled": out.mpi_request_cancelled, "nbc_request": out.non_blocking_collective_request}[kind](t, *args)
    else:
        getattr(out, f"mpi_{kind}")(t, args[0], world, *args[1:])


PING = [[("MPI_Init", 0, 1), ("MPI_Send", 3, 4, ("send", 1, 5, 8)), ("MPI_Recv", 4, 9, ("recv", 1, 6, 8)),
         ("MPI_Finalize", 12, 13)],
        [("MPI_Init", 0.5, 1), ("MPI_Recv", 1, 5, ("recv", 0, 5, 8)), ("MPI_Send", 7, 8, ("send", 0, 6, 8)),
         ("MPI_Finalize", 10, 11)]]
HAND_PING = [rank_trace(0, 2, [("send", 3, 4, 1, 5, 8), ("recv", 4, 9, 1, 6, 8), ("finalize", 12, 13)]),
             rank_trace(1, 2, [("recv", 1, 5, 0, 5, 8), ("send", 7, 8, 0, 6, 8), ("finalize", 10, 11)])]


def _same_records(ours, hand) -> None:
    for a, b in zip(ours, hand, strict=True):
        assert (a.rank, a.size) == (b.rank, b.size)
        for f in ("call", "peer", "tag", "comm", "bytes", "request"):
            assert a.records[f][1:].tolist() == b.records[f][1:].tolist(), f
        assert a.records["t0"][1:] == pytest.approx(b.records["t0"][1:], abs=1e-12)
        assert a.records["t1"] == pytest.approx(b.records["t1"], abs=1e-12)


def test_a_ping_pong_reads_as_the_tracer_records_it(tmp_path):
    traces = read_otf2(write_otf2(tmp_path, PING))
    _same_records(traces, HAND_PING)
    assert traces[0].comms == {0: (0, 1), 1: (0,)} and traces[1].comms[1] == (1,)  # MPI_COMM_SELF per rank
    assert traces[0].path == tmp_path / "traces.otf2"


def test_ticks_become_seconds_and_the_span_runs_from_first_init_end_to_last_finalize_start(tmp_path):
    traced = trace_schedule(read_otf2(write_otf2(tmp_path, PING)))
    assert traced.measured == pytest.approx(11e-6, abs=1e-12)
    assert goal_text(traced.schedule) == goal_text(trace_schedule(HAND_PING).schedule)


def test_nonblocking_calls_take_peer_tag_and_size_from_their_completion(tmp_path):
    ranks = [[("MPI_Init", 0, 1), ("MPI_Irecv", 2, 3, ("irecv_request", 11)),
              ("MPI_Isend", 3, 4, ("isend", 1, 1, 16, 12)), ("MPI_Comm_rank", 4.5, 5),
              ("MPI_Waitall", 6, 7, ("isend_complete", 12), ("irecv", 1, 2, 32, 11)), ("MPI_Finalize", 8, 9)],
             [("MPI_Init", 0, 1), ("MPI_Sendrecv", 2, 5, ("send", 0, 2, 32), ("recv", 0, 1, 16)),
              ("MPI_Finalize", 6, 7)]]
    hand = [rank_trace(0, 2, [("irecv", 2, 3, -1, -1, 64, 11), ("isend", 3, 4, 1, 1, 16, 12),
                              ("done", 6, 7, -2, 0, 0, 12), ("done", 6, 7, 1, 2, 32, 11), ("finalize", 8, 9)]),
            rank_trace(1, 2, [("sendrecv_send", 2, 5, 0, 2, 32), ("sendrecv_recv", 2, 5, 0, 1, 16),
                              ("finalize", 6, 7)])]
    traces = read_otf2(write_otf2(tmp_path, ranks))
    irecv = traces[0].records[1]
    assert (int(irecv["peer"]), int(irecv["tag"]), int(irecv["request"])) == (1, 2, 11)
    _same_records(traces[1:], hand[1:])
    assert goal_text(trace_schedule(traces).schedule) == goal_text(trace_schedule(hand).schedule)


def test_a_matched_probe_and_its_receive_read_as_the_tracers_probe_and_mrecv(tmp_path):
    ranks = [PING[0], [("MPI_Init", 0.5, 1), ("MPI_Mprobe", 1, 2, ("probe", 0, 5, 77)),
                       ("MPI_Mrecv", 2, 5, ("mrecv", 77, 8)), *PING[1][2:]]]
    hand = [HAND_PING[0], rank_trace(1, 2, [("probe", 1, 2, -2, 0, 1000, 1), ("mrecv", 2, 5, 0, 5, 8),
                                            ("send", 7, 8, 0, 6, 8), ("finalize", 10, 11)])]
    traces = read_otf2(write_otf2(tmp_path, ranks))
    _same_records(traces, hand)
    assert goal_text(trace_schedule(traces).schedule) == goal_text(trace_schedule(HAND_PING).schedule)


def _exchanges(seed: int) -> tuple[list[list[Call]], list]:
    """A random run in both forms (OTF2 calls, the tracer's records): steps of a shift exchange by
    Irecv, Isend and a Waitall completing both in either order, then an Allreduce; request ids
    new in OTF2, reused by the tracer."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 6))
    calls: list[list[Call]] = [[("MPI_Init", 0, 1)] for _ in range(n)]
    records: list[list[tuple]] = [[] for _ in range(n)]
    for step in range(4):
        shift, size, t = int(rng.integers(1, n)), int(rng.integers(1, 10 ** 5)), 10.0 * step + 2
        for r in range(n):
            to, source, gap = (r + shift) % n, (r - shift) % n, float(rng.integers(0, 3))
            done = [("isend_complete", 2 * step + 1), ("irecv", source, step, size, 2 * step)]
            hand_done = [("done", t + 3 + gap, t + 4 + gap, -2, 0, 0, 8), ("done", t + 3 + gap, t + 4 + gap, source,
                                                                            step, size, 7)]
            order = rng.permutation(2).tolist()
            calls[r] += [("MPI_Irecv", t, t + 1, ("irecv_request", 2 * step)),
                         ("MPI_Isend", t + 1, t + 2, ("isend", to, step, size, 2 * step + 1)),
                         ("MPI_Waitall", t + 3 + gap, t + 4 + gap, *(done[k] for k in order)),
                         ("MPI_Allreduce", t + 6, t + 7, ("coll", "ALLREDUCE", 2 ** 32 - 1, 8 * n, 8 * n))]
            records[r] += [("irecv", t, t + 1, -1, -1, size, 7), ("isend", t + 1, t + 2, to, step, size, 8),
                           *(hand_done[k] for k in order), ("allreduce", t + 6, t + 7, 0, 0, 8)]
    for r in range(n):
        calls[r].append(("MPI_Finalize", 50, 51))
        records[r].append(("finalize", 50, 51))
    return calls, [rank_trace(r, n, records[r]) for r in range(n)]


@pytest.mark.parametrize("seed", range(4))
def test_random_exchanges_give_the_tracers_schedule(tmp_path, seed):
    calls, hand = _exchanges(seed)
    traced = trace_schedule(read_otf2(write_otf2(tmp_path, calls)))
    assert goal_text(traced.schedule) == goal_text(trace_schedule(hand).schedule)
    assert traced.measured == pytest.approx(49e-6, abs=1e-12)


def test_collectives_take_kind_root_and_the_tracers_bytes_from_scorep_sizes(tmp_path):
    n = 4
    # Score-P's sizes: allreduce n blocks each way; bcast root sends n blocks and receives its own
    ranks = [[("MPI_Init", 0, 1), ("MPI_Allreduce", 2, 3, ("coll", "ALLREDUCE", 2 ** 32 - 1, 8 * n, 8 * n)),
              ("MPI_Bcast", 4, 5, ("coll", "BCAST", 2, 100 * n if r == 2 else 0, 100)),
              ("MPI_Comm_dup", 5, 6, ("coll", "CREATE_HANDLE", 2 ** 32 - 1, 0, 0)),
              ("MPI_Finalize", 7, 8)] for r in range(n)]
    hand = [rank_trace(r, n, [("allreduce", 2, 3, 0, 0, 8), ("bcast", 4, 5, 2, 0, 100), ("finalize", 7, 8)])
            for r in range(n)]
    traces = read_otf2(write_otf2(tmp_path, ranks))
    _same_records(traces, hand)
    assert goal_text(trace_schedule(traces).schedule) == goal_text(trace_schedule(hand).schedule)


@pytest.mark.parametrize(("op", "me", "sent", "received", "expected"), [
    ("REDUCE", 0, 0, 3 * 8, 8),  # in place at the root: the others' blocks
    ("GATHER", 1, 8, 0, 8), ("SCATTER", 0, 4 * 8, 8, 8), ("ALLGATHER", 2, 4 * 8, 4 * 8, 8),
    ("SCAN", 1, 3 * 8, 2 * 8, 8), ("REDUCE_SCATTER", 3, 40, 4 * 10, 40), ("BARRIER", 0, 0, 0, 0)])
def test_collective_sizes(tmp_path, op, me, sent, received, expected):
    ranks = [[("MPI_Init", 0, 1), ("MPI_X", 2, 3, ("coll", op, 0, sent, received)), ("MPI_Finalize", 4, 5)]
             for _ in range(4)]
    rec = read_otf2(write_otf2(tmp_path, ranks))[me].records[1]
    assert int(rec["bytes"]) == expected


@pytest.mark.parametrize(("change", "message"), [
    (lambda r: r[1].pop(), re.escape("rank 1's trace ends at rank 1, call 2 (MPI_Send, peer 0, tag 6, 8 B), "
                                     "before MPI_Finalize")),
    (lambda r: r[1].pop(0), "rank 1's trace does not start with MPI_Init"),
    (lambda r: r[0].insert(3, ("MPI_Wait", 10, None)), "rank 0's trace is cut off inside MPI_Wait"),
    (lambda r: r[0].insert(3, ("MPI_Alltoallw", 10, 11, ("coll", "ALLTOALLW", 0, 8, 8))),
     "MPI_Alltoallw has no collective algorithm here"),
    (lambda r: r[0].insert(3, ("MPI_Iallreduce", 10, 11, ("nbc_request", 3))),
     r"rank 0, NonBlockingCollectiveRequest at 10\.000 us: .* no place in the schedule"),
    (lambda r: r[0].insert(1, ("MPI_Send", 2, 3, ("send", 5, 1, 8))), "peer 5 is not a rank of MPI_COMM_WORLD"),
])
def test_what_the_reader_cannot_place_is_located(tmp_path, change, message):
    ranks = [list(r) for r in PING]
    change(ranks)
    anchor = write_otf2(tmp_path, ranks)
    with pytest.raises(InputError, match=message) as err:
        read_otf2(anchor)
    assert err.value.path == anchor


def test_mpi_calls_on_a_thread_that_is_not_a_rank_are_an_error(tmp_path):
    anchor = write_otf2(tmp_path, PING, threads={0: [("MPI_Barrier", 2, 3)]})
    with pytest.raises(InputError, match=r"location 'OpenMP thread 1' \(MPI Rank 0\) is not an MPI rank"):
        read_otf2(anchor)


def test_a_thread_without_mpi_calls_is_left_out(tmp_path):
    anchor = write_otf2(tmp_path, PING, threads={0: [("compute", 2, 3)]})
    assert len(read_otf2(anchor)) == 2


def test_a_missing_file_is_an_error(tmp_path):
    with pytest.raises(InputError, match="no OTF2 anchor file"):
        read_otf2(tmp_path / "traces.otf2")
def test_check_prints_the_simulated_and_measured_time_and_writes_the_schedule_beside(tmp_path):
    anchor = write_otf2(tmp_path / "scorep-run", PING)
    write_params(tmp_path / "params.json", LogGP(1.0, 0.5, 0.0, 0.0, "us"))
    ran = perfcompose("loggp", "check", str(anchor), "--params", str(tmp_path / "params.json"))
    assert ran.returncode == 0, ran.stderr
    assert "measured       0.011 ms" in ran.stdout and "simulated      0.011 ms" in ran.stdout
    assert (tmp_path / "scorep-run" / "schedule.goal").read_text() == goal_text(trace_schedule(HAND_PING).schedule)


def test_a_receive_without_its_send_exits_2_naming_the_file_rank_and_call(tmp_path):
    bad = [PING[0], [*PING[1][:3], ("MPI_Recv", 8, 9, ("recv", 0, 7, 4)), PING[1][3]]]
    anchor = write_otf2(tmp_path, bad)
    ran = perfcompose("loggp", "check", str(anchor), "--L", "1", "--o", "1", "--g", "1", "--G", "0", columns=1000)
    assert ran.returncode == 2
    assert str(anchor) in ran.stderr
    assert "rank 1, call 3 (MPI_Recv, peer 0, tag 7, 4 B): no send from rank 0 matches it" in ran.stderr
    assert "Traceback" not in ran.stderr


def test_a_cut_archive_exits_2(tmp_path):
    anchor = write_otf2(tmp_path, PING)
    events = tmp_path / "traces" / "1.evt"
    data = events.read_bytes()
    events.write_bytes(data[:len(data) // 2])  # the rank's message calls among what is cut
    ran = perfcompose("loggp", "whatif", str(anchor), "--L", "1", "--o", "1", "--g", "1", "--G", "0", columns=1000)
    # the library reads a cut chunk past its end: it reports it, or stops short of the rank's
    # messages, as it happens; either way a located error names the archive
    assert ran.returncode == 2, ran.stderr
    assert f"{anchor}" in ran.stderr and "Traceback" not in ran.stderr


def test_a_trace_without_mpi_ranks_says_so(tmp_path):
    with otf2.writer.open(str(tmp_path), timer_resolution=TICKS) as w:
        d = w.definitions
        group = d.location_group("process", system_tree_parent=d.system_tree_node("node"))
        w.event_writer("thread", group=group).enter(START, d.region("main"))
    with pytest.raises(InputError, match="no MPI ranks"):
        read_otf2(tmp_path / "traces.otf2")


def test_without_the_otf2_package_the_error_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "otf2", None)
    with pytest.raises(InputError, match=r"perfcompose\[otf2\]"):
        read_otf2(tmp_path / "traces.otf2")
