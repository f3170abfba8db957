"""The modular-vs-monolithic-vs-measured study on a tiny grid (000 section 4)."""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from perfcompose.errors import PerfcomposeError
from perfcompose.model import Model
from perfcompose.validate.held_out import measurement_interval, with_held_out_error
from perfcompose.validate.modular import lead_error, study
from perfcompose.validate.rounds import curve, dense_grid, over_rounds, resampled_rounds

X = (1024, 2048, 4096)


@pytest.fixture(scope="module")
def small_study(tmp_path_factory):
    folder = tmp_path_factory.mktemp("checkpoints")
    result = study(["seq(inc, nop)", "pipe(inc, qsort)", "tpool_4(qsort)"], X, rounds=2, count=4,
                   max_workers=2, checkpoints=folder, part_rounds=2, part_reps=1)
    return result, folder


def test_every_configuration_that_fits_is_measured_fitted_and_composed(small_study):
    result, _ = small_study
    assert [c.configuration for c in result.comparisons] == ["seq(inc, nop)", "pipe(inc, qsort)"]
    assert result.skipped == (("tpool_4(qsort)", "4 workers, 2 cores"),)
    for c in result.comparisons:
        assert len(c.measured) == len(X) and all(m > 0 for m in c.measured)
        assert len(c.errors_paper) == len(c.errors_calibrated) == len(X)
        assert all(np.isfinite(c.errors_calibrated))
        record = c.to_json()
        assert {"configuration", "monolithic", "modular", "measured", "error_paper", "error_calibrated"} <= set(record)
        json.dumps(record)
    # composed in context, each says how far its co-run measurements move it: a chain not at all
    chain, pipe = result.comparisons
    assert chain.interference == (0.0,) * len(X)
    assert len(pipe.interference) == len(X) and all(np.isfinite(pipe.interference)) and min(pipe.interference) >= 0


def test_the_errors_are_those_of_the_models_against_the_measurement(small_study):
    result, _ = small_study
    c = result.comparisons[1]
    x = np.array(X, dtype=float)
    measured = np.array(c.measured) * 1e9
    np.testing.assert_allclose(c.errors_calibrated, np.abs(c.calibrated(x=x) - measured) / measured)
    np.testing.assert_allclose(c.errors_paper, np.abs(c.modular(x=x) - measured) / measured)


def test_a_rerun_resumes_from_the_checkpoints_and_measures_nothing_again(small_study):
    result, folder = small_study
    calls = []
    again = study(["seq(inc, nop)", "pipe(inc, qsort)", "tpool_4(qsort)"], X, rounds=2, count=4,
                  max_workers=2, checkpoints=folder, progress=lambda *a: calls.append(a), part_rounds=2, part_reps=1)
    assert calls == []
    assert again.comparisons[0].measured == result.comparisons[0].measured


def test_fewer_than_three_sizes_are_refused():
    with pytest.raises(PerfcomposeError, match="at least 3 input sizes"):
        study(["seq(inc, nop)"], [1024, 2048], rounds=1, count=4)


def test_the_measured_curve_interpolates_in_log_log():
    c = curve("c", [1.0, 4.0], [[1e-9], [16e-9]])
    assert c(x=2.0) == pytest.approx(4.0)
    assert c(x=4.0) == pytest.approx(16.0)


def test_lead_error_compares_leading_coefficients_of_the_same_order():
    a, b = Model.parse("5 + 110*x*log2(x)"), Model.parse("100*x*log2(x)")
    assert lead_error(a, b) == pytest.approx(0.1)
    assert lead_error(Model.parse("3*x"), b) is None


def test_the_parts_are_measured_on_a_denser_grid_than_the_programs(small_study):
    result, _ = small_study
    assert set(X) < set(result.part_x) and len(result.part_x) == 9  # 4 sizes per octave over 2 octaves
    assert dense_grid((1024, 262144)) == tuple(float(round(2 ** (k / 4))) for k in range(40, 73))


