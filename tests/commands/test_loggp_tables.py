"""The plain-text results of ``loggp simulate`` are, byte for byte, what Rich prints where Rich
prints without styles, for any title, caption, cells and console width; where Rich would lay the
text out otherwise the plain writer declines (None) rather than print something else."""
from __future__ import annotations

import io
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

from perfcompose.commands import consoles
from perfcompose.commands.loggp import tables as plain

PATHS = st.text(alphabet="abcxyz019/._-: ", min_size=1, max_size=90)
TIMES = st.lists(st.one_of(st.integers(0, 10 ** 9).map(float), st.floats(0, 1e12, allow_nan=False),
                           st.just(float("nan")), st.just(float("inf"))), min_size=1, max_size=70)


def rich_prints(width: int, monkeypatch: pytest.MonkeyPatch, draw) -> str:
    """What Rich prints of the layout ``draw`` gives, on a console of ``width`` columns that is not a terminal."""
    buf = io.StringIO()
    monkeypatch.setattr(consoles, "console", Console(file=buf, width=width))
    plain.print_layout(draw())
    return buf.getvalue()


@pytest.fixture
def columns(monkeypatch: pytest.MonkeyPatch):
    def set_width(width: int) -> None:
        monkeypatch.setenv("COLUMNS", str(width))
        monkeypatch.delenv("FORCE_COLOR", raising=False)
        monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    return set_width


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=PATHS, times=TIMES, unit=st.sampled_from(["", "us", "ns", "s"]), width=st.integers(10, 140))
def test_a_program_table_is_what_rich_prints(path, times, unit, width, monkeypatch, columns):
    columns(width)
    P = len(times)
    computation = [t / 3 if t == t else t for t in times]
    communication = [t - c for t, c in zip(times, computation)]
    operations = list(range(P))
    title = f"{path}: {P} processors, 3 steps; LogGOPSim semantics; L=10 o=2 g=5 G=1"
    finite = [t for t in times if t == t] or [0.0]
    last = max(finite)
    crit = plain.critical(finite, finite)
    layout = plain.program_layout(title, unit, times, computation, communication, operations,
                                  (plain.makespan_line(last, unit, crit),))
    text = plain.result_text(layout)
    if text is not None:
        assert text == rich_prints(width, monkeypatch, lambda: layout)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=PATHS, times=TIMES, width=st.integers(10, 140), O=st.sampled_from([0.0, 0.5]))
def test_a_goal_result_is_what_rich_prints(path, times, width, O, monkeypatch, columns):
    columns(width)
    params = SimpleNamespace(L=10.0, o=2.0, g=5.0, G=1.0)
    layout = plain.goal_layout(path, len(times), params, O, 65535.0, times)
    text = plain.result_text(layout)
    if text is not None:
        assert text == rich_prints(width, monkeypatch, lambda: layout)


def test_the_usual_results_are_written_plain_and_wrapped_as_rich_wraps_them(monkeypatch, columns):
    """A 4,096-rank result at the default width: the title wraps, the caption is centred."""
    columns(80)
    times = [float(h % 97) for h in range(4096)]
    title = "/tmp/runs/a.npz: 4096 processors, 25 steps; LogGOPSim semantics; L=10 o=2 g=5 G=1"
    layout = plain.program_layout(title, "us", times, times, times, [2] * 4096, (plain.makespan_line(96.0, "us", 96),))
    text = plain.result_text(layout)
    assert text is not None and text.count("\n") == 2 + 3 + 40 + 1 + 1 + 1
    assert text == rich_prints(80, monkeypatch, lambda: layout)
    params = SimpleNamespace(L=10.0, o=2.0, g=5.0, G=1.0)
    layout = plain.goal_layout("/tmp/a.goal", 4096, params, 0.0, 65535.0, times)
    text = plain.result_text(layout)
    assert text is not None and "  last (--json   \n" in text
    assert text == rich_prints(80, monkeypatch, lambda: layout)


@pytest.mark.parametrize("case", ["markup", "emoji", "narrow", "forced colour"])
def test_what_rich_would_lay_out_otherwise_is_left_to_rich(case, monkeypatch, columns):
    columns(80 if case != "narrow" else 12)  # narrower than the table
    if case == "forced colour":
        monkeypatch.setenv("FORCE_COLOR", "1")
    path = {"markup": "/tmp/[bold]x.goal", "emoji": "/tmp/:smile:.goal"}.get(case, "/tmp/x.goal")
    params = SimpleNamespace(L=10.0, o=2.0, g=5.0, G=1.0)
    assert plain.result_text(plain.goal_layout(path, 2, params, 0.0, 65535.0, [1.0, 2.0])) is None
    assert plain.result_text(plain.program_layout(path, "", [1.0], [0.0], [1.0], [1], ("makespan 1",))) is None


def test_a_unit_rich_might_not_print_as_it_is_is_left_to_rich(columns):
    """Only a unit of ASCII letters and digits is written plain: Rich prints its brackets as they are."""
    columns(80)
    for unit, plain_text in (("us", True), ("µs", False), ("m/s", False)):
        layout = plain.program_layout("t", unit, [1.0], [0.0], [1.0], [1], ("makespan 1",))
        assert (plain.result_text(layout) is not None) is plain_text
