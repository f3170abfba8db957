"""The calibrated operators: the papers' operators plus the executor's measured overheads."""
from __future__ import annotations

import pytest

from perfcompose.compose import CalibratedComposer, Overheads
from perfcompose.errors import ModelError
from perfcompose.model import Model

COLD = {"inc": Model.parse("1500 + 0.5*x", unit="ns"), "nop": Model.parse("800", unit="ns"),
        "qsort": Model.parse("2000 + 3.6*x*log2(x)", unit="ns")}
HOT = {"inc": Model.parse("100 + 0.3*x", unit="ns"), "nop": Model.parse("30", unit="ns"),
       "qsort": Model.parse("1000 + 3.5*x*log2(x)", unit="ns")}
OVERHEADS = Overheads(stream=Model.parse("800", unit="ns"), pipe=Model.parse("20000", unit="ns"))


def composer() -> CalibratedComposer:
    return CalibratedComposer(COLD, pipe="pointwise", hot=HOT, overheads=OVERHEADS)


def test_a_chain_pays_one_hand_over_and_later_parts_find_the_data_in_cache():
    x = 4096.0
    got = composer()("seq(inc, inc)")(x=x)
    assert got == pytest.approx(COLD["inc"](x=x) + HOT["inc"](x=x))


def test_a_part_after_one_that_never_reads_the_data_still_meets_it_cold():
    x = 4096.0
    got = composer()("seq(nop, inc)")(x=x)
    assert got == pytest.approx(COLD["nop"](x=x) + COLD["inc"](x=x) - 800)


def test_a_pipe_is_its_slowest_stage_but_never_faster_than_the_hand_over_floor():
    c = composer()("pipe(inc, nop)")
    assert c(x=1024.0) == pytest.approx(20000)
    assert c(x=2.0 ** 18) == pytest.approx(COLD["inc"](x=2.0 ** 18))


def test_a_task_pool_divides_as_the_papers_operator():
    assert composer()("tpool_2(qsort)")(x=65536.0) == pytest.approx(COLD["qsort"](x=65536.0) / 2)


def test_without_overheads_the_calibrated_operators_refuse():
    with pytest.raises(ModelError, match="overheads"):
        CalibratedComposer(COLD, hot=HOT)("pipe(inc, nop)")


def test_a_pipe_stage_with_a_piped_model_pays_the_wake_up_of_an_idle_next_stage():
    piped = {"inc": Model.parse("1500 + 0.7*x", unit="ns")}
    c = CalibratedComposer(COLD, pipe="pointwise", hot=HOT, overheads=OVERHEADS, piped=piped)
    x = 2.0 ** 18
    inc, nop, wake = COLD["inc"](x=x), COLD["nop"](x=x), piped["inc"](x=x) - COLD["inc"](x=x)
    # nop idles nearly all the time: inc wakes it for almost every element it hands over
    assert c("pipe(inc, nop)")(x=x) == pytest.approx(inc + wake * (1 - nop / inc))
    # two equal stages keep each other busy: nobody is woken, and no floor of idle stages applies
    assert c("pipe(inc, inc)")(x=1024.0) == pytest.approx(COLD["inc"](x=1024.0))
    # a stage without a piped model keeps the papers' rule with the hand-over floor
    assert c("pipe(nop, inc)")(x=x) == pytest.approx(inc)
    assert c("pipe(nop, nop)")(x=x) == pytest.approx(20000)
    # outside a pipe the part keeps its time in the executor
    assert c("seq(inc, nop)")(x=x) == pytest.approx(composer()("seq(inc, nop)")(x=x))
    assert c("tpool_2(inc)")(x=x) == pytest.approx(COLD["inc"](x=x) / 2)


def test_a_pipe_stage_runs_as_one_worker_of_its_own():
    piped = {"inc": Model.parse("1500 + 0.7*x", unit="ns")}
    alone = {"inc": Model.parse("1000 + 0.45*x", unit="ns"), "nop": Model.parse("700", unit="ns")}
    c = CalibratedComposer(COLD, pipe="pointwise", hot=HOT, overheads=OVERHEADS, piped=piped, stages=alone)
    x = 2.0 ** 16
    # two equal stages keep each other busy, each at its pace as one worker in the executor
    assert c("pipe(inc, inc)")(x=x) == pytest.approx(alone["inc"](x=x))
    # the wake-up is what the piped probe adds over the stage alone
    inc, nop, wake = alone["inc"](x=x), alone["nop"](x=x), piped["inc"](x=x) - alone["inc"](x=x)
    assert c("pipe(inc, nop)")(x=x) == pytest.approx(inc + wake * (1 - nop / inc))
    # the components of a task pool keep the contention of k workers on one queue
    assert c("tpool_2(inc)")(x=x) == pytest.approx(COLD["inc"](x=x) / 2)
