"""A name in an expression component that no design declares and no option gives a value (``é``,
a misspelt ``xs``) is kept as a symbol, with a note that names it, where it is, and what to do."""
from __future__ import annotations

from typer.testing import CliRunner

from perfcompose.cli import app


def run(*args: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def test_compose_notes_a_name_that_is_no_known_parameter():
    r = run("compose", "a", "-c", "a=é*x")
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[0] == "x*é"  # the first line is still the model
    assert "note: component 'a': 'é' is not a known parameter" in " ".join(r.stderr.split())


def test_no_note_for_the_size_the_counts_or_a_name_given_a_value():
    for args in (["tpool_k(a)", "-c", "a=x*n*k*m*p"], ["a", "-c", "a=c*x", "--at", "x=2,c=3"]):
        r = run("compose", *args)
        assert r.exit_code == 0, r.output
        assert "note:" not in r.output, r.output
    r = run("explore", "pipe(a, b)", "-c", "a=xx*x", "-c", "b=x", "-T", "2", "--param", "xx=3")
    assert r.exit_code == 0 and "note:" not in r.output, r.output


def test_laws_and_explore_note_every_undeclared_name_of_a_stage():
    r = run("laws", "a", "b", "-c", "a=xx*yy*x", "-c", "b=x")
    assert r.exit_code == 0, r.output
    assert "note: component 'a': 'xx', 'yy' are not known parameters" in " ".join(r.output.split())
    r = run("explore", "pipe(a, b)", "-c", "a=xx*x", "-c", "b=x", "-T", "2", "--param", "yy=1")
    assert r.exit_code == 2 and "note: component 'a': 'xx'" in r.output, r.output  # then: no value for xx


def test_predict_notes_names_the_design_does_not_declare_with_file_and_line(tmp_path):
    design = tmp_path / "d.toml"
    design.write_text('program = "pipe(a, b)"\n[parameters]\nk = 2\n[components]\na = "é*x"\n'
                      'b = { model = "2*xs + k*x" }\n')
    r = run("predict", str(design), "--param", "é=1", "--param", "xs=1")
    assert r.exit_code == 0, r.output
    out = r.output
    assert f"note: {design}, line 5, column 6: component 'a': 'é' is not a parameter of the design (x, k)" in out
    assert f"note: {design}, line 6, column 18: component 'b': 'xs' is not a parameter of the design" in out
    assert 'give it a value under [parameters] ("é" = 4)' in out
    assert "component 'b': 'k'" not in out  # declared under [parameters]
