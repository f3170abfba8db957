"""The concrete syntax of paper 004, section 2.1: equations, operators, precedence, located errors."""
from __future__ import annotations

import pytest
from pamela_models import MRM

from perfcompose.errors import InputError
from perfcompose.pamela import parse
from perfcompose.pamela.language.syntax import BinOp, Call, If, Loop, Name, Number, Pos, Vector


def test_mrm_equations_as_printed_in_section_2_1():
    prog = parse(MRM)
    kinds = [(e.kind, e.parameter, e.name, e.formals) for e in prog.equations]
    assert kinds == [("numeric", True, "P", ()), ("numeric", True, "N", ()), ("numeric", False, "t_l", ()),
                     ("numeric", False, "t_s", ()), ("resource", True, "fcfs", ("i",)),
                     ("resource", False, "s", ()), ("process", False, "main", ())]
    main = prog.equations[6].body
    assert isinstance(main, Loop) and main.kind == "par" and main.index == "p"
    inner = main.body
    assert isinstance(inner, Loop) and inner.kind == "seq" and inner.index == "i"
    assert isinstance(inner.body, BinOp) and inner.body.op == ";"
    assert isinstance(inner.body.right, Call) and inner.body.right.name == "use"
    assert prog.equations[3].body == Number("0.1", Pos(4, 15))


def test_parallel_binds_looser_than_sequential():
    # a ; b || c ; d  is  (a ; b) || (c ; d)
    body = parse("process q = a ; b || c ; d").equations[0].body
    assert isinstance(body, BinOp) and body.op == "||"
    assert body.left.op == ";" and body.right.op == ";"


def test_arithmetic_precedence_and_keywords_are_not_name_prefixes():
    # names that start with keywords stay names; mod binds like *, comparisons bind loosest
    body = parse("numeric x = sequence + iffy * 3 mod 2 < maxi").equations[0].body
    assert body.op == "<" and body.right == Name("maxi", Pos(1, 41))
    assert body.left.op == "+" and body.left.left.name == "sequence"
    assert body.left.right.op == "mod" and body.left.right.left.op == "*"


def test_reductions_vectors_conditionals_and_max_call():
    eqs = parse("numeric a = sum (i = 1, N) { i * 2 }\n"
                "numeric b = max (i = 1, N) i\n"
                "numeric c = max(1, 2, 3)\n"
                "numeric d = [1, 2, 3] * 4\n"
                "numeric e = if (x == 1) then 2 else 3\n").equations
    assert isinstance(eqs[0].body, Loop) and eqs[0].body.kind == "sum"
    assert isinstance(eqs[1].body, Loop) and eqs[1].body.kind == "max"
    assert isinstance(eqs[2].body, Call) and eqs[2].body.name == "max" and len(eqs[2].body.args) == 3
    assert isinstance(eqs[3].body.left, Vector) and len(eqs[3].body.left.items) == 3
    assert isinstance(eqs[4].body, If) and eqs[4].body.else_ == Number("3", Pos(5, 37))


def test_dangling_else_belongs_to_the_inner_if():
    body = parse("process q = if (a) if (b) x else y").equations[0].body
    assert body.else_ is None and body.then.else_ is not None


def _error(text: str) -> InputError:
    with pytest.raises(InputError) as info:
        parse(text, "m.pam")
    return info.value


def test_unclosed_brace_is_reported_where_it_opens():
    err = _error("process main = seq (i = 1, N) {\n  delay(1) ;\n  use(s, 2)\n")
    assert (err.line, err.column) == (1, 31) and "never closed" in str(err) and "m.pam" in str(err)


def test_stray_closing_brace_is_reported_where_it_is():
    err = _error("process main = delay(1) }\n")
    assert (err.line, err.column) == (1, 25) and "closes nothing" in str(err)


def test_mismatched_brackets_name_both_places():
    err = _error("process main = use(s, [1, 2)\n")
    assert (err.line, err.column) == (1, 28) and "line 1, column 23" in str(err)


def test_unexpected_token_shows_line_and_caret():
    err = _error("numeric a = 1\nnumeric b = 2 +* 3\n")
    assert (err.line, err.column) == (2, 16)
    assert "numeric b = 2 +* 3\n" in str(err) and "^" in str(err)


def test_bad_character_and_missing_right_hand_side_end():
    assert _error("numeric a = 1 & 2").column == 15
    err = _error("numeric a = ")
    assert err.line == 1 and "ends" in str(err)


def test_reserved_word_cannot_name_an_equation():
    err = _error("numeric par = 1")
    assert err.line == 1
