"""Latency operators of seq, pipe and tpool (compose/latency.py; derivation in docs/latency.md)."""
from __future__ import annotations

import pytest

from perfcompose.compose.latency import latency
from perfcompose.errors import ModelError
from perfcompose.model import Model


def parts(**times: float) -> dict[str, Model]:
    return {k: Model.constant(v, params=("x",), unit="s") for k, v in times.items()}


def test_figure2_an_element_alone():
    # 000 Figure 2: a 10 s stage then a 5 s stage, "the first one is completed after 15 s"
    p = parts(a=10.0, b=5.0)
    assert latency("pipe(a, b)", p)(x=1) == pytest.approx(15.0)
    assert latency("tpool_2(a)", p)(x=1) == pytest.approx(10.0)      # a pool raises throughput, not latency
    assert latency("seq(a, b)", p)(x=1) == pytest.approx(15.0)


def tandem(a: float, b: float, q: int, count: int = 400) -> float:
    """Latency of the last element through two single-worker stages joined by a queue of q places,
    the input saturated and a blocked put holding the worker (the executor's discipline)."""
    start1, leave1, start2, done2 = [], [], [], []
    for i in range(count):
        s1 = leave1[-1] if leave1 else 0.0                     # stage 1 takes the next element at once
        c1 = s1 + a
        room = start2[i - q] if i - q >= 0 else 0.0            # place in the queue once i - q is taken
        d1 = max(c1, room)
        s2 = max(d1, done2[-1] if done2 else 0.0)
        start1.append(s1)
        leave1.append(d1)
        start2.append(s2)
        done2.append(s2 + b)
    return done2[-1] - start1[-1]


@pytest.mark.parametrize("a, b, q", [(1.0, 3.0, 2), (1.0, 3.0, 5), (3.0, 1.0, 2), (2.0, 2.5, 1)])
def test_saturated_pipe_matches_a_simulation_of_the_queue(a, b, q):
    model = latency("pipe(a, b)", parts(a=a, b=b), capacity=q)
    assert model(x=1) == pytest.approx(tandem(a, b, q))


def test_nested_patterns_count_readers_and_held_elements():
    p = parts(inc=1.0, qsort=8.0)

    def lc(term):
        return latency(term, p, capacity=2)

    # qsort pool (period 4) slower than inc: 1 element in inc + 2 queued per qsort reader, then qsort
    assert lc("pipe(inc, tpool_2(qsort))")(x=1) == pytest.approx((1 + 2 * 2) * 4.0 + 8.0)
    # the pool of qsort is upstream and slower: no queue in front of inc
    assert lc("pipe(tpool_2(qsort), inc)")(x=1) == pytest.approx(8.0 + 1.0)
    assert lc("tpool_2(pipe(inc, qsort))")(x=1) == pytest.approx((1 + 2) * 8.0 + 8.0)
    assert lc("pipe(inc, tpool_3(qsort))")(x=1) == pytest.approx((1 + 2 * 3) * 8.0 / 3 + 8.0)


def test_the_slower_stage_may_depend_on_the_size():
    p = {"lin": Model.parse("100*x", unit="s"), "const": Model.parse("1000", unit="s")}
    model = latency("pipe(const, lin)", p, capacity=2)
    assert model(x=100) == pytest.approx(4 * 100 * 100)          # lin slower: queued
    assert model(x=1) == pytest.approx(1000 + 100)               # const slower: lin keeps up


def test_refused_where_no_per_element_latency_exists():
    p = parts(inc=1.0, qsort=2.0)
    with pytest.raises(ModelError, match="seq of parallel parts"):
        latency("seq(tpool_2(qsort), inc)", p)
    with pytest.raises(ModelError, match="capacity"):
        latency("inc", p, capacity=0)
