"""Mean value analysis beside the bound: within 2 % of simulation at the MRM's saturation point
(P = 101, where the bound is 7 % under), and only where the model is a closed network."""
from __future__ import annotations

import statistics

import pytest
from pamela_models import EXAMPLES

from perfcompose.pamela import compile_file, compile_text
from perfcompose.pamela.simulate.simulation import ClosedNetwork, mva_cycle_time


def test_mva_of_the_mrm_at_saturation_is_within_2_percent_of_simulation():
    cm = compile_file(EXAMPLES / "mrm.pam")
    values = {"P": 101, "N": 300}
    sims = [cm.simulate(values, distribution="exponential-service", seed=s).time for s in range(3)]
    mean = statistics.fmean(sims)
    mva = cm.mva(values)
    assert abs(mean - mva) / mean < 0.02
    assert (mean - cm.evaluate(values).T) / mean > 0.04  # where the bound alone is off


def test_one_client_never_queues_and_many_saturate_the_server():
    net = ClosedNetwork(1, 1, 10.0, ((0.1, 1.0),))
    assert mva_cycle_time(net) == pytest.approx(10.1)
    busy = ClosedNetwork(1000, 1, 10.0, ((0.1, 1.0),))
    assert mva_cycle_time(busy) == pytest.approx(1000 * 0.1, rel=1e-6)


def test_no_mva_where_the_model_is_not_a_closed_network():
    per_client = compile_text("numeric parameter P\nresource cpu(p) = fcfs(p, 1)\n"
                              "process main = par (p = 1, P) seq (i = 1, 3) use(cpu(p), 1)\n")
    assert per_client.mva({"P": 4}) is None
    assert compile_file(EXAMPLES / "matvec.pam").mva({"N": 10, "P": 2}) is None
