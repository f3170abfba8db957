"""The pool of library stages that random programs are drawn from (examples/stages/stage_pool.py)."""
from __future__ import annotations

import pytest
from example_stages import example_stages


@pytest.fixture(scope="module")
def pool():
    with example_stages("stage_pool") as module:
        yield module


def test_the_pool_holds_forty_stages_and_more_of_twelve_kinds_and_more(pool):
    assert len(pool.STAGES) >= 40 and len(set(pool.KINDS.values())) >= 12
    assert set(pool.STAGES) == set(pool.KINDS)


def test_every_stage_takes_what_any_stage_hands_on(pool):
    # the outputs of every stage on a small signal (arrays, bytes, text, lists of several sizes)
    outputs = {name: f(pool.signal(256)) for name, f in pool.STAGES.items()}
    kinds = {type(v).__name__ for v in outputs.values()}
    assert {"ndarray", "bytes", "str", "list"} <= kinds
    for name, f in pool.STAGES.items():
        for before, data in outputs.items():
            out = f(data)
            assert out is not None, (before, name)
