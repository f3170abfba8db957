"""The discrete-event simulator: exact answers on models whose behaviour is worked out by hand."""
from __future__ import annotations

import math

import pytest
from pamela_models import MRM

from perfcompose.errors import InputError
from perfcompose.pamela import compile_text


@pytest.mark.parametrize("P", [1, 7, 101])
def test_mrm_below_saturation_finishes_at_10_1_N_plus_0_1_P_minus_1(P):
    # All P clients think 10 and reach the server together; client k (in service order) first leaves
    # it at 10 + 0.1 k, and from then on cycles in 10.1 undisturbed while 0.1 P <= 10.1: the last
    # one finishes at 10 + 0.1 P + (N - 1) 10.1 = 10.1 N + 0.1 (P - 1).
    N = 50
    sim = compile_text(MRM).simulate({"P": P, "N": N})
    assert math.isclose(sim.time, 10.1 * N + 0.1 * (P - 1), rel_tol=1e-12)
    assert sim.uses == P * N and math.isclose(sim.busy[0], 0.1 * P * N, rel_tol=1e-12)


@pytest.mark.parametrize("P", [102, 300])
def test_mrm_above_saturation_keeps_the_server_busy_from_time_10(P):
    # Once 0.1 P > 10.1 a client is back before the server has served everyone: the server never
    # idles after the first arrivals at 10, so the end is 10 + 0.1 N P.
    N = 20
    sim = compile_text(MRM).simulate({"P": P, "N": N})
    assert math.isclose(sim.time, 10 + 0.1 * N * P, rel_tol=1e-12)


def test_fcfs_with_several_servers_serves_ceil_n_over_m_rounds():
    # 10 jobs of 2 on 3 servers: rounds of 3, 3, 3, 1  ->  4 * 2 = 8
    sim = compile_text("process main = par (i = 1, 10) use(fcfs(0, 3), 2)").simulate({})
    assert sim.time == 8.0 and sim.multiplicity == {0: 3} and sim.loads == {0: 20 / 3}


def test_fork_join_waits_for_the_slower_branch_and_queues_fcfs():
    # left holds r from 0 to 3; right arrives at 1, waits, is served 3..5; the join is at 5
    cm = compile_text("resource r = fcfs(0, 1)\nprocess main = use(r, 3) || { delay(1) ; use(r, 2) }")
    assert cm.simulate({}).time == 5.0
    assert cm.evaluate({}).T == 5.0  # phi = 3, omega = 5


def test_exponential_times_are_reproducible_and_average_to_the_mean():
    cm = compile_text("numeric parameter N\nprocess main = seq (i = 1, N) { delay(1) ; use(fcfs(0, 1), 2) }")
    a = cm.simulate({"N": 4000}, distribution="exponential", seed=1)
    b = cm.simulate({"N": 4000}, distribution="exponential", seed=1)
    c = cm.simulate({"N": 4000}, distribution="exponential", seed=2)
    assert a.time == b.time and a.time != c.time
    # 4000 cycles of mean 3: the sum has standard deviation sqrt(4000 * (1 + 4)) ~ 141
    assert abs(a.time - 12000) < 6 * 141
    service_only = cm.simulate({"N": 4000}, distribution="exponential-service", seed=1)
    assert abs((service_only.time - 4000) - 8000) < 6 * math.sqrt(4000 * 4)  # delays stay exactly 1


def test_a_probability_condition_draws_each_time():
    # if (0.25) delay(4) else delay(1): mean 0.25 * 4 + 0.75 * 1 = 1.75 per iteration
    cm = compile_text("numeric parameter N\nprocess main = seq (i = 1, N) if (0.25) delay(4) else delay(1)")
    sim = cm.simulate({"N": 8000}, seed=5)
    assert cm.evaluate({"N": 8000}).T == 1.75 * 8000
    # binomial spread: sd = 3 * sqrt(8000 * 0.25 * 0.75) ~ 116
    assert abs(sim.time - 14000) < 6 * 116


def _error(text: str, values: dict) -> InputError:
    with pytest.raises(InputError) as info:
        compile_text(text, "sim.pam").simulate(values)
    return info.value


def test_a_fractional_resource_index_is_an_error_at_its_use():
    err = _error("numeric parameter N\nprocess main = seq (i = 1, N)\n  use(fcfs(i / 2, 1), 1)", {"N": 3})
    assert (err.line, err.column) == (3, 3) and "0.5" in str(err) and "sim.pam" in str(err)


def test_one_index_with_two_multiplicities_is_an_error():
    err = _error("process main = use(fcfs(0, 1), 1) ; use(fcfs(0, 2), 1)", {})
    assert err.line == 1 and "multiplicity" in str(err)


def test_negative_times_and_missing_values_are_errors():
    assert "at least 0" in str(_error("numeric parameter T\nprocess main = delay(T - 5)", {"T": 1}))
    assert "no value for parameter N" in str(_error("numeric parameter N\nprocess main = delay(N)", {}))


def test_the_operation_count_is_estimated_before_any_event_runs():
    from perfcompose.limits import WorkTooLarge
    from perfcompose.pamela.simulate.simulation import operation_count

    cm = compile_text(MRM)
    count = operation_count(cm.normal.processes["main"], {"P": 7, "N": 5})
    assert count == cm.simulate({"P": 7, "N": 5}).uses + 7 * 5  # every use plus every think delay
    with pytest.raises(WorkTooLarge, match="would take about 2e\\+12 steps"):
        cm.simulate({"P": 1e6, "N": 1e6})


def test_a_par_of_a_billion_identical_replicas_compiles_to_its_body():
    cm = compile_text("process main = par (i = 1, 1000000000) { delay(1) }\n")
    assert cm.evaluate({}, "main").T == 1
