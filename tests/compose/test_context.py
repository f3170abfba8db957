"""Context names: each part as it runs inside a program, and the workers that run side by side."""
from __future__ import annotations

from perfcompose.compose.context import (
    Stage,
    base_name,
    context_name,
    in_context,
    predecessors,
    prepared,
    side_by_side,
)
from perfcompose.compose.parser import parse_term


def _names(text: str) -> tuple[str, ...]:
    return in_context(parse_term(text)).components()


def test_a_part_receives_the_output_of_the_parts_before_it_in_seq_and_pipe():
    assert _names("seq(a, b, c)") == ("a", "b@a", "c@a+b")
    assert _names("pipe(a, seq(b, c))") == ("a", "b@a", "c@a+b")


def test_a_pool_passes_its_input_to_its_body_and_its_output_on():
    assert _names("pipe(tpool_2(seq(a, b)), c)") == ("a", "b@a", "c@a+b")


def test_a_context_name_reads_back_its_part_and_predecessors():
    name = context_name("pack", ("smooth", "quantize"))
    assert name == "pack@smooth+quantize"
    assert base_name(name) == "pack" and predecessors(name) == ("smooth", "quantize")
    assert predecessors("pack") == () and base_name("pack") == "pack"


def test_pool_copies_and_pipe_stages_run_side_by_side_in_both_orders():
    named = in_context(parse_term("tpool_2(seq(a, b))"))
    assert side_by_side(named) == [(Stage(("a", "b@a")), Stage(("a", "b@a")))]
    named = in_context(parse_term("pipe(seq(a, b), c)"))
    chain, last = Stage(("a", "b@a")), Stage(("c@a+b",))
    assert side_by_side(named) == [(chain, last), (last, chain)]
    assert side_by_side(in_context(parse_term("seq(a, b)"))) == []


def test_a_prepared_element_has_passed_through_the_parts_before():
    functions = {"double": lambda v: 2 * v, "inc": lambda v: v + 1}
    element = prepared(lambda x: x, functions, "last@double+inc")
    assert element(5) == 11
