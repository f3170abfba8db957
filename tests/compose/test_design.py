"""Design files: components from expressions, saved models and measurements; located errors."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from perfcompose import Model
from perfcompose.compose import ComponentError, DesignError, TermSyntaxError, compose, load_design, parse_component

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_bundled_design_composes_the_papers_pipeline():
    d = load_design(EXAMPLES / "designs" / "pipeline.toml")
    assert str(d.program) == "pipe(tpool_4(qsort), inc, nop)"
    model = compose(d.program, d.components, pipe=d.pipe)
    assert str(model) == "Max(5422.97, 536.185*x, 258.5425*x*log2(x))" and model.unit == "ns"
    assert model(x=4.0) == 5422.97 and model(x=65536.0) == pytest.approx(258.5425 * 65536 * 16)
    assert d.threads == 8


def test_design_fits_components_from_measurements():
    d = load_design(EXAMPLES / "designs" / "measured.toml")
    model = compose(d.program, d.components, pipe=d.pipe)
    assert model.params == ("x", "n") and model.unit == "ns"
    assert model.order("x") == (1, 1)
    assert d.components["qsort"].source.endswith("tasks.csv:qsort")


def test_components_from_a_saved_model_file(tmp_path):
    m = Model.parse("3*x^2", unit="us")
    (tmp_path / "m.json").write_text(m.to_json_text())
    (tmp_path / "fits.json").write_text(json.dumps([{"region": "k", "model": m.to_json()}]))
    assert parse_component(f"a={tmp_path / 'm.json'}")[1] == m
    assert parse_component(f"k={tmp_path / 'fits.json'}")[1] == m
    with pytest.raises(ComponentError, match="no such file"):
        parse_component(f"a={tmp_path / 'missing.json'}")


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "d.toml"
    p.write_text(text)
    return p


def test_a_bad_term_in_a_design_points_into_the_file(tmp_path):
    p = write(tmp_path, 'program = "seq(a, b"\n[components]\na = "x"\nb = "1"\n')
    with pytest.raises(TermSyntaxError) as info:
        load_design(p)
    assert (info.value.line, info.value.column) == (1, 15)
    assert str(info.value).startswith(f"{p}, line 1, column 15")


def test_an_unknown_component_in_the_program_lists_the_known_ones(tmp_path):
    p = write(tmp_path, 'unit = "ns"\nprogram = "pipe(a, c)"\n[components]\na = "x"\nb = "1"\n')
    with pytest.raises(TermSyntaxError, match="known components: a, b") as info:
        load_design(p)
    assert info.value.line == 2


@pytest.mark.parametrize("text, needle, line", [
    ('program = "a"\n[components]\na = "x"\ncolour = 3\n', "'colour' must be a string or a table", 4),
    ('program = "a"\nprogam = 1\n[components]\na = "x"\n', "unknown key 'progam'", 2),
    ('[components]\na = "x"\n', "needs program", None),
    ('program = "a"\n', "needs a [components] table", None),
    ('program = "a"\npipe = "min"\n[components]\na = "x"\n', "asymptotic", 2),
    ('program = "a"\nx = [1, -2]\n[components]\na = "x"\n', "positive numbers", 2),
    ('program = "a"\n[components]\na = { model = "x", file = "f.csv" }\n', "exactly one of", 3),
    ('program = "a"\n[components]\na = { modle = "x" }\n', "unknown key 'modle'", 3),
    ('program = "a"\n[components]\na = "x +* 2"\n', "cannot parse model", 3),
    ('program = "a\n[components]\n', "not valid TOML", 1),
])
def test_bad_designs_say_where_and_what(tmp_path, text, needle, line):
    with pytest.raises((DesignError, ComponentError)) as info:
        load_design(write(tmp_path, text))
    assert needle in str(info.value)
    if line is not None:
        assert info.value.line == line


def test_a_benchmark_target_is_measured_once_and_reused(tmp_path):
    p = write(tmp_path, 'program = "tpool_2(q)"\n[components]\n'
                        'q = { target = "qsort", grid = "x=1024:8192", reps = 3 }\n')
    first = load_design(p)
    ckpt = tmp_path / ".perfcompose" / "d-q.json.checkpoint.jsonl"
    assert len(ckpt.read_text().splitlines()) == 1 + 4  # header + x = 1024, 2048, 4096, 8192
    again = load_design(p)
    assert again.components["q"] == first.components["q"]  # the same measurements, fitted again
    assert compose(first.program, first.components, pipe=first.pipe).unit == "ns"
