"""Design-space questions: thread split over pipeline stages, pipe vs tpool(seq), bottleneck."""
from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfcompose import Model
from perfcompose.compose import Composer, explore, parse_term, split_threads

TASKS = {
    "nop": Model.parse("5422.97", unit="ns", params=["x"]),
    "inc": Model.parse("536.185*x", unit="ns"),
    "qsort": Model.parse("1034.17*x*log2(x)", unit="ns"),
}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(1e-3, 1e6), min_size=1, max_size=4), st.integers(0, 8))
def test_greedy_split_is_as_good_as_any_split(times, extra):
    budget = len(times) + extra
    best = min(max(t / n for t, n in zip(times, split))
               for split in itertools.product(range(1, budget + 1), repeat=len(times)) if sum(split) <= budget)
    greedy = split_threads(times, budget)
    assert sum(greedy) == budget
    assert max(t / n for t, n in zip(times, greedy)) == pytest.approx(best)


def test_split_needs_a_thread_per_stage():
    with pytest.raises(ValueError, match="at least 3 threads"):
        split_threads([1, 2, 3], 2)


def test_the_slowest_stage_gets_the_spare_threads():
    e = explore("pipe(qsort, inc, nop)", TASKS, 8, {"x": 65536})
    assert e.bottleneck == 0 and e.split == (6, 1, 1)
    labels = [a.label for a in e.alternatives]
    assert labels[0] == "task pool of the fused stages"  # law (iv): never slower in the model
    split = next(a for a in e.alternatives if a.label.startswith("pipeline, threads split"))
    assert str(split.term) == "pipe(tpool_6(qsort), inc, nop)"
    assert split.time == pytest.approx(TASKS["qsort"](x=65536) / 6)
    one = next(a for a in e.alternatives if a.label.startswith("pipeline, one thread"))
    assert one.time == pytest.approx(TASKS["qsort"](x=65536)) and one.threads == 3


def test_bottleneck_descends_through_pipes_and_pools():
    composer = Composer(TASKS, pipe="pointwise")
    path = composer.evaluate(parse_term("pipe(tpool_4(qsort), seq(inc, nop))")).bottleneck({"x": 2.0 ** 16})
    assert [str(t) for t, _ in path] == ["pipe(tpool_4(qsort), seq(inc, nop))", "tpool_4(qsort)", "qsort"]
    small = composer.evaluate(parse_term("pipe(tpool_4(qsort), seq(inc, nop))")).bottleneck({"x": 2.0})
    assert [str(t) for t, _ in small][1:] == ["seq(inc, nop)", "nop"]
