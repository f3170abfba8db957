"""The reader's check of a command's output (tests/units_shown.py) finds each kind of number a
user cannot read right, and passes the same output once each number carries its unit."""
from __future__ import annotations

import pytest
from units_shown import unit_problems


def table(header: str, *cells: str) -> str:
    """A rich-style table of one named column and a size column."""
    rows = "".join(f"│ {1024 * (k + 1):>4} │ {c:>12} │\n" for k, c in enumerate(cells))
    return (f"┏━━━━━━┳━━━━━━━━━━━━━━┓\n┃    x ┃ {header:>12} ┃\n┡━━━━━━╇━━━━━━━━━━━━━━┩\n{rows}"
            "└──────┴──────────────┘\n")


@pytest.mark.parametrize("bad, good", [
    (table("time", "28480000", "61520000"), table("time [ns]", "28480000", "61520000")),
    (table("time", "28480000", "61520000"), table("time", "28.48 ms", "61.52 ms")),
    (table("speed", "1.5", "2.5"), table("speed-up", "1.5", "2.5")),
    (table("time [s]", "-0.002", "0.1"), table("time [s]", "0.002", "0.1")),
    (table("time [s]", "nan", "0.1"), table("time [s]", "n/a", "0.1")),
    ("T(524288, 4) = 0.00281386 [0, 0.002866]\n", "T(524288, 4) = 0.00281386 s [0, 0.002866]\n"),
    ("makespan 52.46 (processor 0)\n", "makespan 52.46 us (processor 0)\n"),
    ("P0: comp [0, 3], send m4 [18.23, 20.23]\n", "P0 [us]: comp [0, 3], send m4 [18.23, 20.23]\n"),
    ("the interval ends at -0.5 ms\n", "the spline predicts -0.5 ms < 0 at x = 4096: discarded\n"),
    ("at x=65536: inf ns\n", "at x=65536: 5.59773e+08 ns\n"),
    ("parts timed alone: inc = -3190.0 + 185.8*x**(2/3)\n",
     "parts timed alone: inc = -3190.0 + 185.8*x**(2/3) [ns]\n"),
    ("stage times qsort 1.084e+09, inc 3.514e+07\n", "stage times qsort 1.084e+09, inc 3.514e+07 [ns]\n"),
    ("runs 1.15x slower (1.05-1.29 over x)\n", "runs 1.15x slower (1.05x-1.29x over x)\n"),
], ids=["table-header", "table-cells", "ratio", "negative-time", "nan-cell", "interval", "sentence",
        "timeline", "negative-sentence", "inf", "model", "trailing-unit", "range"])
def test_each_number_without_its_unit_is_found_and_with_it_passes(bad, good):
    assert unit_problems(bad), f"not found in:\n{bad}"
    assert unit_problems(good) == [], good


def test_counts_ratios_and_parameter_values_need_no_unit():
    text = (table("reps", "5", "5") + table("SMAPE %", "0.636", "8.557") + table("adj. R²", "0.99993", "-0.0007")
            + "L=10 o=2 g=5 G=0.01; 3 points measured at 9 sizes from 1024 to 4096\n"
            + "0 % of the measured points lie inside, of median width 0.375 of the prediction\n")
    assert unit_problems(text) == []


def test_an_output_that_says_its_input_states_no_unit_may_show_times_without_one():
    text = table("model", "5254.63", "7574.93")
    assert unit_problems(text)
    note = "note: tasks.txt states no unit for its times (Extra-P's formats have none)\n"
    assert unit_problems(text + note) == []
    assert unit_problems(text + "nan\n" + note), "nan is wrong with or without a unit"


def test_a_unit_in_the_title_holds_for_the_whole_table():
    text = table("model here", "312.559", "5422.97")
    assert unit_problems(text)
    assert unit_problems("fitted models of the parts [ns]\n" + text) == []


PAGE = """<html><head><title>t 1.5</title><style>p {{ width: 1.5em }}</style></head><body>
<h2>time{title}</h2><p>the run took <b>2.5</b>{after}</p>
<table><caption>predictions</caption><thead><tr><th>x</th><th>{header}</th></tr></thead>
<tbody><tr><td>1024</td><td>28.5</td></tr><tr><td>2048</td><td>61.5</td></tr></tbody></table>
<svg><text>0.25</text></svg><p>perfcompose 0.1.0</p></body></html>"""


def test_a_page_is_read_as_its_text_with_its_tables_drawn_as_the_terminals() -> None:
    from units_shown import page_text

    good = PAGE.format(title="", after=" ms", header="predicted [ms]")
    assert page_text(good).splitlines() == ["time", "the run took 2.5 ms", "predictions", "┏━┓",
                                            "┃ x ┃ predicted [ms] ┃", "┡━┩", "│ 1024 │ 28.5 │", "│ 2048 │ 61.5 │",
                                            "└─┘", "perfcompose 0.1.0"]
    assert unit_problems(page_text(good)) == []
    bad = unit_problems(page_text(PAGE.format(title="", after="", header="predicted")))
    assert bad == ["'28.5' under 'predicted' names no unit: │ 1024 │ 28.5 │",
                   "'61.5' under 'predicted' names no unit: │ 2048 │ 61.5 │", "2.5 has no unit: the run took 2.5"]
    stated = PAGE.format(title=" (the input states no unit)", after="", header="predicted")
    assert unit_problems(page_text(stated)) == []
