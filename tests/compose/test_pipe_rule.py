"""The pipeline operator never silently loses a stage (eq. 3 of 003 against the exact max)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from perfcompose import Model
from perfcompose.cli import app
from perfcompose.compose import Composer, compose, explore, parse_term
from perfcompose.compose.terms import threads_used

INC = Model.parse("536.185*x", unit="ns")
SERVER = Model.parse("0.1*N*P", unit="ns")  # a stage that does not depend on x at all


def test_pipe_keeps_a_stage_independent_of_x_wherever_it_is_the_larger():
    comps = {"inc": INC, "server": SERVER}
    x, N, P = np.meshgrid([1.0, 64.0, 4096.0, 2.0 ** 20], [10.0, 1e4], [4.0, 1000.0])
    expected = np.maximum(536.185 * x, 0.1 * N * P)
    for rule in ("pointwise", "asymptotic"):
        model = compose("pipe(server, inc)", comps, pipe=rule)
        assert np.array_equal(model(x=x, N=N, P=P), expected), rule


def test_asymptotic_max_reports_no_single_winner_over_all_parameters():
    composer = Composer({"inc": INC, "server": SERVER}, pipe="asymptotic")
    [choice] = composer.pipe_choices(parse_term("pipe(server, inc)"))
    assert choice.both and choice.dropped is None


def test_asymptotic_max_warns_where_the_dropped_stage_is_the_larger():
    comps = {"nop": Model.parse("5422.97", unit="ns"), "inc": INC}
    composer = Composer(comps, pipe="asymptotic")
    term = parse_term("pipe(inc, nop)")
    assert str(composer(term)) == "536.185*x"
    [warning] = composer.evaluate(term).pipe_warnings([{"x": 4.0}, {"x": 1024.0}], "ns")
    assert warning.point == {"x": 4.0} and warning.dropped_value == 5422.97
    assert "keeps inc" in str(warning) and "nop is larger" in str(warning) and "x=4" in str(warning)
    assert composer.evaluate(term).pipe_warnings([{"x": 1024.0}], "ns") == []
    assert Composer(comps).evaluate(term).pipe_warnings([{"x": 4.0}], "ns") == []  # the pointwise max drops nothing


# The slower stage alone costs 4.4e-4 s; the asymptotic max keeps the other, 1.3e-4 s at x = 65536.
DESIGN = '''title = "exchange then post-process"
program = "pipe(exchange, post)"
x = [65536]
{pipe}
[components]
exchange = "4.4e-4"
post = "1.3e-4 / (65536 * 16) * x * log2(x)"
'''


def predict(tmp_path: Path, pipe_line: str):
    design = tmp_path / "d.toml"
    design.write_text(DESIGN.format(pipe=pipe_line))
    return CliRunner(env={"COLUMNS": "200"}).invoke(app, ["predict", str(design)])


def test_predict_of_a_pipeline_is_never_below_its_slower_stage(tmp_path):
    r = predict(tmp_path, "")
    assert r.exit_code == 0, r.output
    assert "0.00044 " in r.output and "│ exchange" in r.output


def test_predict_with_the_papers_rule_shows_the_pointwise_value_and_warns(tmp_path):
    r = predict(tmp_path, 'pipe = "asymptotic"')
    assert r.exit_code == 0, r.output
    assert "0.00013" in r.output and "pointwise max" in r.output and "0.00044" in r.output
    assert "warning:" in r.output and "exchange is larger" in r.output


def test_nested_task_pools_count_their_threads():
    assert threads_used(parse_term("tpool_7(tpool_2(qsort))")) == 14
    assert threads_used(parse_term("pipe(tpool_3(a), seq(b, tpool_2(c)))")) == 5
    assert threads_used(parse_term("tpool_n(tpool_2(a))"), {"n": 4}) == 8
    with pytest.raises(ValueError, match="thread count n"):
        threads_used(parse_term("tpool_n(a)"))


def test_explore_counts_the_threads_of_nested_pools_against_the_budget():
    comps = {"qsort": Model.parse("1034.17*x*log2(x)"), "inc": Model.parse("536.185*x")}
    e = explore("pipe(tpool_2(qsort), inc)", comps, 8, {"x": 65536})
    for alt in e.alternatives:
        assert alt.threads == threads_used(alt.term) <= 8, alt
    pooled = [a for a in e.alternatives if a.label == "task pool of the fused stages"][0]
    assert str(pooled.term) == "tpool_4(seq(tpool_2(qsort), inc))" and pooled.threads == 8


def test_the_worked_design_mixes_all_four_sources(monkeypatch):
    from perfcompose.commands.common import console

    monkeypatch.setattr(console, "_width", 200)  # the console read COLUMNS when it was made
    design = Path(__file__).resolve().parents[2] / "examples" / "designs" / "mixed.toml"
    r = CliRunner(env={"COLUMNS": "200"}).invoke(app, ["predict", str(design)])
    assert r.exit_code == 0, r.output
    for source in ("PAMELA", "loggp", "fit", "skeleton"):
        assert source in r.output
    assert "[us]" in r.output and "halo" in r.output.splitlines()[-2]  # the bottleneck at the largest x
