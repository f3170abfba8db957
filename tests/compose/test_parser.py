"""The term language (000, eq. 1) and its text syntax: round trips, sugar, located errors."""
from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from perfcompose.compose import Component, MapReduce, Pipe, Seq, TermSyntaxError, TPool, parse_term, pipe, seq, tpool
from perfcompose.model import symbol

KNOWN = ("nop", "inc", "qsort", "hist", "add")


def test_eq1_every_production_parses():
    assert parse_term("qsort") == Component("qsort")
    assert parse_term("seq(qsort, inc)") == Seq(Component("qsort"), Component("inc"))
    assert parse_term("pipe(qsort, inc)") == Pipe(Component("qsort"), Component("inc"))
    assert parse_term("tpool_4(qsort)") == TPool(4, Component("qsort"))
    mr = parse_term("mapreduce(map=hist, reduce=add, m=2, n=12, keys=768, per_key=x)")
    assert isinstance(mr, MapReduce)
    assert (mr.m, mr.n, mr.keys, mr.per_key) == (2, 12, sp.Integer(768), symbol("x"))
    assert mr.shuffle.keys == sp.Integer(768)  # o defaults to k(x), as 000 substitutes it


def test_nary_sugar_nests_to_the_left():
    assert parse_term("pipe(a, b, c)") == Pipe(Pipe(Component("a"), Component("b")), Component("c"))
    assert parse_term("seq(a, b, c, d)") == seq("a", "b", "c", "d")


def test_tpool_spellings_are_one_term():
    assert parse_term("tpool_4(qsort)") == parse_term("tpool(4, qsort)") == tpool(4, "qsort")
    assert parse_term("tpool_n(qsort)") == parse_term("tpool(n, qsort)") == TPool("n", Component("qsort"))


def test_keys_and_per_key_are_expressions_in_x():
    mr = parse_term("mapreduce(map=hist, reduce=add, keys=3*256, per_key=x/2 + log2(x), o=768)")
    assert mr.keys == 768
    assert mr.per_key == symbol("x") / 2 + sp.log(symbol("x"), 2)


def test_terms_span_lines_and_take_comments():
    t = parse_term("pipe(  # the sorting stage is replicated\n  tpool_4(qsort),\n  inc,\n)")
    assert t == pipe(tpool(4, "qsort"), "inc")


@pytest.mark.parametrize("text", [
    "pipe(tpool_4(qsort), inc, nop)",
    "seq(a, seq(b, c))",
    "tpool_n(pipe(qsort, inc))",
    "mapreduce(map=hist, reduce=add, m=2, n=n, keys=768, per_key=x, bandwidth=125000000.0)",
    "mapreduce(map=seq(hist, nop), reduce=add, m=1, n=12, keys=x, per_key=768, shuffle=net)",
])
def test_printing_reads_back_to_the_same_term(text):
    term = parse_term(text)
    assert parse_term(str(term)) == term


def _terms() -> st.SearchStrategy:
    leaf = st.sampled_from(KNOWN).map(Component)
    return st.recursive(leaf, lambda t: st.one_of(
        st.tuples(t, t).map(lambda p: Seq(*p)),
        st.tuples(t, t).map(lambda p: Pipe(*p)),
        st.tuples(st.one_of(st.integers(1, 64), st.sampled_from(["n", "T"])), t).map(lambda p: TPool(*p)),
    ), max_leaves=8)


@settings(max_examples=150, deadline=None)
@given(_terms())
def test_random_terms_round_trip_through_text(term):
    assert parse_term(str(term), components=KNOWN) == term


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="seqpitoolq_0123456789(), =*x+\n#", max_size=40))
def test_any_text_parses_or_raises_a_located_term_error(text):
    try:
        parse_term(text)
    except TermSyntaxError as exc:
        assert str(exc)


def _error(text: str, **kw) -> TermSyntaxError:
    with pytest.raises(TermSyntaxError) as info:
        parse_term(text, **kw)
    return info.value


def test_unbalanced_parentheses_point_at_the_open_bracket():
    e = _error("pipe(qsort, seq(inc, nop)")
    assert (e.line, e.column) == (1, 5)
    assert "never closed" in str(e)
    assert str(e).splitlines()[1:3] == ["    pipe(qsort, seq(inc, nop)", "        ^"]


def test_a_stray_closing_parenthesis_is_located():
    e = _error("seq(a, b))")
    assert (e.line, e.column) == (1, 10) and "closes nothing" in str(e)


def test_unknown_component_names_the_known_ones():
    e = _error("pipe(qsort,\n     incc)", components=KNOWN)
    assert (e.line, e.column) == (2, 6)
    assert "unknown component 'incc'" in str(e)
    assert "did you mean 'inc'" in str(e) and "known components: add, hist, inc, nop, qsort" in str(e)


@pytest.mark.parametrize("text", ["tpool_0(qsort)", "tpool(0, qsort)"])
def test_tpool_0_is_rejected(text):
    e = _error(text)
    assert e.column == 7 and "at least 1" in str(e)


def test_a_shuffle_inside_a_task_pool_is_rejected_section_3_2():
    e = _error("seq(nop, tpool_4(mapreduce(map=hist, reduce=add, keys=768, per_key=x)))")
    assert e.column == 18
    assert "shuffle may not be wrapped inside a task pool" in str(e)


@pytest.mark.parametrize("text, needle", [
    ("foo(a, b)", "unknown pattern 'foo'"),
    ("seq(a)", "at least two terms"),
    ("pipe(a, 3)", "expected a term"),
    ("tpool_4(a, b)", "exactly one term"),
    ("tpool_2.5(a)", "unexpected"),
    ("mapreduce(map=hist)", "needs 'reduce='"),
    ("mapreduce(map=hist, reduce=add, keys=768, per_key=y)", "expression in x"),
    ("mapreduce(map=hist, reduce=add, keys=768, per_key=x, colour=1)", "unknown mapreduce argument"),
    ("seq(a, shuffle)", "shuffle stands only inside a mapreduce"),
    ("", "empty term"),
    ("seq(a; b)", "unexpected character ';'"),
])
def test_bad_terms_say_what_is_wrong(text, needle):
    assert needle in str(_error(text))


def test_errors_in_a_file_point_into_the_file():
    e = _error("seq(a, b", source="design.toml", line=7, column=12)
    assert (e.line, e.column) == (7, 15) and str(e).startswith("design.toml, line 7, column 15")


@pytest.mark.parametrize("text", ["tpool(nan, a)", "tpool_inf(a)", "tpool(zoo, a)", "tpool_E(a)", "tpool(oo, a)",
                                  "tpool_I(a)", "tpool(pi, a)", "tpool_NaN(a)"])
def test_a_name_sympy_reads_as_a_number_is_no_thread_count(text):
    with pytest.raises(TermSyntaxError, match="cannot name a thread count: it is read as a number"):
        parse_term(text)


def test_a_thread_count_beyond_what_is_modelled_is_a_located_error():
    with pytest.raises(TermSyntaxError, match=r"beyond what perfcompose models \(at most 10\^12\)") as info:
        parse_term("tpool_99999999999999999999999(a)")
    assert "column 7" in str(info.value)
    assert parse_term("tpool_1000000000000(a)") == TPool(10 ** 12, Component("a"))