def test_every_calibrated_prediction_carries_an_interval_around_it(small_study):
    result, _ = small_study
    for c in result.comparisons:
        predicted = c.calibrated(x=np.array(X, dtype=float))
        assert len(c.low) == len(c.high) == len(X)
        assert np.all(np.array(c.low) <= predicted) and np.all(predicted <= np.array(c.high))
        assert len(c.inside) == len(X)
    assert 0.0 <= result.coverage <= 1.0


def test_the_measurement_interval_is_the_prediction_s_widened_by_root_two():
    predicted = np.array([100.0])
    low, high = measurement_interval(predicted, np.array([95.0]), np.array([105.0]))
    assert low[0] == pytest.approx(100 - 5 * np.sqrt(2)) and high[0] == pytest.approx(100 + 5 * np.sqrt(2))
    assert measurement_interval(predicted, np.array([10.0]), np.array([190.0]))[0][0] == 0.0  # never negative


def test_resampled_rounds_take_the_same_rounds_for_every_size():
    values = np.array([[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]])
    picks = np.array([[0, 0, 0], [2, 2, 1]])
    # each member takes the same rounds at every size, and sums them up as over_rounds does
    np.testing.assert_allclose(resampled_rounds(values, picks), [[1.0, 10.0], over_rounds([[3, 3, 2], [30, 30, 20]])])


def test_a_term_counts_its_fastest_round_outside_the_slow_spells():
    # a program of two parts; slow spells stretch whole runs 1.8x, in other rounds for each term
    part_a = np.array([[1.0, 1.8, 1.0, 1.8, 1.0]])
    part_b = np.array([[2.0, 2.0, 3.6, 2.0, 3.6]])
    program = np.array([[5.4, 3.0, 5.4, 3.0, 5.4]])
    assert over_rounds(part_a)[0] + over_rounds(part_b)[0] == over_rounds(program)[0] == 3.0
    assert over_rounds(program, axis=1, keepdims=True).shape == (1, 1)


def _copies(study, off: float):
    """Six trusted, undisturbed copies of the study's first program: the first measured as
    predicted, the others ``off`` times the prediction at every size; and the prediction [ns]."""
    import dataclasses

    result, _ = study
    base = result.comparisons[0]
    predicted = np.asarray(base.calibrated(x=np.array(base.x, dtype=float)), dtype=float)
    return [dataclasses.replace(base, configuration=f"c{k}", disturbed=False, warning="",
                                measured=tuple(float(v) * 1e-9 * (off if k else 1.0) for v in predicted))
            for k in range(6)], predicted


def test_the_interval_is_the_predictors_error_on_the_other_programs(small_study):
    import dataclasses

    # six copies: the first measured as predicted, the others 10 % slow at every size
    copies, predicted = _copies(small_study, 1.1)
    first = with_held_out_error(copies, 0.9)[0]
    # its interval is set from the others alone: 10 % either way on the log scale, about the prediction
    np.testing.assert_allclose(first.high, predicted * 1.1)
    np.testing.assert_allclose(first.low, predicted / 1.1)
    assert first.held_out_error == pytest.approx(0.1)
    others = np.concatenate([np.array(c.measured) * 1e9 for c in copies[1:]])
    low, high = np.tile(first.low, 5), np.tile(first.high, 5)
    assert np.mean((low <= others * (1 - 1e-9)) | (others * (1 + 1e-9) <= high)) >= 0.9
    # a disturbed program does not widen it while four undisturbed others are there ...
    mixed = [copies[0], dataclasses.replace(copies[1], measured=tuple(3 * v for v in copies[1].measured),
                                            disturbed=True), *copies[2:]]
    assert with_held_out_error(mixed, 0.9)[0].held_out_error == pytest.approx(first.held_out_error)
    # ... and on a busy machine, where every program was disturbed, every other program counts
    busy = with_held_out_error([dataclasses.replace(c, disturbed=True) for c in copies], 0.9)
    assert busy[0].held_out_error == pytest.approx(first.held_out_error)


