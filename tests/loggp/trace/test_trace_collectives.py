"""Every collective algorithm pairs each rank's sends with its peers' receives, step for step
sizes included, for every communicator size and root; the trees have their textbook shape."""
from __future__ import annotations

from collections import Counter

import pytest

from perfcompose.loggp.trace.collectives import ALGORITHMS, DEFAULTS, expand

CASES = [(c, a) for c, algs in ALGORITHMS.items() for a in algs]


@pytest.mark.parametrize(("collective", "algorithm"), CASES)
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 7, 8, 12])
def test_every_send_meets_its_receive(collective, algorithm, n):
    for root in sorted({0, n - 1, n // 2}):
        sent, received = Counter(), Counter()
        for v in range(n):
            for step in expand(collective, algorithm, v, n, 100, root):
                for kind, peer, size in step:
                    assert 0 <= peer < n and peer != v and size > 0
                    (sent if kind == "send" else received)[(v, peer) if kind == "send" else (peer, v), size] += 1
        assert sent == received


def test_binomial_broadcast_reaches_every_rank_once_in_log_steps():
    n, root = 11, 3
    recvs = {v: [m for s in expand("bcast", "binomial", v, n, 8, root) for m in s if m[0] == "recv"]
             for v in range(n)}
    assert recvs[root] == [] and all(len(recvs[v]) == 1 for v in range(n) if v != root)
    assert len(expand("bcast", "binomial", root, n, 8, root)) == 4  # ceil(log2 11) sends from the root


def test_gather_moves_whole_subtrees_and_the_root_gets_everything():
    n = 6
    got = sum(size for s in expand("gather", "binomial", 0, n, 10) for kind, _, size in s if kind == "recv")
    assert got == (n - 1) * 10


def test_recursive_doubling_folds_ranks_beyond_a_power_of_two():
    assert [len(expand("allreduce", "recursive-doubling", v, 8, 4)) for v in range(8)] == [3] * 8
    steps6 = [len(expand("allreduce", "recursive-doubling", v, 6, 4)) for v in range(6)]
    assert steps6 == [2, 4, 2, 4, 2, 2]  # ranks 0, 2 hand over and wait; 1, 3 also receive and return


def test_defaults_are_the_first_algorithms():
    assert DEFAULTS["allreduce"] == "recursive-doubling" and DEFAULTS["barrier"] == "dissemination"


def test_scan_passes_prefixes_up_and_reduce_scatter_moves_one_block_per_pair():
    assert all(m[0] == "send" for s in expand("scan", "recursive-doubling", 0, 5, 8) for m in s)
    assert all(m[0] == "recv" for s in expand("scan", "recursive-doubling", 4, 5, 8) for m in s)
    steps = expand("reduce_scatter", "pairwise", 1, 4, 400)
    assert len(steps) == 3 and {size for s in steps for _, _, size in s} == {100}
