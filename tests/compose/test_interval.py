"""Intervals carried through composition: seq, pipe, tpool, mapreduce, exact sources."""
import numpy as np
import pytest

from perfcompose.compose import Composer
from perfcompose.compose.interval import with_interval
from perfcompose.ensemble import LinearEnsemble
from perfcompose.model import Model

X = np.array([1024.0, 65536.0])


def _uncertain(text, rel, seed):
    """A model whose coefficients vary by ``rel`` (normal) across 400 members."""
    model = Model.parse(text, params=("x",), unit="ns")
    constant, terms = model.terms()
    basis = (Model.constant(1.0, params=("x",), unit=""),
             *(Model.from_terms(0, [(1.0, {n: (i, j) for n, i, j in t.exponents})], unit="") for t in terms))
    center = np.array([constant, *(t.coefficient for t in terms)])
    rng = np.random.default_rng(seed)
    weights = center * (1 + rel * rng.standard_normal((400, 1)))
    return model.with_meta(ensemble=LinearEnsemble(basis, weights))


@pytest.fixture
def parts():
    return {"inc": _uncertain("536*x", 0.05, 1), "qsort": _uncertain("1034*x*log2(x)", 0.05, 2),
            "nop": Model.parse("5000", params=("x",), unit="ns")}


def _rel_width(model, x=X):
    lo, hi = model.interval(x=x)
    return (hi - lo) / model(x=x)


def test_exact_components_give_no_interval(parts):
    assert with_interval(Composer(parts), "seq(nop, nop)").interval(x=X) is None


def test_the_interval_contains_the_prediction_in_every_operator(parts):
    for term in ("seq(qsort, inc)", "pipe(inc, qsort)", "tpool_4(qsort)", "seq(inc, nop)",
                 "mapreduce(map=nop, reduce=inc, m=1, n=2, keys=8, per_key=x)"):
        model = with_interval(Composer(parts), term)
        lo, hi = model.interval(x=X)
        assert np.all(lo < model(x=X)) and np.all(model(x=X) < hi), term


def test_tpool_keeps_the_relative_width(parts):
    one, four = with_interval(Composer(parts), "qsort"), with_interval(Composer(parts), "tpool_4(qsort)")
    assert _rel_width(four) == pytest.approx(_rel_width(one), rel=1e-9)


def test_seq_of_independent_parts_is_relatively_narrower_than_each(parts):
    # independent errors partly cancel: the sum is relatively surer than either part alone
    seq = with_interval(Composer(parts), "seq(qsort, inc)")
    assert np.all(_rel_width(seq) < _rel_width(with_interval(Composer(parts), "qsort")))


def test_exact_part_adds_no_width(parts):
    inc = with_interval(Composer(parts), "inc")
    seq = with_interval(Composer(parts), "seq(inc, nop)")
    lo1, hi1 = inc.interval(x=X)
    lo2, hi2 = seq.interval(x=X)
    assert hi2 - lo2 == pytest.approx(hi1 - lo1)


def test_asymptotic_pipe_follows_the_rules_choice(parts):
    composer = Composer(parts, pipe="asymptotic")
    model = with_interval(composer, "pipe(inc, qsort)")
    qsort = with_interval(composer, "qsort")
    assert model.interval(x=X)[0] == pytest.approx(qsort.interval(x=X)[0])


def test_scalar_point_gives_floats(parts):
    lo, hi = with_interval(Composer(parts), "seq(qsort, inc)").interval(x=4096.0)
    assert isinstance(lo, float) and lo < hi


def test_a_piped_stage_carries_its_own_members_into_the_pipe(parts):
    from perfcompose.compose.calibrated import CalibratedComposer, Overheads

    floor = Model.parse("1", params=("x",), unit="ns")
    piped = {"inc": _uncertain("600*x", 0.10, 3)}
    calibrated = CalibratedComposer(parts, pipe="pointwise", overheads=Overheads(floor, floor), piped=piped)
    program = with_interval(calibrated, "pipe(inc, nop)")
    assert program(x=X) == pytest.approx(600 * X, rel=0.01)  # nop idles: nearly every wake-up paid
    # the piped model's 10 % spread, not the executor model's 5 %
    assert np.all(_rel_width(program) > 0.25)
