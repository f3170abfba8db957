"""Training windows: the points a forecast may learn from (001's "from n <= 9689")."""
from __future__ import annotations

import pytest

from perfcompose.errors import InputError
from perfcompose.skeleton import SEQ, RuntimeTable, estimate
from perfcompose.skeleton.window import Window


def test_window_parses_conditions_joined_by_commas_or_and():
    w = Window.parse("n<=100, p != 7 and p>1")
    assert [str(c) for c in w.conditions] == ["n<=100", "p!=7", "p>1"]
    assert w.admits(100, 8) and not w.admits(101, 8) and not w.admits(50, 7) and not w.admits(50, 1)


def test_p_conditions_keep_the_sequential_time():
    assert Window.parse("p>=2").admits(10, SEQ)
    assert not Window.parse("n<5").admits(10, SEQ)


@pytest.mark.parametrize("text, message", [("", "no condition"), ("q<=3", "cannot read"),
                                           ("n<=abc", "cannot read"), ("n<=1e999", "finite"),
                                           ("n<=1.2.3", "not a number")])
def test_bad_window_is_a_located_input_error(text, message):
    with pytest.raises(InputError, match=message):
        Window.parse(text)


def test_window_that_leaves_nothing_says_so():
    table = RuntimeTable.from_rows([(10, 1, 1.0), (20, 1, 2.0)], source="t.csv")
    with pytest.raises(InputError, match="leaves no measured point"):
        Window.parse("n>100").restrict(table)


def test_estimate_learns_only_inside_the_window():
    # T(n) = n below 50 and 10·n beyond: a window below 50 forecasts the linear law, all points do not
    rows = [(n, 1, float(n if n < 50 else 10 * n)) for n in (10, 20, 30, 40, 60, 70)]
    rows += [(n, 2, float(n if n < 50 else 10 * n) / 2 + 1.0) for n in (10, 20, 30, 40, 60, 70)]
    table = RuntimeTable.from_rows(rows)
    inside = estimate(table, 80, 2, method_t="lm", method_a="lm", train=Window.parse("n<50"))
    assert inside.sequential.x == (10.0, 20.0, 30.0, 40.0)
    assert inside.value == pytest.approx(80 / 2 + 1.0)
    everything = estimate(table, 80, 2, method_t="lm", method_a="lm")
    assert everything.value != pytest.approx(inside.value, rel=0.05)
