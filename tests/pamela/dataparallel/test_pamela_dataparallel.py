"""The runtime of data-parallel programs: owner-computes layouts and the communication calls give
the results a single processor would (checked inside the workers; a failure there is an error)."""
from __future__ import annotations

import pytest

from perfcompose.pamela.dataparallel import RunError, block, cyclic, local, owned, owner, replicated, run

CHECK = '''
import numpy as np
from perfcompose.pamela.dataparallel import block, cyclic


def program(dp, N):
    X = dp.array((N,), block(0))
    X[:] = np.sort(X)
    gathered = dp.allgather(X[:: max(1, X.shape[0] // dp.P)][: dp.P])
    pivots = np.sort(gathered)[dp.P:: dp.P]
    runs = dp.alltoall(np.split(X, np.searchsorted(X, pivots)))
    Y = dp.merge(runs)
    everything = dp.allgather(Y)
    assert everything.shape == (N,) and np.all(np.diff(everything) >= 0)
    A = dp.array((N, 6), cyclic(0))
    for i in range(N):
        row = dp.bcast(A, i)
        if i % dp.P == dp.p:
            assert np.array_equal(row, A[i // dp.P])
    C = dp.array((6, N), block(1))
    R = dp.redistribute(C, 0)
    back = dp.redistribute(R, 1)
    assert np.array_equal(back, C)
    assert dp.after(A, 0, 2) == sum(1 for i in range(3) if i % dp.P == dp.p)
'''


@pytest.mark.parametrize("P", [1, 2, 3])
def test_psrs_broadcast_and_redistribution_are_correct(tmp_path, P):
    path = tmp_path / "check.py"
    path.write_text(CHECK)
    times = run(path, {"N": 64}, P, reps=1)
    assert len(times) == 1 and times[0] > 0


def test_a_failing_worker_is_an_error_naming_the_program(tmp_path):
    path = tmp_path / "bad.py"
    path.write_text("def program(dp, N):\n    raise ValueError('broken on purpose')\n")
    with pytest.raises(RunError, match="bad.py on processor 0 of 2: ValueError: broken on purpose"):
        run(path, {"N": 1}, 2, reps=1)


def test_layouts_partition_every_index_once():
    for n, P in ((10, 3), (8, 2), (5, 8)):
        for layout in (block(0), cyclic(0)):
            seen = sorted(i for p in range(P) for i in owned(n, layout, p, P))
            assert seen == list(range(n))
            assert all(owner(i, n, layout, P) == p for p in range(P) for i in owned(n, layout, p, P))


def test_the_local_position_of_an_index_is_its_place_among_its_owners_indices():
    for n, P in ((10, 3), (8, 2), (5, 8), (7, 1)):
        for layout in (block(0), cyclic(1), replicated()):
            for i in range(n):
                assert local(i, n, layout, P) == owned(n, layout, owner(i, n, layout, P), P).index(i)


PINNED = '''
import os

import numpy as np


def program(dp, N):
    cores = os.sched_getaffinity(0)
    assert len(cores) == 1, cores
    assert int(os.environ["MALLOC_TRIM_THRESHOLD_"]) > 2 ** 30  # freed memory stays with the worker
    everyone = dp.allgather(np.array([min(cores)]))
    assert len(set(everyone.tolist())) == min(dp.P, os.cpu_count()), everyone
'''


def test_alternatives_run_in_turn_in_workers_pinned_to_their_own_cores(tmp_path):
    import os

    if not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs two cores this process may use")
    slow = tmp_path / "slow.py"
    slow.write_text("import time\n\ndef program(dp, N):\n    time.sleep(N / 1000)\n")
    pinned = tmp_path / "pinned.py"
    pinned.write_text(PINNED)
    from perfcompose.pamela.dataparallel import run_alternatives

    got = run_alternatives([slow, pinned], {"N": 200}, 2, reps=3)
    assert len(got) == 2 and all(len(t) == 3 for t in got)
    assert all(t >= 0.199 for t in got[0])      # the sleeping program's own runs
    assert all(t < 0.199 for t in got[1])       # the other's, not mixed up with them
