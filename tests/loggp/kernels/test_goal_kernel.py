"""The LogGOPSim-semantics kernels: the order of equal times (LogGOPSim's queue is ordered by time,
then by creation stamp; a re-queued event keeps its stamp), messages that wait for a busy
receiver (queued per receiving CPU and NIC, received in the order they were sent), and the
compiled extension against the plain-Python reference on random GOAL schedules."""
from __future__ import annotations

import numpy as np
import pytest

from perfcompose.errors import InputError
from perfcompose.loggp import CommStep, CompStep, LogGP, Program
from perfcompose.loggp.goal import loggopsim as lgs
from perfcompose.loggp.goal.loggopsim_reference import reference_times
from perfcompose.loggp.goal.schedule import RECV, GoalSchedule, parse_goal, program_to_goal

P = LogGP(L=10, o=2, g=5, G=1)

compiled_only = pytest.mark.skipif(lgs.compiled_goal() is None, reason="the compiled extension "
                                   "perfcompose.loggp.kernels._cgoal is not built (pip install -e . with a C "
                                   "compiler and the Python headers)")

# ranks 0 and 1 send to rank 2 at time 0 while rank 2 computes until 100; rank 2's send to rank
# 0 becomes executable when its calc completes
TIES = """num_ranks 3
rank 0 {
a: send 1b to 2 tag 0
b: recv 1b from 2 tag 1
}
rank 1 {
a: send 21b to 2 tag 0
}
rank 2 {
r0: recv 1b from 0 tag 0
r1: recv 21b from 1 tag 0
c: calc 100
s: send 1b to 0 tag 1
s requires c
}
"""


def _impls() -> list[str]:
    return ["reference", "compiled"] if lgs.compiled_goal() is not None else ["reference"]


def _simulate(schedule: GoalSchedule, impl: str, monkeypatch: pytest.MonkeyPatch, **kw):
    if impl == "reference":
        monkeypatch.setattr(lgs, "compiled_goal", lambda: None)
    try:
        return lgs.simulate_goal(schedule, kw.pop("params", P), **kw)
    finally:
        monkeypatch.undo()


@pytest.mark.parametrize("impl", _impls())
def test_equal_times_follow_creation_stamps(impl, monkeypatch):
    # Stamps at time 0, rank by rank, new operations sorted send < recv < calc: rank 0's send a
    # (0) and recv b (1), rank 1's send (2), rank 2's r0 (3), r1 (4), c (5). Running them: a sends
    # its message m0 (stamp 6, first byte at 0 + o + L = 12), rank 1 sends m1 (7, at 12); c keeps
    # rank 2's CPU until 100 and frees s, stamped 8 and issued at 100.
    # At 12 both messages find the CPU busy and wait until 100, keeping their stamps. At 100 the
    # stamps decide: m0 (6) is charged [100, 102] (receive gap until 105); m1 (7) waits for
    # max(102, 105) = 105; s (8) waits for the CPU until 102 and sends [102, 104], its message
    # reaching rank 0 at 114 ([114, 116]); m1 is charged [105, 105 + o + 20G = 127].
    # (Receives first at 100 would give s [100, 102]; m1 before m0 would give r1 [100, 122].)
    # LogGOPSim itself prints 116, 2 and 127 for this file.
    res = _simulate(parse_goal(TIES), impl, monkeypatch)
    assert res.finish.tolist() == [116, 2, 127]
    assert list(zip(res.start[2], res.end[2])) == [(100, 102), (105, 127), (0, 100), (102, 104)]
    assert list(zip(res.start[0], res.end[0])) == [(0, 2), (114, 116)]
    finish, start, end, _ = reference_times(parse_goal(TIES), P)
    assert finish.tolist() == res.finish.tolist()


def _fan_in(seed: int, senders: int, per_sender: int) -> GoalSchedule:
    """Every rank but 0 sends messages of random sizes to rank 0, which computes first: they
    pile up at rank 0, many arriving at equal times."""
    rng = np.random.default_rng(seed)
    lines = [f"num_ranks {senders + 1}", "rank 0 {", "c: calc 500"]
    for r in range(1, senders + 1):
        for k in range(per_sender):
            lines.append(f"r{r}x{k}: recv {int(rng.integers(1, 40))}b from {r} tag {k}")
    lines.append("}")
    for r in range(1, senders + 1):
        lines.append(f"rank {r} {{")
        for k in range(per_sender):
            lines.append(f"s{k}: send {int(rng.integers(1, 40))}b to 0 tag {k}")
        lines.append("}")
    return parse_goal("\n".join(lines) + "\n")


