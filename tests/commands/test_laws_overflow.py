"""``perfcompose laws`` with a model beyond the range of a double: the laws it cannot check by
numbers are reported as undecided, with the point and a way out, never as ``inf vs inf``."""
from __future__ import annotations

from typer.testing import CliRunner

from perfcompose.cli import app


def test_laws_say_where_a_model_overflows_instead_of_printing_inf():
    r = CliRunner().invoke(app, ["laws", "a", "b", "-c", "a=x**x", "-c", "b=x"], env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    out = " ".join(r.output.split())
    assert "inf" not in out.replace("info", "")
    assert "cannot decide: at x=1024, n=1 both sides exceed the largest double" in out
    assert "(iii) layering neutrality (equality): undecided in 2 of 2" in out
    assert "(iv) pipe vs task pool of seq (inequality): undecided in 1 of 1" in out
    assert "(i) associativity of pipe (equality): holds" in out
    assert "check a smaller range with --x LO:HI" in out


def test_laws_in_a_range_where_the_model_is_finite_are_decided():
    r = CliRunner().invoke(app, ["laws", "a", "b", "-c", "a=x**x", "-c", "b=x", "--x", "2:100"],
                           env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    out = " ".join(r.output.split())
    assert "undecided" not in out and "(iv) pipe vs task pool of seq (inequality): holds" in out
