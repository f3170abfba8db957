"""Library stages in context: what the papers' operators leave out, found on code not the project's own."""
from __future__ import annotations

import pytest
from example_stages import example_stages


@pytest.fixture(scope="module")
def stages():
    with example_stages("library_stages") as module:
        yield module


@pytest.fixture(scope="module")
def small_study(stages, tmp_path_factory):
    from perfcompose.validate.modular import study

    functions = {n: getattr(stages, n) for n in ("smooth", "quantize", "pack", "encode")}
    return study(["seq(smooth, quantize, pack)", "tpool_2(encode)"], (1024, 2048, 4096), rounds=2, count=4,
                 functions=functions, make=stages.signal, part_rounds=2, part_reps=1, resamples=20,
                 checkpoints=tmp_path_factory.mktemp("checkpoints"))


def test_every_stage_takes_what_the_one_before_it_hands_on(stages):
    element = stages.signal(1024)
    for chain in (["smooth", "sort", "quantize", "pack"], ["spectrum", "digest", "encode"]):
        data = element
        for name in chain:
            data = getattr(stages, name)(data)
        assert len(data) > 0


def test_a_part_that_costs_otherwise_on_its_predecessor_s_output_is_named(small_study):
    effects = {e.part: e.ratio for e in small_study.context_effects}
    # zlib on rounded, smoothed samples is several times faster than on the raw signal
    assert effects["pack@smooth+quantize"] < 0.7


def test_a_stage_that_holds_the_gil_is_found_from_a_copy_of_itself_beside_it(small_study):
    locks = [s for s in small_study.slowdowns if s.locked]
    assert [(s.a, s.b) for s in locks] == [("encode", "encode")]
    # its pool is predicted no faster than one worker, and on processes beside it
    pool = next(c for c in small_study.comparisons if c.configuration == "tpool_2(encode)")
    single = small_study.in_context.executor["encode"]
    assert float(pool.calibrated(x=4096.0)) > 0.7 * single[-1]
    assert [p.program for p in small_study.process_options] == ["tpool_2(encode)"]


def test_the_chain_in_context_is_predicted_closer_than_by_the_papers_operators(small_study):
    chain = next(c for c in small_study.comparisons if c.configuration == "seq(smooth, quantize, pack)")
    assert chain.error_calibrated < chain.error_paper