@pytest.mark.parametrize("impl", _impls())
@pytest.mark.parametrize("seed, senders, per_sender", [(1, 8, 3), (2, 30, 5), (3, 3, 40)])
def test_messages_waiting_for_one_receiver_keep_loggopsims_order(impl, seed, senders, per_sender, monkeypatch):
    # the plain loop re-queues every waiting message by itself; the kernels queue them per
    # receiver and must give the same times for every receive
    s = _fan_in(seed, senders, per_sender)
    res = _simulate(s, impl, monkeypatch, S=16)
    finish, start, end, _ = reference_times(s, P, S=16)
    assert res.finish.tolist() == finish.tolist()
    assert np.array_equal(res.op_start, start)
    assert np.array_equal(res.op_end, end)


def _random_goal(seed: int, ranks: int, messages: int, wild: float, cpus: int, nics: int) -> GoalSchedule:
    rng = np.random.default_rng(seed)
    steps = []
    for _ in range(2):
        src = rng.integers(0, ranks, messages)
        dst = (src + rng.integers(1, ranks, messages)) % ranks
        steps.append(CommStep.from_arrays(ranks, src, dst, rng.integers(1, 40, messages).astype(float)))
        steps.append(CompStep.of(rng.integers(0, 50, ranks).astype(float)))
    s = program_to_goal(Program(ranks, tuple(steps)))
    fields = {f: getattr(s, f) for f in s.__dataclass_fields__}
    peer = s.peer.copy()
    peer[(s.kind == RECV) & (rng.random(s.num_ops) < wild)] = -1
    fields["peer"] = peer
    # several CPUs and NICs: a send and its receive name the same ones (LogGOPSim charges the
    # receiver on the CPU and NIC the sender names)
    cpu, nic = rng.integers(0, cpus, s.num_ops), rng.integers(0, nics, s.num_ops)
    fields["cpu"], fields["nic"] = cpu, nic
    # some operations wait for the start of an earlier one of their rank (every dependency then
    # points backwards, so there is no cycle)
    a = rng.integers(0, s.num_ops, s.num_ops // 10)
    rank_of = s.rank_of
    b = np.maximum(a - rng.integers(1, 4, a.shape[0]), 0)
    keep = (b < a) & (rank_of[b] == rank_of[a])
    fields["ireq_a"], fields["ireq_b"] = a[keep], b[keep]
    return GoalSchedule(**fields)


def _random_case(rng: np.random.Generator, seed: int, most_ranks: int,
                 most_messages: int) -> tuple[GoalSchedule, dict[str, float]]:
    """A random schedule of _random_goal (any-source receives or none, one or two CPUs and NICs)
    and the thresholds to run it with (S around the sizes or beyond them, O or none)."""
    ranks, messages = int(rng.integers(2, most_ranks)), int(rng.integers(1, most_messages))
    wild = float(rng.choice([0.0, 0.3]))
    cpus, nics = int(rng.choice([1, 1, 2])), int(rng.choice([1, 2]))
    s = _random_goal(seed, ranks, messages, wild, cpus, nics)
    return s, {"S": float(rng.choice([16, 1e18])), "O": float(rng.choice([0.0, 0.5]))}


@compiled_only
@pytest.mark.parametrize("seed", range(12))
def test_compiled_extension_gives_the_reference_times(seed, monkeypatch):
    s, kw = _random_case(np.random.default_rng(100 + seed), seed, 30, 600)
    a = _simulate(s, "compiled", monkeypatch, **kw)
    b = _simulate(s, "reference", monkeypatch, **kw)
    assert a.finish.tolist() == b.finish.tolist()
    assert all(np.array_equal(x, y, equal_nan=True) for x, y in zip(a.start, b.start))
    assert all(np.array_equal(x, y, equal_nan=True) for x, y in zip(a.end, b.end))


@pytest.mark.parametrize("impl", _impls())
def test_tags_beyond_32_bits_and_an_empty_schedule(impl, monkeypatch):
    # tags 2^40 and 2^40 + 1 must stay apart: rank 1 receives the second message first
    text = ("num_ranks 2\nrank 0 {\na: send 1b to 1 tag 1099511627776\nb: send 5b to 1 tag 1099511627777\n}\n"
            "rank 1 {\nx: recv 5b from 0 tag 1099511627777\ny: recv 1b from 0 tag 1099511627776\n"
            "y requires x\n}\n")
    res = _simulate(parse_goal(text), impl, monkeypatch)
    finish, start, end, _ = reference_times(parse_goal(text), P)
    assert res.finish.tolist() == finish.tolist()
    assert np.array_equal(res.op_start, start)
    empty = _simulate(parse_goal("num_ranks 3\n"), impl, monkeypatch)
    assert empty.finish.tolist() == [0, 0, 0]


@compiled_only
@pytest.mark.parametrize("cpus", [1, 2])
def test_compiled_extensions_queue_keeps_the_order_over_times_of_many_scales(cpus, monkeypatch):
    # the extension queues events by slots of time: durations from 10^-6 to 10^6 and messages of
    # up to 10^6 bytes put events in the same slot, in slots far ahead and beyond its ring of slots
    rng = np.random.default_rng(7)
    ranks, messages = 64, 1000
    steps = []
    for _ in range(3):
        src = rng.integers(0, ranks, messages)
        dst = (src + rng.integers(1, ranks, messages)) % ranks
        steps.append(CommStep.from_arrays(ranks, src, dst, np.floor(10 ** rng.uniform(0, 6, messages))))
        steps.append(CompStep.of(10 ** rng.uniform(-6, 6, ranks)))
    s = program_to_goal(Program(ranks, tuple(steps)))
    fields = {f: getattr(s, f) for f in s.__dataclass_fields__}
    fields["cpu"] = rng.integers(0, cpus, s.num_ops)
    s = GoalSchedule(**fields)
    params = LogGP(L=1.0, o=0.5, g=0.6, G=0.0002)
    a = _simulate(s, "compiled", monkeypatch, params=params)
    b = _simulate(s, "reference", monkeypatch, params=params)
    assert a.finish.tolist() == b.finish.tolist()
    assert all(np.array_equal(x, y, equal_nan=True) for x, y in zip(a.start, b.start))
    assert all(np.array_equal(x, y, equal_nan=True) for x, y in zip(a.end, b.end))


@pytest.mark.parametrize("impl", _impls())
def test_a_receive_naming_another_senders_tag_matches_nothing(impl, monkeypatch):
    # every send has a tag of its own (as in the schedule of a program): a receive from any source
    # of tag 0 takes rank 0's message, but a receive of tag 0 from rank 1 matches no message
    head = "num_ranks 3\nrank 0 {\na: send 1b to 2 tag 0\n}\nrank 1 {\nb: send 3b to 2 tag 1\n}\nrank 2 {\n"
    ok = parse_goal(head + "y: recv 1b from -1 tag 0\nz: recv 3b from 1 tag 1\n}\n")
    res = _simulate(ok, impl, monkeypatch)
    finish, _, _, _ = reference_times(ok, P)
    assert res.finish.tolist() == finish.tolist()
    stuck = parse_goal(head + "x: recv 1b from 1 tag 0\nz: recv 3b from 1 tag 1\n}\n")
    with pytest.raises(InputError, match="never completes recv x"):
        _simulate(stuck, impl, monkeypatch)


def _shuffled_requires(s: GoalSchedule, rng: np.random.Generator) -> GoalSchedule:
    """The same schedule with its dependency pairs in any order."""
    order = rng.permutation(len(s.req_a))
    return GoalSchedule(**{**{f: getattr(s, f) for f in s.__dataclass_fields__}, "req_a": s.req_a[order],
                           "req_b": s.req_b[order]})


@compiled_only
@pytest.mark.parametrize("seed", range(10))
def test_operations_ordered_by_place_give_the_same_times(seed, monkeypatch):
    # the compiled loop may keep the operations by their place in their rank (operation j of
    # every rank side by side) rather than rank by rank: only where the entries lie changes, so
    # every time is the same, and the caller's columns come back as they were
    rng = np.random.default_rng(300 + seed)
    s, kw = _random_case(rng, seed, 40, 500)
    s = _shuffled_requires(s, rng) if seed % 3 == 1 else s
    columns = {f: np.array(getattr(s, f)) for f in ("kind", "size", "peer", "tag", "cpu", "nic", "req_a", "req_b")}
    monkeypatch.setattr(lgs, "LAYOUT", 0)
    a = lgs.simulate_goal(s, P, **kw, timelines=bool(seed % 2))
    monkeypatch.setattr(lgs, "LAYOUT", 1)
    b = lgs.simulate_goal(s, P, **kw, timelines=bool(seed % 2))
    assert all(np.array_equal(getattr(s, f), c) for f, c in columns.items())
    assert a.finish.tolist() == b.finish.tolist()
    assert all(np.array_equal(x, y, equal_nan=True) for x, y in zip(a.start, b.start))
    assert all(np.array_equal(x, y, equal_nan=True) for x, y in zip(a.end, b.end))


@compiled_only
def test_ordered_by_place_with_ranks_of_no_operations_and_a_deadlock(monkeypatch):
    # ranks without operations take no place; a receive that no send matches is reported the same
    text = ("num_ranks 5\nrank 1 {\na: send 4b to 3 tag 2\nb: calc 3\nc: recv 2b from 3 tag 5\nb requires a\n}\n"
            "rank 3 {\nx: recv 4b from 1 tag 2\ny: send 2b to 1 tag 5\ny requires x\n}\n")
    monkeypatch.setattr(lgs, "LAYOUT", 1)
    res = lgs.simulate_goal(parse_goal(text), P)
    finish, start, _, _ = reference_times(parse_goal(text), P)
    assert res.finish.tolist() == finish.tolist()
    assert np.array_equal(res.op_start, start)
    with pytest.raises(InputError, match="never completes recv c"):
        lgs.simulate_goal(parse_goal(text.replace("tag 5\nb", "tag 6\nb")), P)


@compiled_only
def test_a_large_schedule_picks_its_order_and_keeps_the_times(monkeypatch):
    # 2^20 operations and more: recursive-doubling rounds (two operations ready per rank) go by
    # place, one random step (hundreds ready per rank) as given; either way the times are the same
    ranks, rounds = 1024, 342
    r = np.arange(ranks)
    rounds_prog = Program(ranks, tuple(CommStep.from_arrays(ranks, r, r ^ (1 << (k % 10)), np.full(ranks, 64.0))
                                       for k in range(rounds)))
    rng = np.random.default_rng(5)
    src = rng.integers(0, ranks, 2 ** 19)
    one_step = Program(ranks, (CommStep.from_arrays(ranks, src, (src + rng.integers(1, ranks, src.size)) % ranks,
                                                    rng.integers(1, 4096, src.size).astype(float)),))
    for prog in (rounds_prog, one_step):
        s = program_to_goal(prog)
        assert s.num_ops >= 2 ** 20
        got = {}
        for layout in (-1, 0):
            monkeypatch.setattr(lgs, "LAYOUT", layout)
            got[layout] = lgs.simulate_goal(s, P, timelines=False).finish
        assert got[-1].tolist() == got[0].tolist()


@compiled_only
@pytest.mark.parametrize("seed", range(8))
def test_inputs_not_read_again_give_the_same_times(seed):
    # scratch: the caller reads no input again, so the loop writes the matching keys over the tags
    # and gives back the pages of the dependency lists; tags repeated (keys found by hashing), and
    # (from _random_case) receives from any source, irequires, several CPUs and NICs; by place or not
    rng = np.random.default_rng(500 + seed)
    s, kw = _random_case(rng, seed, 30, 400)
    s = GoalSchedule(**{**{f: getattr(s, f) for f in s.__dataclass_fields__}, "tag": s.tag % 3})
    want_finish, _, _, want_done = reference_times(s, P, O=kw["O"], S=kw["S"])
    n_cpu, n_nic = 1 + int(s.cpu.max()), 1 + int(s.nic.max())
    i32, none = np.int32, np.zeros(0, np.int32)
    done, finish = np.zeros(s.num_ops, np.bool_), np.zeros(s.num_ranks)
    lgs.compiled_goal().simulate(
        s.num_ranks, s.op_ptr.astype(np.int64), s.kind.astype(np.int8), s.size.astype(float), s.peer.astype(i32),
        s.tag.astype(i32), s.cpu.astype(i32) if n_cpu > 1 else none, s.nic.astype(i32) if n_nic > 1 else none,
        *(c.astype(i32) for c in (s.req_a, s.req_b, s.ireq_a, s.ireq_b)), n_cpu, n_nic, P.L, P.o, P.g, P.G,
        kw["O"], kw["S"], np.zeros(1), np.zeros(1), done, finish, seed % 2, 1)
    assert done.tolist() == want_done.tolist()
    assert finish.tolist() == want_finish.tolist()