def test_the_others_misses_at_any_size_set_the_interval_at_every_size(small_study):
    import dataclasses

    # the others 20 % slow at the smallest size and 2 % at the others: the 90 % quantile of all
    # their scores together is a 20 % miss, and so is the interval at every size
    copies, predicted = _copies(small_study, 1.0)
    off = np.full(len(predicted), 1.02)
    off[0] = 1.2
    copies = [copies[0], *(dataclasses.replace(c, measured=tuple(np.array(c.measured) * off)) for c in copies[1:])]
    first = with_held_out_error(copies, 0.9)[0]
    np.testing.assert_allclose(first.high, predicted * 1.2)
    np.testing.assert_allclose(first.low, predicted / 1.2)


def test_the_interval_widens_with_how_far_the_co_run_measurements_move_the_prediction(small_study):
    import dataclasses

    from perfcompose.validate.held_out import STEADY

    # the others, chains the co-run measurements leave alone, 10 % slow; the one predicted moved
    # by STEADY on the log scale: its error is expected twice theirs, and so is its interval
    copies, predicted = _copies(small_study, 1.1)
    still = [dataclasses.replace(c, interference=(0.0,) * len(predicted)) for c in copies]
    moved = dataclasses.replace(still[0], interference=(STEADY,) * len(predicted))
    first = with_held_out_error([moved, *still[1:]], 0.9)[0]
    np.testing.assert_allclose(first.high, predicted * 1.1 ** 2)
    # and a chain among programs moved that far keeps half their miss
    others = [dataclasses.replace(c, interference=(STEADY,) * len(predicted)) for c in copies[1:]]
    chain = with_held_out_error([still[0], *others], 0.9)[0]
    np.testing.assert_allclose(chain.high, predicted * 1.1 ** 0.5)


def test_a_held_out_interval_holds_its_prediction_and_stays_above_zero(small_study):
    # the others 5x off: the interval is wide, but above zero and around the prediction
    copies, predicted = _copies(small_study, 5.0)
    first = with_held_out_error(copies, 0.9)[0]
    assert all(0 < lo < p < hi for lo, p, hi in zip(first.low, predicted, first.high))
    # with too few others the interval is the bootstrap's and says so
    assert with_held_out_error(copies[:3], 0.9)[0].held_out_error == 0.0


def test_three_others_give_their_largest_error(small_study):
    # four programs: the first measured as predicted, the others 5 %, 10 % and 30 % slow
    copies, predicted = _copies(small_study, 1.0)
    copies = [copies[0], *(dataclasses.replace(c, measured=tuple(np.array(c.measured) * f))
                           for c, f in zip(copies[1:4], (1.05, 1.1, 1.3)))]
    first = with_held_out_error(copies, 0.9)[0]
    np.testing.assert_allclose(first.high, predicted * 1.3)
    assert first.held_out_error == pytest.approx(0.3)


def test_reference_parts_alone_get_table1s_inputs_and_others_the_given_ones():
    from perfcompose.bench.tasks import TASKS, random_ints
    from perfcompose.validate.modular import _setup

    # nop on an untouched array, as Table 1: no fresh input written right before the call
    assert _setup("nop", TASKS["nop"].run, random_ints) is TASKS["nop"].setup
    own = _setup("nop", lambda a: a, random_ints)  # a user's own stage named nop
    assert own(8)[0].shape == (8,)
    given = _setup("inc", TASKS["inc"].run, lambda x: [x])  # a given input is used as given
    assert given(5.0) == ([5.0],)


def test_the_runs_disturbance_survives_a_resumed_study(tmp_path):
    from perfcompose.runtime.target import TermTarget
    from perfcompose.validate.modular import load_disturbance, save_disturbance

    first = TermTarget([], {}, lambda x: x)
    first.wait_share[(3, 1024.0)] = 0.4
    first.disturbed_runs[(3, 1024.0)] = 1
    path = tmp_path / "disturbance.json"
    save_disturbance(first, path)
    resumed = TermTarget([], {}, lambda x: x)
    resumed.wait_share[(3, 1024.0)] = 0.1  # measured again in this invocation: the larger share stays
    load_disturbance(resumed, path)
    assert resumed.wait_share == {(3, 1024.0): 0.4}
    assert resumed.disturbed_runs == {(3, 1024.0): 1}
    load_disturbance(resumed, tmp_path / "absent.json")  # a study never measured before: nothing
    assert resumed.wait_share == {(3, 1024.0): 0.4}


