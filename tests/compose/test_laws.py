"""The relational theory of 000 section 5.1 (i)-(iv), on the paper's tasks and on random models."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfcompose import Model
from perfcompose.compose import check_laws
from perfcompose.model import Model as M

TASKS = {
    "nop": Model.parse("5422.97", unit="ns", params=["x"]),
    "inc": Model.parse("536.185*x", unit="ns"),
    "qsort": Model.parse("1034.17*x*log2(x)", unit="ns"),
}


def by_law(checks):
    out: dict[str, list] = {}
    for c in checks:
        out.setdefault(c.law, []).append(c)
    return out


def test_section_5_1_laws_hold_for_the_papers_tasks():
    laws = by_law(check_laws(TASKS))
    assert len(laws["i"]) == 6 and len(laws["ii"]) == 3 and len(laws["iii"]) == 6 and len(laws["iv"]) == 3
    for law in ("i", "ii", "iii"):
        assert all(c.held and c.relation == "=" and c.method == "symbolic" for c in laws[law]), law
    assert all(c.held and c.relation == ">=" for c in laws["iv"])


def test_law_iii_layering_keeps_the_thread_count_symbolic():
    c = by_law(check_laws(TASKS, ["qsort", "inc"]))["iii"][0]
    assert str(c.left) == "pipe(tpool_n(qsort), tpool_n(inc))"
    assert str(c.right) == "tpool_n(pipe(qsort, inc))"
    assert "n" in c.lhs.params and c.lhs == c.rhs


def test_law_iv_finds_a_counter_example_where_the_asymptotic_max_is_wrong():
    # a large constant stage beats a linear one everywhere in the range, but the asymptotic
    # max picks the linear stage: pipe(a, b) is then below tpool_2(seq(a, b))
    comps = {"setup": Model.parse("1e6", params=["x"]), "scan": Model.parse("x")}
    iv = by_law(check_laws(comps))["iv"][0]
    assert not iv.held
    assert iv.counterexample == {"x": 1024.0}
    lhs, rhs = iv.values
    assert lhs == 1024.0 and rhs == pytest.approx((1e6 + 1024) / 2)


def test_with_the_pointwise_max_law_iv_holds_again():
    comps = {"setup": Model.parse("1e6", params=["x"]), "scan": Model.parse("x")}
    assert all(c.held for c in check_laws(comps, pipe="pointwise"))


def test_laws_take_terms_as_stages():
    checks = check_laws(TASKS, ["tpool_2(qsort)", "seq(inc, nop)"])
    assert all(c.held for c in checks)
    assert str(by_law(checks)["ii"][0].left) == "pipe(tpool_2(qsort), seq(inc, nop))"


EXPONENTS = st.sampled_from([(0, 1), (1, 0), (1, 1), (1.5, 0), (2, 0), (0.5, 0), (2, 1)])


@st.composite
def pmnf_models(draw) -> M:
    terms = draw(st.lists(st.tuples(st.floats(0.01, 1e4), EXPONENTS), min_size=1, max_size=2))
    c0 = draw(st.floats(0, 1e5))
    return M.from_terms(c0, [(c, {"x": e}) for c, e in terms], params=["x"])


@settings(max_examples=40, deadline=None)
@given(pmnf_models(), pmnf_models(), pmnf_models())
def test_laws_i_to_iii_hold_for_random_pmnf_models(a, b, c):
    checks = check_laws({"a": a, "b": b, "c": c}, x_range=(2.0, 2.0 ** 30))
    assert all(ch.held for ch in checks if ch.law in ("i", "ii", "iii")), \
        [ch.statement for ch in checks if not ch.held and ch.law != "iv"]


@settings(max_examples=40, deadline=None)
@given(pmnf_models(), pmnf_models())
def test_law_iv_fails_only_where_the_asymptotic_choice_is_not_the_larger_stage(a, b):
    assert all(ch.held for ch in check_laws({"a": a, "b": b}, pipe="pointwise", x_range=(2.0, 2.0 ** 30)))
    for ch in check_laws({"a": a, "b": b}, x_range=(2.0, 2.0 ** 30)):
        if ch.law == "iv" and not ch.held:
            x = ch.counterexample["x"]
            assert ch.lhs(x=x) < max(a(x=x), b(x=x))


def test_a_model_beyond_the_range_of_a_double_leaves_the_law_undecided_with_the_point():
    # x**x overflows a double from x = 144 on: no number can decide the laws there
    comps = {"a": Model.parse("x**x"), "b": Model.parse("x")}
    checks = by_law(check_laws(comps))
    for c in checks["iii"] + checks["iv"]:
        assert c.undecided and not c.held and c.counterexample is None, c
        assert c.overflow is not None and c.overflow["x"] == 1024.0
        assert "both sides exceed the largest double" in c.overflow_text
    assert not any(c.undecided for c in checks["i"] + checks["ii"])  # decided symbolically
    # where the models stay finite, the same laws are decided by numbers
    assert all(c.held and not c.undecided for c in check_laws(comps, x_range=(2.0, 100.0)))


def test_a_counter_example_where_the_models_are_finite_still_decides():
    # the asymptotic max keeps scan, smaller than setup at small x; scan overflows at large x
    comps = {"setup": Model.parse("1e16", params=["x"]), "scan": Model.parse("1e10*x")}
    iv = by_law(check_laws(comps, x_range=(1024.0, 1e300)))["iv"][0]
    assert not iv.held and not iv.undecided and iv.counterexample == {"x": 1024.0}
