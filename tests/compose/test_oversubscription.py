"""More workers than cores: counted through nested pools, and the prediction floored by the work."""
import numpy as np
import pytest

from perfcompose.compose import Composer
from perfcompose.compose.interval import interval_of, members_lane
from perfcompose.compose.oversubscription import account, shared, workers
from perfcompose.compose.parser import parse_term
from perfcompose.model import Model

PARTS = {"a": Model.parse("100*x", unit="ns"), "b": Model.parse("50*x", unit="ns")}


@pytest.mark.parametrize("term, count", [("a", 1), ("seq(a, b)", 1), ("pipe(a, b)", 2),
                                         ("pipe(tpool_2(a), b)", 3), ("tpool_2(pipe(a, b))", 4),
                                         ("tpool_n(a)", None)])
def test_workers_count_nested_pools(term, count):
    assert workers(parse_term(term)) == count


def test_no_warning_within_the_cores():
    composer = Composer(PARTS)
    term = parse_term("pipe(a, b)")
    assert account(composer, term, composer(term), cores=2) is None


def test_an_oversubscribed_pipe_is_no_faster_than_its_work_over_the_cores():
    composer = Composer(PARTS)
    term = parse_term("pipe(tpool_2(a), b)")
    over = account(composer, term, composer(term), cores=2)
    assert over is not None and over.workers == 3 and "3 workers on 2 cores" in str(over)
    # operators: max(100x/2, 50x) = 50x; on 2 cores the work 150x needs at least 75x
    assert over.model(x=10.0) == pytest.approx(750.0)


def test_the_interval_is_floored_with_the_prediction():
    rng = np.random.default_rng(0)
    from perfcompose.ensemble import LinearEnsemble

    basis = (Model.parse("x", unit=""),)
    a = PARTS["a"].with_meta(ensemble=LinearEnsemble(basis, 100 * (1 + 0.05 * rng.standard_normal((200, 1)))))
    composer = Composer({"a": a, "b": PARTS["b"]})
    term = parse_term("pipe(tpool_2(a), b)")
    tree = composer.evaluate(term, (members_lane(composer, term),))
    model, over = shared(tree, interval_of(tree, tree.model), cores=2)
    lo, hi = model.interval(x=10.0)
    assert over is not None and lo < model(x=10.0) < hi and lo > 600.0