def test_a_damaged_disturbance_record_is_a_located_error(tmp_path):
    from perfcompose.errors import InputError
    from perfcompose.runtime.target import TermTarget
    from perfcompose.validate.modular import load_disturbance

    path = tmp_path / "disturbance.json"
    path.write_text("{not json")
    with pytest.raises(InputError, match="disturbance.json"):
        load_disturbance(TermTarget([], {}, lambda x: x), path)


def test_pipe_stages_are_the_components_that_run_as_a_stage_of_a_pipe():
    from perfcompose.compose.parser import parse_term
    from perfcompose.validate.modular import pipe_stages

    # a task pool inside a pipe is not a stage of its own; a pipe inside a task pool is
    assert pipe_stages([parse_term("pipe(inc, tpool_2(qsort))")]) == ["inc"]
    assert pipe_stages([parse_term("tpool_2(pipe(qsort, nop))")]) == ["nop", "qsort"]
    assert pipe_stages([parse_term("seq(inc, qsort)")]) == []


def test_every_pipe_stage_is_measured_in_its_probes_and_predicts_the_pipe_by_time_sharing(small_study):
    from perfcompose.compose.context import Stage

    result, _ = small_study
    assert {"pipe(inc, touch)", "pipe(nop, qsort@inc)"} <= set(result.measured)
    pipe = next(c for c in result.comparisons if c.configuration == "pipe(inc, qsort)")
    m = result.in_context
    inc, qsort = m.executor["inc"], m.executor["qsort@inc"]  # each stage as one worker, qsort on inc's output
    a, b = Stage(("inc",)), Stage(("qsort@inc",))
    fab, fba = np.maximum(m.slowdown[(a, b)], 1), np.maximum(m.slowdown[(b, a)], 1)
    # qsort wakes inc, blocked on a full queue, for the share of the time inc waits
    fed = qsort + np.maximum(m.fed[b] - qsort, 0) * (1 - inc / np.maximum(inc, qsort))
    # inc wakes qsort's stage for the share of the time qsort idles
    woken = inc + np.maximum(m.feeding[a] - inc, 0) * (1 - fed / np.maximum(inc, fed))
    # time sharing: each stage as the bottleneck, slowed while the other runs beside it, where the
    # other's busy time fits in that period (else the slower stage alone)
    as_b, as_a = fed + woken * fab * (1 - 1 / fba), woken + fed * fba * (1 - 1 / fab)
    best = np.maximum(np.where(woken * fab <= 1.01 * as_b, as_b, -np.inf),
                      np.where(fed * fba <= 1.01 * as_a, as_a, -np.inf))
    expected = np.where(np.isfinite(best), best, np.maximum(woken, fed))
    xs = np.array(X, dtype=float)
    assert np.asarray(pipe.calibrated(x=xs), float) == pytest.approx(expected, rel=1e-6)


def test_a_program_s_parts_are_measured_on_the_data_they_receive_in_it(small_study):
    result, _ = small_study
    # seq(inc, nop): nop receives inc's output, and is timed in the executor on it
    assert "nop@inc" in result.in_context.executor
    assert "qsort@inc" in result.in_context.executor


def test_a_prediction_from_parts_whose_rounds_scatter_is_not_trusted():
    from perfcompose.validate.held_out import untrusted

    predicted = np.array([100.0, 200.0])
    assert untrusted(predicted, predicted * 0.95, predicted * 1.05) == ""
    assert "scatter by +-40 %" in untrusted(predicted, predicted * 0.6, predicted * 1.4)
    assert "finite" in untrusted(np.array([np.nan, 1.0]), predicted, predicted)
